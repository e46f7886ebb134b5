// The LibTorch training engine: eigen backward against finite differences, the loss, and a
// tiny training run that lowers the loss.
#include <gtest/gtest.h>

#include "pcl_dise/backends/torch/dise_net.h"
#include "pcl_dise/core/forward.h"
#include "pcl_dise/core/grid_search.h"
#include "test_support.h"

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
        const double numeric =
            (eigenObjective(cov + e, probe) - eigenObjective(cov - e, probe)).item<double>() / (2 * h);
        const double expected = (i == j ? 1.0 : 2.0) * analytic[b][i][j].item<double>();
        EXPECT_NEAR(numeric, expected, 1e-5 * std::max(1.0, std::fabs(numeric))) << b << " " << i << j;
      }
}

TEST(SymmetricEigen3, RepeatedEigenvaluesGiveFiniteGradients) {
  const auto opts = torch::TensorOptions(torch::kFloat64);
  torch::Tensor cov =
      torch::diag_embed(torch::tensor({{1.0, 1.0, 2.0}, {0.0, 0.0, 0.0}, {3.0, 3.0, 3.0}}, opts)).requires_grad_(true);
  eigenObjective(cov, torch::ones({3, 3}, opts)).backward();
  EXPECT_TRUE(torch::isfinite(cov.grad()).all().item<bool>());
}

TEST(Loss, IsUnorientedEuclidean) {
  const torch::Tensor n = torch::tensor({{0.f, 0.f, 1.f}, {1.f, 0.f, 0.f}});
  const torch::Tensor t = torch::tensor({{0.f, 0.f, -1.f}, {0.f, 1.f, 0.f}});
  // Flipped normal: 0; perpendicular: sqrt(2). Mean: sqrt(2)/2.
  EXPECT_NEAR(unorientedNormalLoss(n, t).item<float>(), std::sqrt(2.f) / 2, 1e-6);
}

// Where every point has K entries the graph runs as an M x K block; the general scatter path
// must give the same forward pass and the same gradients.
TEST(DiseNet, BlockAndScatterPathsAgree) {
  torch::manual_seed(2);
  const auto cloud = test::boxCloud(300, 1.f, 4);
  std::vector<float> points;
  for (const auto& p : *cloud) points.insert(points.end(), {p.x, p.y, p.z});
  const TorchGraph block =
      TorchGraph::build(points.data(), cloud->size(), nearestNeighborGraph(points.data(), cloud->size(), 17), 3.f);
  ASSERT_EQ(block.degree, 17);
  TorchGraph scatter = block;
  scatter.degree = 0;
  DiseNet net;
  const torch::Tensor target = torch::nn::functional::normalize(torch::randn({block.numPoints(), 3}),
                                                                torch::nn::functional::NormalizeFuncOptions().dim(1));
  auto run = [&](const TorchGraph& graph) {
    TorchState s;
    {
      torch::NoGradGuard no_grad;
      s = initialState(graph);
      s = net->iterate(graph, s);
    }
    net->zero_grad();
    const TorchState next = net->iterate(graph, s);
    unorientedNormalLoss(next.normals, target).backward();
    std::vector<torch::Tensor> grads;
    for (const auto& p : net->parameters()) grads.push_back(p.grad().clone());
    return std::make_pair(next, grads);
  };
  const auto [a, grads_a] = run(block);
  const auto [b, grads_b] = run(scatter);
  EXPECT_TRUE(torch::allclose(a.normals, b.normals, 1e-4, 1e-5));
  EXPECT_TRUE(torch::allclose(a.weights, b.weights, 1e-4, 1e-6));
  EXPECT_TRUE(torch::allclose(a.curvature, b.curvature, 1e-4, 1e-6));
  for (std::size_t i = 0; i < grads_a.size(); ++i)
    EXPECT_TRUE(torch::allclose(grads_a[i], grads_b[i], 1e-3, 1e-6)) << "parameter " << i;
}

TEST(DiseNet, UnevenNeighborhoodsUseTheScatterPath) {
  const std::vector<float> points{0, 0, 0, 1, 0, 0, 0, 1, 0};
  Neighborhoods uneven;  // 3, 2 and 0 entries
  uneven.offsets = {0, 3, 5, 5};
  uneven.indices = {0, 1, 2, 1, 0};
  EXPECT_EQ(TorchGraph::build(points.data(), 3, uneven, 1.f).degree, 0);
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
  const TorchGraph graph =
      TorchGraph::build(points.data(), cloud->size(), nearestNeighborGraph(points.data(), cloud->size(), 17),
                        edgeScale(points.data(), cloud->size()));
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
