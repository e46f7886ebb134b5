// Batched 3x3 symmetric eigendecomposition for LibTorch: forward with the shared analytic
// solver (eigen3x3.h), backward after Giles with guards for repeated eigenvalues.
#include <ATen/Parallel.h>

#include "pcl_dise/backends/torch/dise_net.h"
#include "pcl_dise/core/eigen3x3.h"

namespace pcl_dise {
namespace {

template <typename Scalar>
void solveBatch(const torch::Tensor& cov, torch::Tensor& values, torch::Tensor& vectors) {
  const Scalar* c = cov.data_ptr<Scalar>();
  Scalar* val = values.data_ptr<Scalar>();
  Scalar* vec = vectors.data_ptr<Scalar>();
  at::parallel_for(0, cov.size(0), 1024, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const Scalar* m = c + 9 * b;
      const SymMat3<Scalar> sym{m[0], Scalar(0.5) * (m[1] + m[3]), Scalar(0.5) * (m[2] + m[6]),
                                m[4], Scalar(0.5) * (m[5] + m[7]), m[8]};
      const Eigen3Result<Scalar> e = eigenSymmetric3(sym);
      for (int i = 0; i < 3; ++i) {
        val[3 * b + i] = e.values[i];
        for (int r = 0; r < 3; ++r) vec[9 * b + 3 * r + i] = e.vectors[i][r];  // column i = eigenvector i
      }
    }
  });
}

class SymmetricEigen3 : public torch::autograd::Function<SymmetricEigen3> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& cov) {
    const torch::Tensor host = cov.detach().to(torch::kCPU).contiguous();
    torch::Tensor values = torch::empty({host.size(0), 3}, host.options());
    torch::Tensor vectors = torch::empty({host.size(0), 3, 3}, host.options());
    AT_DISPATCH_FLOATING_TYPES(host.scalar_type(), "symmetricEigen3",
                               [&] { solveBatch<scalar_t>(host, values, vectors); });
    values = values.to(cov.device());
    vectors = vectors.to(cov.device());
    ctx->save_for_backward({values, vectors});
    return {values, vectors};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor& values = saved[0];
    const torch::Tensor& vectors = saved[1];
    torch::Tensor grad_values = grads[0].defined() ? grads[0] : torch::zeros_like(values);
    torch::Tensor grad_vectors = grads[1].defined() ? grads[1] : torch::zeros_like(vectors);
    // F_ij = 1 / (lambda_j - lambda_i) off the diagonal; zero where the gap is (near) zero.
    const torch::Tensor gap = values.unsqueeze(1) - values.unsqueeze(2);  // [b, i, j] = lambda_j - lambda_i
    const torch::Tensor scale = values.abs().amax(1, true).unsqueeze(2).clamp_min(1e-30);
    const torch::Tensor separated = gap.abs() > 1e-6 * scale;
    const torch::Tensor f =
        torch::where(separated, 1.0 / torch::where(separated, gap, torch::ones_like(gap)), torch::zeros_like(gap));
    const torch::Tensor ut = vectors.transpose(1, 2);
    const torch::Tensor inner = torch::diag_embed(grad_values) + f * torch::matmul(ut, grad_vectors);
    torch::Tensor grad = torch::matmul(torch::matmul(vectors, inner), ut);
    grad = 0.5 * (grad + grad.transpose(1, 2));
    grad = torch::where(torch::isfinite(grad), grad, torch::zeros_like(grad));
    return {grad};
  }
};

}  // namespace

std::tuple<torch::Tensor, torch::Tensor> symmetricEigen3(const torch::Tensor& covariance) {
  TORCH_CHECK(covariance.dim() == 3 && covariance.size(1) == 3 && covariance.size(2) == 3,
              "symmetricEigen3 expects B x 3 x 3, got ", covariance.sizes());
  auto out = SymmetricEigen3::apply(covariance);
  return {out[0], out[1]};
}

}  // namespace pcl_dise
