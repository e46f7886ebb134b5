// The PCL-free forward pass: backends against each other, points without a normal, edge scale, bad input.
#include <cmath>
#include <limits>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "pcl_dise/core/forward.h"
#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/core/neighbor_search.h"
#include "test_support.h"

namespace {

using namespace pcl_dise;

// Brute-force k nearest neighbours (the point itself first): the reference neighbourhoods.
Neighborhoods bruteForceKnn(const std::vector<float>& points, int k_plus_self) {
  const std::size_t m = points.size() / 3;
  Neighborhoods nb;
  for (std::size_t i = 0; i < m; ++i) {
    std::vector<std::pair<float, std::int32_t>> d;
    for (std::size_t j = 0; j < m; ++j) {
      float s = 0;
      for (int c = 0; c < 3; ++c)
        s += (points[3 * i + c] - points[3 * j + c]) * (points[3 * i + c] - points[3 * j + c]);
      d.emplace_back(j == i ? -1.f : s, static_cast<std::int32_t>(j));
    }
    std::sort(d.begin(), d.end());
    std::vector<std::int32_t> row;
    for (int e = 0; e < std::min<int>(k_plus_self, static_cast<int>(m)); ++e) row.push_back(d[e].second);
    nb.append(row.data(), row.size());
  }
  return nb;
}

std::vector<float> flatten(const pcl::PointCloud<pcl::PointXYZ>& cloud) {
  std::vector<float> p;
  for (const auto& q : cloud) p.insert(p.end(), {q.x, q.y, q.z});
  return p;
}

TEST(EdgeScale, HandComputed) {
  // Two points one unit apart, each with itself and the other: mean |d|^2/3 over 4 entries = 2/12.
  const std::vector<float> points = {0, 0, 0, 1, 0, 0};
  const std::int32_t table[] = {0, 1, 1, 0};
  const Neighborhoods nb = Neighborhoods::fromDense(table, 2, 2);
  EXPECT_NEAR(edgeScale(points.data(), nb), 0.2 / std::sqrt(2.0 / 12.0), 1e-6);
  const std::vector<float> same = {1, 1, 1, 1, 1, 1};
  EXPECT_EQ(edgeScale(same.data(), nb), 1.f);  // no spread: a neutral scale instead of infinity
}

// Terms summed elsewhere (the CUDA backend sums its device's terms so) give the same bits.
TEST(EdgeScale, FromTermsIsTheSameValue) {
  const auto cloud = test::boxCloud(6000);
  const std::vector<float> points = flatten(*cloud);
  const Neighborhoods knn = nearestNeighborGraph(points.data(), cloud->size(), kEdgeScaleNeighbors);
  std::vector<double> terms(cloud->size());
  for (std::size_t i = 0; i < terms.size(); ++i) terms[i] = edgeScaleTerm(points.data(), knn, i);
  EXPECT_EQ(edgeScaleFromTerms(terms.data(), terms.size(), knn.numEdges()), edgeScale(points.data(), knn));
}

// Summed as the search finds the 17 nearest (no rows kept), from a grid of the search's own k and
// with the grid's points in another order: the bits of the sum over the rows of a brute force.
void expectTheSameEdgeScaleWhileSearching(const std::vector<float>& points) {
  const std::size_t m = points.size() / 3;
  const float expected = edgeScale(points.data(), bruteForceKnn(points, kEdgeScaleNeighbors));
  EXPECT_EQ(edgeScale(points.data(), m, 2), expected);
  NeighborSearch search;
  search.k = 65;
  EXPECT_EQ(NeighborSearchIndex(points.data(), m, search).edgeScale(2), expected);
  std::vector<std::int32_t> reversed(m);
  for (std::size_t i = 0; i < m; ++i) reversed[i] = static_cast<std::int32_t>(m - 1 - i);
  search.tie_order = reversed.data();
  const NeighborSearchIndex in_reverse(points.data(), m, search);
  const Neighborhoods rows = in_reverse.rowsOf(nullptr, 0, 1, kEdgeScaleNeighbors);
  EXPECT_EQ(in_reverse.edgeScale(1), edgeScale(points.data(), m, &rows, 1));
}

TEST(EdgeScale, SummedWhileSearchingIsTheSameValue) {
  std::vector<float> lattice;  // distances tie everywhere: ties by index (or by tie order) decide
  for (int i = 0; i < 3600; ++i) lattice.insert(lattice.end(), {0.5f * float(i % 60), 0.5f * float(i / 60), 0.f});
  for (const std::vector<float>& points : {flatten(*test::boxCloud(6000)), lattice})
    expectTheSameEdgeScaleWhileSearching(points);
}

TEST(EdgeScale, SummedWhileSearchingWhereTheGridCollapsesCoincidentPoints) {
  std::vector<float> points = flatten(*test::boxCloud(3000));
  points.insert(points.end(), points.begin(), points.begin() + 3 * 200);  // 200 points twice
  expectTheSameEdgeScaleWhileSearching(points);
}

TEST(EdgeScale, SummedWhileSearchingRefusesARadiusIndex) {
  const std::vector<float> points = flatten(*test::boxCloud(600));
  NeighborSearch search;
  search.radius = 0.1f;
  EXPECT_THROW(NeighborSearchIndex(points.data(), points.size() / 3, search).edgeScale(), std::invalid_argument);
}

// The local rule by brute force: each point's 17 nearest (brute-force rows) and their terms.
std::vector<float> bruteForceLocalScales(const std::vector<float>& points) {
  const Neighborhoods nb = bruteForceKnn(points, kEdgeScaleNeighbors);
  const std::size_t m = points.size() / 3;
  std::vector<double> terms(m, 0.0);
  for (std::size_t j = 0; j < m; ++j)
    for (std::int64_t e = 0; e < nb.size(j); ++e)
      for (int c = 0; c < 3; ++c) {
        const double d = double(points[3 * nb.begin(j)[e] + c]) - double(points[3 * j + c]);
        terms[j] += d * d;
      }
  std::vector<float> scales(m);
  for (std::size_t i = 0; i < m; ++i) {
    double sum = 0, entries = 0;
    for (std::int64_t e = 0; e < nb.size(i); ++e) {
      sum += terms[nb.begin(i)[e]];
      entries += double(nb.size(nb.begin(i)[e]));
    }
    scales[i] = static_cast<float>(0.2 / std::sqrt(sum / (3 * entries)));
  }
  return scales;
}

// Points on the plane z = 0: a grid of spacing 1 for x < 0 and of spacing `far` for x >= 0.
std::vector<float> twoSpacings(float far) {
  std::vector<float> points;
  for (int i = -30; i < 0; ++i)
    for (int j = 0; j < 30; ++j) points.insert(points.end(), {float(i), float(j), 0.f});
  for (int i = 0; i < 30; ++i)
    for (int j = 0; j < 30; ++j) points.insert(points.end(), {far * float(i), far * float(j), 0.f});
  return points;
}

TEST(LocalEdgeScale, MatchesABruteForceReference) {
  const std::vector<float> points = flatten(*test::boxCloud(900));
  const std::size_t m = points.size() / 3;
  const std::vector<float> expected = bruteForceLocalScales(points);
  for (const std::vector<float>& got : {localEdgeScales(points.data(), m, std::numeric_limits<float>::quiet_NaN(), 2),
                                        localEdgeScales(points.data(), bruteForceKnn(points, 33)),
                                        searchLocalEdgeScales(points.data(), m, NeighborSearch{}, 1)}) {
    ASSERT_EQ(got.size(), m);
    for (std::size_t i = 0; i < m; ++i) ASSERT_NEAR(got[i], expected[i], 1e-5 * expected[i]) << i;
  }
}

TEST(LocalEdgeScale, FollowsTheSpacingAndNotTheUnits) {
  const std::vector<float> points = twoSpacings(3.f);
  const std::size_t m = points.size() / 3;
  const std::vector<float> local = localEdgeScales(points.data(), m);
  const std::size_t near_point = 15 * 30 + 15, far_point = 900 + 15 * 30 + 15;  // (-15, 15), (45, 45)
  // Inside each half a point's scale is that half's spacing's, 3 times apart; the global scale
  // lies between.
  EXPECT_NEAR(local[near_point] / local[far_point], 3.0, 1e-4);
  const float global = edgeScale(points.data(), m);
  EXPECT_LT(local[far_point], global);
  EXPECT_GT(local[near_point], global);
  // On an even grid, inside it, the local scale is the global one up to the border's share.
  const std::vector<float> even = twoSpacings(1.f);
  EXPECT_NEAR(localEdgeScales(even.data(), m)[near_point] / edgeScale(even.data(), m), 1.0, 0.05);
  // Metres or millimetres: the scales follow the units, the edges c_ij = s d_ij do not.
  std::vector<float> millimetres = points;
  for (float& v : millimetres) v *= 1000.f;
  const std::vector<float> in_mm = localEdgeScales(millimetres.data(), m);
  for (std::size_t i = 0; i < m; ++i) ASSERT_NEAR(in_mm[i] * 1000.f, local[i], 1e-5 * local[i]) << i;
  // Coincident points: the fallback.
  const std::vector<float> same(3 * 40, 2.f);
  for (float s : localEdgeScales(same.data(), 40)) EXPECT_EQ(s, 1.f);
  for (float s : localEdgeScales(same.data(), 40, 7.f)) EXPECT_EQ(s, 7.f);
}

TEST(LocalEdgeScale, ModelsOfTheLocalRuleReadEachPointsScale) {
  // A box whose spacing grows threefold from one side to the other, as a range scan's does.
  std::vector<float> points = flatten(*test::boxCloud(1500));
  const std::size_t m = points.size() / 3;
  for (std::size_t i = 0; i < m; ++i) {
    const float stretch = 2.f + points[3 * i];
    for (int c = 0; c < 3; ++c) points[3 * i + c] *= stretch;
  }
  const Neighborhoods nb = bruteForceKnn(points, 33);
  Model local_model = randomModel(3);
  setEdgeScaleRule(local_model, EdgeScaleRule::Local);
  const Model global_model = randomModel(3);
  ForwardOptions opt;
  opt.iterations = 3;
  ForwardInput in{points.data(), m, &nb};
  // Measured by the pass, or given: the same bytes.
  const ForwardResult measured = runForward(local_model, in, opt);
  const std::vector<float> scales = localEdgeScales(points.data(), nb);
  in.edge_scales = scales.data();
  EXPECT_EQ(runForward(local_model, in, opt).normals, measured.normals);
  // A search of its own finds the same 17 nearest.
  NeighborSearch search;
  search.k = 33;
  ForwardInput searched{points.data(), m, nullptr};
  searched.search = &search;
  EXPECT_EQ(runForward(local_model, searched, opt).normals, measured.normals);
  // One scale for every point is the global rule with that scale.
  const std::vector<float> uniform(m, 0.37f);
  in.edge_scales = uniform.data();
  ForwardInput global_in{points.data(), m, &nb, 0.37f};
  EXPECT_EQ(runForward(local_model, in, opt).normals, runForward(global_model, global_in, opt).normals);
  // The global rule reads no per-point scales, and the two rules differ on this cloud.
  EXPECT_EQ(runForward(global_model, in, opt).normals,
            runForward(global_model, ForwardInput{points.data(), m, &nb}, opt).normals);
  EXPECT_NE(measured.normals, runForward(global_model, ForwardInput{points.data(), m, &nb}, opt).normals);
  // LibTorch reads them too.
  if (backendAvailable(Backend::Torch)) {
    in.edge_scales = nullptr;
    const ForwardResult torch = runForward(local_model, in, opt, Backend::Torch);
    std::vector<double> errors;
    for (std::size_t i = 0; i < m; ++i)
      errors.push_back(test::unorientedAngleDeg(&measured.normals[3 * i], &torch.normals[3 * i]));
    EXPECT_LT(test::percentile(errors, 99), 0.1);
  }
  // A scale that is not finite and positive is an error.
  std::vector<float> bad = scales;
  bad[7] = std::numeric_limits<float>::quiet_NaN();
  in.edge_scales = bad.data();
  EXPECT_THROW(runForward(local_model, in, opt), std::invalid_argument);
  bad[7] = 0.f;
  EXPECT_THROW(runForward(local_model, in, opt), std::invalid_argument);
}

TEST(Forward, BackendsAgreeWithRandomWeights) {
  if (!backendAvailable(Backend::Torch)) GTEST_SKIP() << "torch backend not built";
  const auto cloud = test::boxCloud(1500);
  const std::vector<float> points = flatten(*cloud);
  const Neighborhoods nb = bruteForceKnn(points, 33);
  ForwardInput in{points.data(), cloud->size(), &nb, edgeScale(points.data(), bruteForceKnn(points, 17))};
  ForwardOptions opt;
  opt.iterations = 4;
  opt.keep_iterations = true;
  for (unsigned seed : {1u, 2u}) {
    const Model model = randomModel(seed);
    const ForwardResult native = runForward(model, in, opt, Backend::Native);
    const ForwardResult torch = runForward(model, in, opt, Backend::Torch);
    ASSERT_EQ(native.iteration_normals.size(), 5u);
    std::vector<double> errors;
    for (std::size_t i = 0; i < cloud->size(); ++i)
      errors.push_back(test::unorientedAngleDeg(&native.normals[3 * i], &torch.normals[3 * i]));
    EXPECT_LT(test::percentile(errors, 99), 0.1);
    for (std::size_t e = 0; e < native.kernel_weights.size(); ++e)
      ASSERT_NEAR(native.kernel_weights[e], torch.kernel_weights[e], 1e-4);
    for (std::size_t i = 0; i < cloud->size(); ++i) ASSERT_NEAR(native.curvature[i], torch.curvature[i], 1e-4);
  }
}

TEST(Forward, ZeroThreadsMeansAllHardwareThreadsOnceLibTorchHasStarted) {
  if (!backendAvailable(Backend::Torch)) GTEST_SKIP() << "torch backend not built";
  // LibTorch, once started, may lower OpenMP's thread count to its own count of cores.
  const auto cloud = test::boxCloud(200);
  const std::vector<float> points = flatten(*cloud);
  const Neighborhoods nb = bruteForceKnn(points, 17);
  ForwardInput in{points.data(), cloud->size(), &nb, edgeScale(points.data(), nb)};
  ForwardOptions opt;
  opt.iterations = 1;
  opt.threads = 0;
  runForward(randomModel(3), in, opt, Backend::Torch);
  EXPECT_EQ(detail::resolveThreads(0), static_cast<int>(std::thread::hardware_concurrency()));
}

TEST(Forward, TorchChunksDoNotChangeTheResult) {
  if (!backendAvailable(Backend::Torch)) GTEST_SKIP() << "torch backend not built";
  const auto cloud = test::boxCloud(900);
  const std::vector<float> points = flatten(*cloud);
  const Neighborhoods nb = bruteForceKnn(points, 17);
  ForwardInput in{points.data(), cloud->size(), &nb, edgeScale(points.data(), nb)};
  const Model model = randomModel(5);
  ForwardOptions whole;
  whole.iterations = 2;
  whole.torch_chunk_points = 1 << 20;
  const ForwardResult reference = runForward(model, in, whole, Backend::Torch);
  for (int chunk : {1, 97}) {
    ForwardOptions chunked = whole;
    chunked.torch_chunk_points = chunk;
    const ForwardResult result = runForward(model, in, chunked, Backend::Torch);
    ASSERT_EQ(result.normals.size(), reference.normals.size());
    for (std::size_t i = 0; i < result.normals.size(); ++i)
      ASSERT_NEAR(result.normals[i], reference.normals[i], 1e-5) << "chunk " << chunk;
    for (std::size_t e = 0; e < result.kernel_weights.size(); ++e)
      ASSERT_NEAR(result.kernel_weights[e], reference.kernel_weights[e], 1e-6) << "chunk " << chunk;
  }
  ForwardOptions bad = whole;
  bad.torch_chunk_points = 0;
  EXPECT_THROW(runForward(model, in, bad, Backend::Torch), std::invalid_argument);
}

TEST(Forward, AdaptiveModeFreezesSettledPoints) {
  const auto cloud = test::boxCloud(1200);
  const std::vector<float> points = flatten(*cloud);
  const Neighborhoods nb = bruteForceKnn(points, 17);
  ForwardInput in{points.data(), cloud->size(), &nb, edgeScale(points.data(), nb)};
  const Model model = randomModel(4);
  ForwardOptions exact;
  exact.iterations = 3;
  exact.keep_iterations = true;
  const ForwardResult reference = runForward(model, in, exact);
  // 90 degrees: every point settles in iteration 1 and keeps that state.
  ForwardOptions all_settle = exact;
  all_settle.settle_degrees = 90;
  const ForwardResult frozen = runForward(model, in, all_settle);
  EXPECT_EQ(frozen.normals, reference.iteration_normals[1]);
  // A tiny angle settles (almost) nothing: the exact result.
  ForwardOptions tiny = exact;
  tiny.settle_degrees = 1e-6;
  const ForwardResult nearly = runForward(model, in, tiny);
  std::vector<double> errors;
  for (std::size_t i = 0; i < cloud->size(); ++i)
    errors.push_back(test::unorientedAngleDeg(&nearly.normals[3 * i], &reference.normals[3 * i]));
  EXPECT_LT(test::percentile(errors, 99), 1e-3);
  // In between, some points settle and the result stays close to the exact one.
  ForwardOptions some = exact;
  some.settle_degrees = 2;
  const ForwardResult adaptive = runForward(model, in, some);
  errors.clear();
  for (std::size_t i = 0; i < cloud->size(); ++i)
    errors.push_back(test::unorientedAngleDeg(&adaptive.normals[3 * i], &reference.normals[3 * i]));
  EXPECT_NE(adaptive.normals, reference.normals);
  EXPECT_LT(test::percentile(errors, 50), 1.0);
  // Native and CUDA only, and never negative.
  EXPECT_THROW(runForward(model, in, some, Backend::Torch), std::invalid_argument);
  some.settle_degrees = -1;
  EXPECT_THROW(runForward(model, in, some), std::invalid_argument);
}

TEST(Forward, Bfloat16StaysCloseToFloat) {
  // The shipped model in bf16 against float on a box (where the processor has bf16; in
  // float elsewhere, which gives float's bits): close, and not the same bits.
  const auto cloud = test::boxCloud(3000);
  const std::vector<float> points = flatten(*cloud);
  const Neighborhoods nb = bruteForceKnn(points, 33);
  ForwardInput in{points.data(), cloud->size(), &nb, edgeScale(points.data(), nb)};
  const Model model = loadModel(defaultModelPath(32));
  ForwardOptions options;
  const ForwardResult float_result = runForward(model, in, options);
  options.precision = Precision::Bf16;
  const ForwardResult bf16_result = runForward(model, in, options);
  if (!bfloat16Available()) {
    EXPECT_EQ(bf16_result.normals, float_result.normals);
    GTEST_SKIP() << "this processor lacks AVX512_BF16: bf16 ran in float";
  }
  std::vector<double> errors;
  for (std::size_t i = 0; i < cloud->size(); ++i)
    errors.push_back(test::unorientedAngleDeg(&bf16_result.normals[3 * i], &float_result.normals[3 * i]));
  EXPECT_NE(bf16_result.normals, float_result.normals);
  EXPECT_LT(test::percentile(errors, 50), 0.1);
  EXPECT_LT(test::percentile(errors, 99), 2.0);
  // The native backend only.
  EXPECT_THROW(runForward(model, in, options, Backend::Torch), std::invalid_argument);
}

TEST(Forward, KernelWeightsAreASoftmaxPerNeighbourhood) {
  const auto cloud = test::sphereCloud(400);
  const std::vector<float> points = flatten(*cloud);
  const Neighborhoods nb = bruteForceKnn(points, 17);
  ForwardInput in{points.data(), cloud->size(), &nb, edgeScale(points.data(), nb)};
  ForwardOptions opt;
  opt.iterations = 2;
  const ForwardResult r = runForward(randomModel(3), in, opt);
  for (std::size_t i = 0; i < cloud->size(); ++i) {
    double sum = 0;
    for (auto e = r.kernel_neighborhoods.offsets[i]; e < r.kernel_neighborhoods.offsets[i + 1]; ++e) {
      EXPECT_GT(r.kernel_weights[e], 0.f);
      sum += r.kernel_weights[e];
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
    // A sphere's normal is radial.
    EXPECT_LT(test::unorientedAngleDeg(&r.normals[3 * i], &points[3 * i]), 10.0);
  }
}

TEST(Forward, KernelWeightsCanBeLeftOut) {
  const auto cloud = test::sphereCloud(400);
  const std::vector<float> points = flatten(*cloud);
  NeighborSearch search;
  search.k = 17;
  ForwardInput in;
  in.points = points.data();
  in.num_points = cloud->size();
  in.search = &search;
  ForwardOptions opt;
  opt.iterations = 2;
  const ForwardResult kept = runForward(randomModel(3), in, opt);
  opt.keep_kernel_weights = false;
  const ForwardResult left = runForward(randomModel(3), in, opt);
  EXPECT_EQ(left.normals, kept.normals);
  EXPECT_EQ(kept.kernel_neighborhoods.numNodes(), cloud->size());
  EXPECT_EQ(left.kernel_neighborhoods.numNodes(), 0u);
  EXPECT_TRUE(left.kernel_weights.empty());
}

TEST(Forward, PointsWithoutANormalStayInOtherNeighbourhoodsReadAsNoNormal) {
  // Nodes 0-4 form a planar patch whose rows hold node 5; node 5 sees only itself and node 0
  // (too few points): it gets no normal, and stays in the others' rows, read as a zero normal.
  const std::vector<float> points = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5f, 0.5f, 0.1f, 5, 5, 5};
  Neighborhoods nb;
  for (int i = 0; i < 5; ++i) {
    std::vector<std::int32_t> row = {i};
    for (int j = 0; j < 6; ++j)
      if (j != i) row.push_back(j);
    nb.append(row.data(), row.size());
  }
  const std::int32_t lonely[] = {5, 0};
  nb.append(lonely, 2);
  ForwardInput in{points.data(), 6, &nb, 1.f};
  ForwardOptions opt;
  opt.iterations = 2;
  opt.keep_iterations = true;
  const ForwardResult r = runForward(randomModel(1), in, opt);
  EXPECT_TRUE(std::isnan(r.normals[15]) && std::isnan(r.curvature[5]));
  for (const std::vector<float>& iteration : r.iteration_normals) EXPECT_TRUE(std::isnan(iteration[15]));
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(std::isfinite(r.normals[3 * i]));
    EXPECT_EQ(r.kernel_neighborhoods.size(i), 6);  // the whole row, node 5 included
  }
  EXPECT_EQ(r.kernel_neighborhoods.size(5), 0);
  // The LibTorch backend reads it the same way.
  if (backendAvailable(Backend::Torch)) {
    const ForwardResult torch = runForward(randomModel(1), in, opt, Backend::Torch);
    for (int i = 0; i < 15; ++i) EXPECT_NEAR(torch.normals[i], r.normals[i], 1e-4f) << i;
    EXPECT_TRUE(std::isnan(torch.normals[15]));
  }
}

TEST(Forward, CoincidentNeighbourhoodHasNoNormal) {
  const std::vector<float> points = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  const std::int32_t table[] = {0, 1, 2, 1, 0, 2, 2, 0, 1};
  const Neighborhoods nb = Neighborhoods::fromDense(table, 3, 3);
  ForwardInput in{points.data(), 3, &nb, 1.f};
  ForwardOptions opt;
  opt.iterations = 0;
  const ForwardResult r = runForward(Model{}, in, opt);
  for (float v : r.normals) EXPECT_TRUE(std::isnan(v));
}

TEST(Forward, CollinearNeighbourhoodGetsAPerpendicularNormal) {
  const std::vector<float> points = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
  const std::int32_t table[] = {0, 1, 2, 3, 1, 0, 2, 3, 2, 0, 1, 3, 3, 0, 1, 2};
  const Neighborhoods nb = Neighborhoods::fromDense(table, 4, 4);
  ForwardInput in{points.data(), 4, &nb, 1.f};
  ForwardOptions opt;
  opt.iterations = 2;
  const ForwardResult r = runForward(randomModel(2), in, opt);
  for (int i = 0; i < 4; ++i) {
    const float* n = &r.normals[3 * i];
    EXPECT_NEAR(n[0] + n[1] + n[2], 0.f, 1e-5f);
    EXPECT_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.f, 1e-5f);
  }
}

TEST(Forward, MeasuresTheEdgeScaleWhereNotGiven) {
  const auto cloud = test::boxCloud(600);
  const std::vector<float> points = flatten(*cloud);
  const Neighborhoods nb = bruteForceKnn(points, 20);
  ForwardOptions opt;
  opt.iterations = 2;
  ForwardInput given{points.data(), cloud->size(), &nb, edgeScale(points.data(), bruteForceKnn(points, 17))};
  ForwardInput measured = given;
  measured.edge_scale = NAN;
  EXPECT_EQ(runForward(randomModel(3), given, opt).normals, runForward(randomModel(3), measured, opt).normals);
  given.edge_scale *= 2;  // the scale matters: a caller's value is used as given
  EXPECT_NE(runForward(randomModel(3), given, opt).normals, runForward(randomModel(3), measured, opt).normals);
}

// A search handed to the forward pass finds what the caller would have: k nearest, radius with
// a cap, a searched subset in a tie order of its own with query points beyond it.
TEST(Forward, RunsASearchItself) {
  const auto cloud = test::boxCloud(900);
  std::vector<float> points = flatten(*cloud);
  const std::size_t searched = cloud->size();
  const std::vector<float> extra = {0.1f, 0.2f, 0.3f, 0.5f, 0.5f, 0.5f, -0.2f, 0.4f, 0.9f};
  points.insert(points.end(), extra.begin(), extra.end());
  const std::size_t m = points.size() / 3;
  std::vector<std::int32_t> reversed(searched);
  for (std::size_t s = 0; s < searched; ++s) reversed[s] = static_cast<std::int32_t>(searched - 1 - s);
  const Model model = randomModel(5);
  ForwardOptions opt;
  opt.iterations = 2;

  NeighborSearch nearest;
  nearest.k = 20;
  NeighborSearch capped;
  capped.radius = 0.3f;
  capped.max_neighbors = 24;
  NeighborSearch subset = nearest;
  subset.num_searched = searched;
  subset.tie_order = reversed.data();
  NeighborSearch capped_subset = capped;
  capped_subset.num_searched = searched;
  capped_subset.tie_order = reversed.data();
  for (const NeighborSearch* search : {&nearest, &capped, &subset, &capped_subset}) {
    SCOPED_TRACE((search->tie_order ? "subset, " : "") + std::string(search->k > 0 ? "nearest" : "radius"));
    // The same neighbourhoods by hand: GridSearch over the searched points in tie order.
    const std::size_t count = searchedCount(*search, m);
    std::vector<float> in_tie_order(3 * count);
    for (std::size_t s = 0; s < count; ++s) {
      const std::size_t point = search->tie_order ? std::size_t(search->tie_order[s]) : s;
      std::copy_n(points.begin() + 3 * point, 3, in_tie_order.begin() + 3 * s);
    }
    const GridSearch grid = search->k > 0 ? GridSearch::forNearest(in_tie_order.data(), count, search->k)
                                          : GridSearch::forRadius(in_tie_order.data(), count, search->radius);
    Neighborhoods expected = search->k > 0 ? grid.nearest(points.data(), m, search->k)
                                           : grid.withinRadius(points.data(), m, search->radius, search->max_neighbors);
    if (search->tie_order)
      for (std::int32_t& id : expected.indices) id = search->tie_order[id];
    const Neighborhoods found = searchNeighborhoods(points.data(), m, *search);
    EXPECT_EQ(found.offsets, expected.offsets);
    EXPECT_EQ(found.indices, expected.indices);

    // The edge scale from each searched point's 17 nearest, ties broken as the search breaks them
    // (a term sums its row in order: ties ordered otherwise may round otherwise).
    Neighborhoods nearest17 = GridSearch::forNearest(in_tie_order.data(), count, kEdgeScaleNeighbors)
                                  .nearest(points.data(), count, kEdgeScaleNeighbors);
    if (search->tie_order)
      for (std::int32_t& id : nearest17.indices) id = search->tie_order[id];
    ForwardInput by_hand{points.data(), m, &expected, edgeScale(points.data(), count, &nearest17, 0)};
    ForwardInput by_search;
    by_search.points = points.data();
    by_search.num_points = m;
    by_search.search = search;
    const ForwardResult a = runForward(model, by_hand, opt), b = runForward(model, by_search, opt);
    ASSERT_EQ(a.normals.size(), b.normals.size());
    for (std::size_t i = 0; i < a.normals.size(); ++i)  // equal, or NaN in both (too few neighbours)
      ASSERT_TRUE(a.normals[i] == b.normals[i] || (std::isnan(a.normals[i]) && std::isnan(b.normals[i]))) << i;
    EXPECT_EQ(a.kernel_neighborhoods.indices, b.kernel_neighborhoods.indices);
  }
  // Only some points asked: the others' neighbourhoods are empty.
  std::vector<std::uint8_t> queried(m, 0);
  queried[3] = queried[m - 1] = 1;
  NeighborSearch some = nearest;
  some.queried = queried.data();
  const Neighborhoods found = searchNeighborhoods(points.data(), m, some);
  for (std::size_t i = 0; i < m; ++i) EXPECT_EQ(found.size(i), queried[i] ? 20 : 0) << i;
  NeighborSearch nothing;
  EXPECT_THROW(searchNeighborhoods(points.data(), m, nothing), std::invalid_argument);
  NeighborSearch too_many = nearest;
  too_many.num_searched = m + 1;
  ForwardInput bad;
  bad.points = points.data();
  bad.num_points = m;
  bad.search = &too_many;
  EXPECT_THROW(runForward(model, bad, opt), std::invalid_argument);
}

TEST(Forward, RejectsMalformedInput) {
  const std::vector<float> points = {0, 0, 0, 1, 0, 0};
  const std::int32_t table[] = {0, 7};
  const Neighborhoods bad_index = Neighborhoods::fromDense(table, 2, 1);
  EXPECT_THROW(runForward(Model{}, ForwardInput{points.data(), 2, &bad_index, 1.f}, ForwardOptions{}),
               std::invalid_argument);
  const Neighborhoods too_few = Neighborhoods::fromDense(table, 1, 1);
  EXPECT_THROW(runForward(Model{}, ForwardInput{points.data(), 2, &too_few, 1.f}, ForwardOptions{}),
               std::invalid_argument);
  const std::int32_t ok[] = {0, 1};
  const Neighborhoods good = Neighborhoods::fromDense(ok, 2, 1);
  EXPECT_THROW(runForward(Model{}, ForwardInput{points.data(), 2, &good, INFINITY}, ForwardOptions{}),
               std::invalid_argument);
  EXPECT_THROW(runForward(Model{}, ForwardInput{points.data(), 2, &good, -1.f}, ForwardOptions{}),
               std::invalid_argument);
  ForwardOptions negative;
  negative.iterations = -1;
  EXPECT_THROW(runForward(Model{}, ForwardInput{points.data(), 2, &good, 1.f}, negative), std::invalid_argument);
  EXPECT_THROW(backendFromString("opencl"), std::invalid_argument);
  const std::int32_t twice[] = {1, 1};
  ForwardInput repeated{points.data(), 2, &good, 1.f};
  repeated.visit_order = twice;
  EXPECT_THROW(runForward(Model{}, repeated, ForwardOptions{}), std::invalid_argument);
  // A search is checked the same, whichever backend would run it (the CUDA one on its device).
  NeighborSearch none;  // neither k nor a radius
  ForwardInput searching{points.data(), 2, nullptr, 1.f};
  searching.search = &none;
  EXPECT_THROW(runForward(Model{}, searching, ForwardOptions{}), std::invalid_argument);
  NeighborSearch nan_radius;
  nan_radius.radius = NAN;
  searching.search = &nan_radius;
  EXPECT_THROW(runForward(Model{}, searching, ForwardOptions{}), std::invalid_argument);
  NeighborSearch two;
  two.k = 2;
  searching.search = &two;
  searching.edge_scale = -1.f;
  EXPECT_THROW(runForward(Model{}, searching, ForwardOptions{}), std::invalid_argument);
}

TEST(Forward, TheCallersVisitOrderGivesTheSameNormals) {
  // The feature passes the Morton order its searches used; any order gives the same result, and
  // every output comes back in point order (the native backend iterates in visit order).
  std::vector<float> points;
  for (int i = 0; i < 300; ++i) points.insert(points.end(), {0.07f * (i % 20), 0.05f * (i / 20), 0.01f * (i % 7)});
  const Neighborhoods nb = bruteForceKnn(points, 17);
  const Model model = randomModel(3);
  ForwardOptions options;
  options.keep_iterations = true;
  const ForwardResult own = runForward(model, ForwardInput{points.data(), 300, &nb, 1.f}, options);
  std::vector<std::int32_t> reversed(300);
  for (int i = 0; i < 300; ++i) reversed[i] = 299 - i;
  ForwardInput given{points.data(), 300, &nb, 1.f};
  given.visit_order = reversed.data();
  const ForwardResult other = runForward(model, given, options);
  EXPECT_EQ(other.normals, own.normals);
  EXPECT_EQ(other.curvature, own.curvature);
  EXPECT_EQ(other.iteration_normals, own.iteration_normals);
  EXPECT_EQ(other.kernel_weights, own.kernel_weights);
  EXPECT_EQ(other.kernel_neighborhoods.indices, nb.indices);
  EXPECT_EQ(other.kernel_neighborhoods.offsets, nb.offsets);
  // The normals of the last iteration are the result's.
  ASSERT_EQ(own.iteration_normals.size(), 5u);
  EXPECT_EQ(own.iteration_normals.back(), own.normals);
}

TEST(Forward, EmptyInputGivesEmptyOutput) {
  const Neighborhoods none;
  const ForwardResult r = runForward(randomModel(1), ForwardInput{nullptr, 0, &none, 1.f}, ForwardOptions{});
  EXPECT_TRUE(r.normals.empty());
}

}  // namespace
