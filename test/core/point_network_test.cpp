// The native backend's per-point network against a double-precision reference that follows
// docs/algorithm.md literally (concatenated inputs, no split layers): every implementation this
// processor runs (portable, AVX2, AVX-512, and AVX-512 BF16 against the same reference rounded
// where bfloat16 rounds), groups of neighbourhoods of different sizes,
// coincident neighbours, large logits; then its weighted plane fit; nothing written past the
// scratch or the weights; a point's result independent of its group.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>

#include <gtest/gtest.h>

#include "pcl_dise/core/edge_features.h"
#include "pcl_dise/core/forward.h"
#include "pcl_dise/core/plane_fit.h"
#include "point_network.h"

namespace {

using namespace pcl_dise;
using namespace pcl_dise::detail;
using Values = std::vector<double>;

// x rounded to bfloat16 (to nearest, ties away from zero), by the bits of the float nearest it.
double toBfloat16(double x) {
  const float f = static_cast<float>(x);
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits = (bits + 0x8000u) & 0xffff0000u;
  float rounded;
  std::memcpy(&rounded, &bits, sizeof rounded);
  return rounded;
}

// Which arithmetic the reference follows: float's (every product exact in double), or the
// bfloat16 path's (edgeMlp below rounds what that path rounds).
struct Arithmetic {
  bool bf16 = false;
};

// l(x), with relu; the inputs and weights of the columns where `rounded` is true rounded to bfloat16.
Values apply(const Linear& l, const Values& x, bool relu, const std::vector<bool>& rounded = {}) {
  Values y(l.bias.begin(), l.bias.end());
  for (int o = 0; o < l.out_features; ++o) {
    for (int c = 0; c < l.in_features; ++c) {
      const bool r = c < static_cast<int>(rounded.size()) && rounded[c];
      const double w = l.weight[o * l.in_features + c];
      y[o] += (r ? toBfloat16(w) : w) * (r ? toBfloat16(x[c]) : x[c]);
    }
    if (relu) y[o] = std::max(y[o], 0.0);
  }
  return y;
}

Values mlp(const Mlp& m, const Values& x) { return apply(m.second, apply(m.first, x, true), false); }

// An edge MLP: with bf16 both layers' products in bfloat16 but for the first's per-point columns
// (from `point_columns` on: g1 or g2) and, for the kernel's MLP (second_in_float), the second layer.
Values edgeMlp(const Mlp& m, const Values& x, Arithmetic a, int point_columns, int point_count,
               bool second_in_float = false) {
  std::vector<bool> first(x.size(), a.bf16), second(m.second.in_features, a.bf16 && !second_in_float);
  for (int c = point_columns; c < point_columns + point_count; ++c) first[c] = false;
  return apply(m.second, apply(m.first, x, true, first), false, second);
}

Values join(Values a, const Values& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Values mean(const std::vector<Values>& rows) {
  Values m(rows[0].size(), 0.0);
  for (const auto& r : rows)
    for (std::size_t f = 0; f < m.size(); ++f) m[f] += r[f] / rows.size();
  return m;
}

double cosine(const double* a, const double* b) {
  const double norms =
      std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) * std::sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
  return norms < 1e-8 ? 0.0 : (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / norms;
}

// docs/algorithm.md steps 1-9 for one point, in double.
Values referenceWeights(const Model& model, const PointNeighborhood& nb, Arithmetic arithmetic = {}) {
  const int k = nb.count;
  std::vector<Values> edge(k), c(k), e1(k), e2(k), e3(k);
  const float* pi = nb.points + 3 * nb.center;
  const double ni[3] = {nb.normals[3 * nb.center], nb.normals[3 * nb.center + 1], nb.normals[3 * nb.center + 2]};
  for (int e = 0; e < k; ++e) {
    const float* pj = nb.points + 3 * nb.neighbors[e];
    const float* njf = nb.normals + 3 * nb.neighbors[e];
    const double nj[3] = {njf[0], njf[1], njf[2]};
    c[e] = {nb.edge_scale * (double(pj[0]) - pi[0]), nb.edge_scale * (double(pj[1]) - pi[1]),
            nb.edge_scale * (double(pj[2]) - pi[2])};
    edge[e] = {c[e][0],
               c[e][1],
               c[e][2],
               nb.previous_weights[e],
               cosine(ni, c[e].data()),
               cosine(nj, c[e].data()),
               cosine(ni, nj),
               std::sqrt(c[e][0] * c[e][0] + c[e][1] * c[e][1] + c[e][2] * c[e][2])};
    e1[e] = edgeMlp(model.layer1, edge[e], arithmetic, 0, 0);
  }
  const Values g1 = mlp(model.layerg, join(mean(e1), {ni[0], ni[1], ni[2]}));
  for (int e = 0; e < k; ++e)
    e2[e] = edgeMlp(model.layer2, join(e1[e], g1), arithmetic, kEdgeEmbedding, kPointEmbedding);
  const Values g2 = mlp(model.layerg2, mean(e2));
  for (int e = 0; e < k; ++e)
    e3[e] = edgeMlp(model.layer3, join(e2[e], g2), arithmetic, kEdgeEmbedding, kPointEmbedding);
  const Values g3 = mlp(model.layerg3, mean(e3));
  const float q[4] = {float(g3[0]), float(g3[1]), float(g3[2]), float(g3[3])};
  float r[3][3];
  rotationFromQuaternion(q, r);
  Values logits(k);
  for (int e = 0; e < k; ++e) {
    Values rc(3, 0.0);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) rc[a] += r[a][b] * c[e][b];
    logits[e] = edgeMlp(model.layer4, join(join(e3[e], Values(g3.begin() + 4, g3.end())), rc), arithmetic,
                        kEdgeEmbedding, kTheta, true)[0];
  }
  const double largest = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (double& l : logits) sum += (l = std::exp(l - largest));
  for (double& l : logits) l /= sum;
  return logits;
}

// A neighbourhood of `count` edges around point 0 (itself first, as in the library's graphs);
// `coincident` of the neighbours sit on the centre.
struct Fixture {
  std::vector<float> points, normals, previous;
  std::vector<std::int32_t> neighbors;
  PointNeighborhood neighborhood(float scale) const {
    return {points.data(),  normals.data(), scale, 0, neighbors.data(), static_cast<int>(neighbors.size()),
            previous.data()};
  }
};

Fixture makeFixture(int count, int coincident, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  Fixture f;
  const int m = count + 5;  // a few points that are nobody's neighbour
  for (int i = 0; i < m; ++i) {
    float n[3] = {u(rng), u(rng), u(rng) + 2};
    const float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int c = 0; c < 3; ++c) {
      f.points.push_back(i > 0 && i <= coincident ? 0.f : u(rng));
      f.normals.push_back(n[c] / len);
    }
  }
  for (int c = 0; c < 3; ++c) f.points[c] = 0.f;
  std::vector<std::int32_t> order(m);
  for (int i = 0; i < m; ++i) order[i] = i;
  std::shuffle(order.begin() + 1, order.end(), rng);
  f.neighbors.assign(order.begin(), order.begin() + count);
  float total = 0;
  for (int e = 0; e < count; ++e) total += (f.previous.emplace_back(u(rng) + 1.5f), f.previous.back());
  for (float& w : f.previous) w /= total;
  return f;
}

// Runs `fixtures` as one group (at most the implementation's group size) through the
// implementation, checking that it writes nothing past the scratch or any point's weights.
struct GroupRun {
  std::vector<std::vector<float>> weights;
  std::vector<std::array<float, 3>> normals;
  std::vector<float> curvatures;
  std::vector<bool> fitted;
};
constexpr float kCanary = 12345.f;

GroupRun runGroup(const PointNetworkImplementation& implementation, const PointNetworkWeights& net,
                  const std::vector<const Fixture*>& fixtures, float scale) {
  const int size = static_cast<int>(fixtures.size());
  std::vector<PointNeighborhood> group;
  int largest = 0;
  for (const Fixture* f : fixtures) {
    group.push_back(f->neighborhood(scale));
    largest = std::max(largest, group.back().count);
  }
  const std::size_t scratch_size = pointGroupScratchFloats(largest);
  std::vector<float> scratch(scratch_size + 64, kCanary);
  GroupRun run;
  run.weights.resize(size);
  run.normals.assign(size, {kCanary, kCanary, kCanary});
  run.curvatures.assign(size, kCanary);
  std::vector<PointResult> results(size);
  for (int p = 0; p < size; ++p) {
    run.weights[p].assign(group[p].count + 16, kCanary);
    results[p].weights = run.weights[p].data();
    results[p].normal = run.normals[p].data();
    results[p].curvature = &run.curvatures[p];
  }
  implementation.function(net, group.data(), size, scratch.data(), results.data());
  for (std::size_t s = scratch_size; s < scratch.size(); ++s) EXPECT_EQ(scratch[s], kCanary) << "scratch overrun";
  for (int p = 0; p < size; ++p) {
    for (int e = group[p].count; e < group[p].count + 16; ++e)
      EXPECT_EQ(run.weights[p][e], kCanary) << "weights overrun";
    run.weights[p].resize(group[p].count);
    run.fitted.push_back(results[p].fitted);
  }
  return run;
}

void expectMatchesReference(const Model& model, const Fixture& f, float scale, const std::vector<float>& weights,
                            bool fitted, const float* normal, float curvature, Arithmetic arithmetic) {
  const PointNeighborhood nb = f.neighborhood(scale);
  const int count = nb.count;
  const Values expected = referenceWeights(model, nb, arithmetic);
  for (int e = 0; e < count; ++e) ASSERT_NEAR(weights[e], expected[e], 1e-6 + 1e-4 * expected[e]) << "edge " << e;
  // The plane fit: fitPlane (tested on its own) with the reference weights.
  const std::vector<float> expected_weights(expected.begin(), expected.end());
  float expected_normal[3] = {kCanary, kCanary, kCanary}, expected_curvature = kCanary;
  ASSERT_EQ(fitted, fitPlane<double>(f.points.data(), f.points.data(), f.neighbors.data(), expected_weights.data(),
                                     count, expected_normal, &expected_curvature));
  if (!fitted) {
    for (int c = 0; c < 3; ++c) EXPECT_EQ(normal[c], kCanary) << "a failed fit writes no normal";
    return;
  }
  const int coincident = static_cast<int>(std::count_if(f.neighbors.begin() + 1, f.neighbors.end(), [&](int j) {
    return f.points[3 * j] == 0.f && f.points[3 * j + 1] == 0.f && f.points[3 * j + 2] == 0.f;
  }));
  if (count - coincident < 3) {
    // Collinear: any normal perpendicular to the line is right.
    const float* d = f.points.data() + 3 * f.neighbors.back();
    EXPECT_NEAR(normal[0] * d[0] + normal[1] * d[1] + normal[2] * d[2], 0.f, 1e-5);
    EXPECT_NEAR(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2], 1.f, 1e-5);
    return;
  }
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(normal[c], expected_normal[c], 1e-4);
  EXPECT_NEAR(curvature, expected_curvature, 1e-4);
}

// Neighbourhoods of these sizes, a quarter of their neighbours on the centre, in groups of the
// implementation's size: registers real in every lane, in some lanes, in one.
const std::vector<int> kCounts = {1, 2, 3, 7, 8, 9, 16, 17, 33, 65, 80, 81, 129};

void expectEveryGroupMatchesTheReference(const PointNetworkImplementation& implementation, const Model& model,
                                         Arithmetic arithmetic = {}) {
  const PointNetworkWeights net(model);
  std::vector<Fixture> fixtures;
  for (int count : kCounts) fixtures.push_back(makeFixture(count, count / 4, 100 + count));
  const float scale = 1.7f;
  for (std::size_t first = 0; first < fixtures.size(); first += implementation.group_size) {
    std::vector<const Fixture*> members;
    for (std::size_t p = first; p < std::min(fixtures.size(), first + implementation.group_size); ++p)
      members.push_back(&fixtures[p]);
    const GroupRun run = runGroup(implementation, net, members, scale);
    for (std::size_t p = 0; p < members.size(); ++p) {
      SCOPED_TRACE(std::string(implementation.name) + ", " + std::to_string(members[p]->neighbors.size()) + " edges");
      expectMatchesReference(model, *members[p], scale, run.weights[p], run.fitted[p], run.normals[p].data(),
                             run.curvatures[p], arithmetic);
    }
  }
}

TEST(PointNetwork, EveryImplementationMatchesTheReference) {
  const Model model = randomModel(7);
  for (const auto& implementation : pointNetworkImplementations())
    expectEveryGroupMatchesTheReference(implementation, model);
}

TEST(PointNetwork, LargeLogitsStillGiveTheSoftmax) {
  // Logits spread over hundreds: the softmax's exponentials span the whole float range.
  Model model = randomModel(8);
  for (float& w : model.layer4.second.weight) w *= 200.f;
  for (const auto& implementation : pointNetworkImplementations())
    expectEveryGroupMatchesTheReference(implementation, model);
}

// The float implementations and the bfloat16 one where this processor has it.
std::vector<PointNetworkImplementation> everyImplementation() {
  std::vector<PointNetworkImplementation> all = pointNetworkImplementations();
  if (bfloat16PointNetwork()) all.push_back(*bfloat16PointNetwork());
  return all;
}

TEST(PointNetwork, APointGivesTheSameBitsInAnyGroup) {
  // Tiles, threads and MPI ranks group points differently: a point's result must not depend on
  // the others in its group, nor on its lane.
  const Model model = randomModel(9);
  const PointNetworkWeights net(model);
  std::vector<Fixture> fixtures;
  for (int count : kCounts) fixtures.push_back(makeFixture(count, count / 4, 200 + count));
  for (const auto& implementation : everyImplementation()) {
    SCOPED_TRACE(implementation.name);
    for (std::size_t p = 0; p < fixtures.size(); ++p) {
      const GroupRun alone = runGroup(implementation, net, {&fixtures[p]}, 0.9f);
      // The same point last in a full group of the others.
      std::vector<const Fixture*> members;
      for (std::size_t o = 1; o < static_cast<std::size_t>(implementation.group_size); ++o)
        members.push_back(&fixtures[(p + o) % fixtures.size()]);
      members.push_back(&fixtures[p]);
      const GroupRun together = runGroup(implementation, net, members, 0.9f);
      const std::size_t last = members.size() - 1;
      ASSERT_EQ(alone.weights[0], together.weights[last]) << fixtures[p].neighbors.size() << " edges";
      ASSERT_EQ(alone.fitted[0], together.fitted[last]);
      ASSERT_EQ(alone.normals[0], together.normals[last]);
      ASSERT_EQ(alone.curvatures[0], together.curvatures[last]);
    }
  }
}

TEST(PointNetwork, TheWidestImplementationRuns) {
  const auto& implementations = pointNetworkImplementations();
  ASSERT_FALSE(implementations.empty());
  EXPECT_STREQ(implementations.front().name, "portable");
  EXPECT_EQ(pointNetwork().function, implementations.back().function);
  EXPECT_EQ(nativeInstructionSet(), implementations.back().name);
  std::cout << "the per-point network runs with " << pointNetwork().name << "\n";
}

TEST(PointNetworkBf16, MatchesTheReferenceThatRoundsWhereItRounds) {
  const PointNetworkImplementation* bf16 = bfloat16PointNetwork();
  if (!bf16) GTEST_SKIP() << "this processor lacks AVX512_BF16 (or PCL_DISE_SIMD caps it)";
  Model model = randomModel(7);
  expectEveryGroupMatchesTheReference(*bf16, model, {true});
  for (float& w : model.layer4.second.weight) w *= 200.f;
  expectEveryGroupMatchesTheReference(*bf16, model, {true});
}

TEST(PointNetworkBf16, TheTwoReferencesDifferByMoreThanTheTolerance) {
  // What makes the test above tell the bfloat16 path from the float one: on the same
  // neighbourhoods (its logits spread over hundreds) the two references' weights differ by far more
  // than its tolerance.
  Model model = randomModel(7);
  for (float& w : model.layer4.second.weight) w *= 200.f;
  double largest = 0;
  for (int count : kCounts) {
    const Fixture f = makeFixture(count, count / 4, 100 + count);
    const Values float_weights = referenceWeights(model, f.neighborhood(1.7f));
    const Values bf16_weights = referenceWeights(model, f.neighborhood(1.7f), {true});
    for (int e = 0; e < count; ++e)
      largest = std::max(largest, std::abs(float_weights[e] - bf16_weights[e]) / (1e-6 + 1e-4 * float_weights[e]));
  }
  EXPECT_GT(largest, 10.0);
}

TEST(PointNetworkBf16, RunsWhereTheProcessorHasIt) {
  if (bfloat16PointNetwork()) {
    EXPECT_STREQ(pointNetwork(Precision::Bf16).name, "AVX-512 BF16");
    EXPECT_EQ(nativeInstructionSet(Precision::Bf16), "AVX-512 BF16");
  } else {
    EXPECT_EQ(pointNetwork(Precision::Bf16).function, pointNetwork().function) << "bf16 runs in float";
  }
  EXPECT_EQ(bfloat16Available(), bfloat16PointNetwork() != nullptr);
  EXPECT_EQ(pointNetwork(Precision::Float).function, pointNetworkImplementations().back().function);
  std::cout << "bf16 runs with " << pointNetwork(Precision::Bf16).name << "\n";
}

}  // namespace
