#pragma once
// The DISE network as a LibTorch module: the reference forward pass and the training engine.
// Include only from LibTorch translation units (torch/torch.h is slow to compile).
#include <torch/torch.h>

#include "pcl_dise/core/model.h"
#include "pcl_dise/core/neighborhoods.h"

namespace pcl_dise {

/** A neighbourhood graph as tensors (all on one device).
 *  points: M x 3 float; center: E int64, the point i of each entry; neighbor: E int64, its j;
 *  counts: M float, K_i (clamped to >= 1 so that empty rows divide safely); degree: K where
 *  every point has K >= 1 entries (the entries then form an M x K block), else 0. */
struct TorchGraph {
  torch::Tensor points;        ///< M x 3 float
  torch::Tensor center;        ///< E int64: the point i of each entry
  torch::Tensor neighbor;      ///< E int64: its neighbour j
  torch::Tensor counts;        ///< M float: K_i, clamped to >= 1
  int64_t degree = 0;          ///< K where every point has K entries (an M x K block), else 0
  float edge_scale = 1.f;      ///< s of docs/algorithm.md
  torch::Tensor entry_scales;  ///< E float: s of each entry's point i (the local rule), or undefined
  int64_t numPoints() const { return points.size(0); }  ///< M

  /** points: M x 3 row-major (copied); point_scales: M values, each point's s under the local
   *  rule (read instead of edge_scale), or nullptr. */
  static TorchGraph build(const float* points, std::size_t num_points, const Neighborhoods& neighborhoods,
                          float edge_scale, const torch::Device& device = torch::kCPU,
                          const float* point_scales = nullptr);
};

/** State entering / leaving an iteration. normals: M x 3 (sign rule applied); weights: E. */
struct TorchState {
  torch::Tensor normals;    ///< M x 3
  torch::Tensor weights;    ///< E
  torch::Tensor curvature;  ///< M
};

/** The seven MLPs of docs/algorithm.md as torch::nn::Sequential children named layer1 .. layer4,
 *  so that parameter names match the .safetensors files. */
class DiseNetImpl : public torch::nn::Module {
 public:
  DiseNetImpl();                             ///< randomly initialised, as PyTorch's layers are
  explicit DiseNetImpl(const Model& model);  ///< with `model`'s weights

  /** One DISE iteration (steps 1-10). dropout: probability applied to the kernel weights
   *  (training mode only); dropout_scale, where given (E factors, 0 or 1 / (1 - p)), is applied
   *  instead of a mask drawn here. A point whose weighted fit degenerates keeps its previous normal. */
  TorchState iterate(const TorchGraph& graph, const TorchState& previous, double dropout = 0.0,
                     const torch::Tensor& dropout_scale = {});

  /** Copies the parameters to / from the plain Model. */
  Model toModel() const;
  void load(const Model& model);  ///< see toModel

 private:
  torch::nn::Sequential layer1{nullptr}, layerg{nullptr}, layer2{nullptr}, layerg2{nullptr}, layer3{nullptr},
      layerg3{nullptr}, layer4{nullptr};
};
TORCH_MODULE(DiseNet);

/** Iteration 0: unweighted PCA over the graph's neighbourhoods, initial weights 1 / (K_i - 1). */
TorchState initialState(const TorchGraph& graph);

/** Weighted plane fit per point: normals (sign rule), curvature, and a mask of points whose
 *  covariance is non-degenerate. Differentiable (eigen backward after Giles). weights: E. */
struct PlaneFit {
  torch::Tensor normals;    ///< M x 3, sign rule applied
  torch::Tensor curvature;  ///< M
  torch::Tensor valid;      ///< M bool: the covariance is not degenerate
};
PlaneFit weightedPlaneFit(const TorchGraph& graph, const torch::Tensor& weights);

/** Symmetric 3x3 eigendecomposition of a batch B x 3 x 3 with the shared analytic solver
 *  (eigen3x3.h); returns eigenvalues B x 3 ascending and eigenvectors B x 3 x 3 (columns).
 *  Backward: dL/dC = U (diag(dL/dlambda) + F o (U^T dL/dU)) U^T, F_ij = 1/(lambda_j - lambda_i),
 *  symmetrised, with F = 0 for (near-)equal eigenvalues and non-finite gradients zeroed. */
std::tuple<torch::Tensor, torch::Tensor> symmetricEigen3(const torch::Tensor& covariance);

/** The values of a float tensor (any device), row-major. */
std::vector<float> toFloatVector(const torch::Tensor& t);

/** Scatter-mean of rows x (E x F) into M x F by `index` (E). */
torch::Tensor segmentMean(const torch::Tensor& x, const TorchGraph& graph);

/** Angle loss of docs/algorithm.md: mean_i min(|n_i - t_i|, |n_i + t_i|) over the rows of `mask`. */
torch::Tensor unorientedNormalLoss(const torch::Tensor& normals, const torch::Tensor& target);

}  // namespace pcl_dise
