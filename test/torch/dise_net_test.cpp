// The LibTorch training engine: eigen backward against finite differences, the loss, and a
// tiny training run that lowers the loss.
#include <gtest/gtest.h>

#include "pcl_dise/torch/dise_net.h"
#include "test_support.h"
#include "pcl_dise/forward.h"
#include "training/knn_graph.h"

namespace {

using namespace pcl_dise;

// A scalar function of the eigendecomposition that reads eigenvalues and eigenvectors
// (sign-invariant in the vectors, as the training loss is).
torch::Tensor eigenObjective(const torch::Tensor& cov, const torch::Tensor& probe) {
  auto [values, vectors] = symmetricEigen3(cov);
  return (values * probe).sum() + (vectors.select(2, 0).pow(2) * probe).sum() +
         (vectors.select(2, 2).abs() * probe.flip(1)).sum();
}

TEST(SymmetricEigen3, BackwardMatchesFiniteDifferences) {
  torch::manual_seed(3);
  const auto opts = torch::TensorOptions(torch::kFloat64);
  torch::Tensor a = torch::randn({16, 3, 3}, opts);
  torch::Tensor cov = (torch::matmul(a, a.transpose(1, 2)) + 0.1 * torch::eye(3, opts)).detach().requires_grad_(true);
  const torch::Tensor probe = torch::randn({16, 3}, opts);
  eigenObjective(cov, probe).backward();
  const torch::Tensor analytic = cov.grad().clone();
  const double h = 1e-6;
  for (int b = 0; b < 16; ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j) {
        // Symmetric perturbation: the gradient of a symmetric input counts both (i,j) and (j,i).
        torch::Tensor e = torch::zeros({16, 3, 3}, opts);
        e[b][i][j] = h;
        e[b][j][i] = h;
        torch::NoGradGuard no_grad;
        const double numeric = (eigenObjective(cov + e, probe) - eigenObjective(cov - e, probe)).item<double>() / (2 * h);
        const double expected = (i == j ? 1.0 : 2.0) * analytic[b][i][j].item<double>();
        EXPECT_NEAR(numeric, expected, 1e-5 * std::max(1.0, std::fabs(numeric))) << b << " " << i << j;
      }
}

TEST(SymmetricEigen3, RepeatedEigenvaluesGiveFiniteGradients) {
  const auto opts = torch::TensorOptions(torch::kFloat64);
  torch::Tensor cov = torch::diag_embed(torch::tensor({{1.0, 1.0, 2.0}, {0.0, 0.0, 0.0}, {3.0, 3.0, 3.0}}, opts)).requires_grad_(true);
  eigenObjective(cov, torch::ones({3, 3}, opts)).backward();
  EXPECT_TRUE(torch::isfinite(cov.grad()).all().item<bool>());
}

TEST(Loss, IsUnorientedEuclidean) {
  const torch::Tensor n = torch::tensor({{0.f, 0.f, 1.f}, {1.f, 0.f, 0.f}});
  const torch::Tensor t = torch::tensor({{0.f, 0.f, -1.f}, {0.f, 1.f, 0.f}});
  // Flipped normal: 0; perpendicular: sqrt(2). Mean: sqrt(2)/2.
  EXPECT_NEAR(unorientedNormalLoss(n, t).item<float>(), std::sqrt(2.f) / 2, 1e-6);
}

TEST(Training, AFewStepsLowerTheLoss) {
  torch::manual_seed(1);
  const auto cloud = test::boxCloud(600, 1.f, 4);
  std::vector<float> points, normals;
  for (const auto& p : *cloud) {
    points.insert(points.end(), {p.x, p.y, p.z});
    // The face normal of a box point: the axis on which it sits on a face.
    float n[3] = {0, 0, 0};
    for (int c = 0; c < 3; ++c)
      if (p.data[c] == 0.f || p.data[c] == 1.f) n[c] = 1.f;
    normals.insert(normals.end(), n, n + 3);
  }
  const PointKdTree tree(points.data(), cloud->size());
  const TorchGraph graph = TorchGraph::build(points.data(), cloud->size(), tree.graph(17), edgeScale(points.data(), tree.graph(17)));
  const torch::Tensor target = torch::from_blob(normals.data(), {static_cast<int64_t>(cloud->size()), 3}).clone();
  DiseNet net;
  torch::optim::RMSprop optimizer(net->parameters(), torch::optim::RMSpropOptions(5e-4));
  auto evaluate = [&] {
    torch::NoGradGuard no_grad;
    net->eval();
    TorchState s = initialState(graph);
    for (int it = 0; it < 2; ++it) s = net->iterate(graph, s);
    net->train();
    return unorientedNormalLoss(s.normals, target).item<double>();
  };
  const double before = evaluate();
  for (int step = 0; step < 30; ++step) {
    TorchState s;
    {
      torch::NoGradGuard no_grad;
      s = initialState(graph);
    }
    for (int it = 0; it < 2; ++it) {
      TorchState next = net->iterate(graph, s, 0.25);
      torch::Tensor loss = unorientedNormalLoss(next.normals, target);
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      s = {next.normals.detach(), next.weights.detach(), next.curvature.detach()};
    }
  }
  EXPECT_LT(evaluate(), 0.9 * before);
}

}  // namespace
