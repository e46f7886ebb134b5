// The native backend's per-point network against a double-precision reference that follows
// docs/algorithm.md literally (concatenated inputs, no split layers): every implementation this
// processor runs (portable, AVX2, AVX-512), neighbourhoods that fill their registers partly and
// wholly, coincident neighbours, large logits; then its weighted plane fit; nothing written past
// the scratch or the weights.
#include <cmath>
#include <iostream>
#include <random>

#include <gtest/gtest.h>

#include "pcl_dise/edge_features.h"
#include "pcl_dise/forward.h"
#include "pcl_dise/plane_fit.h"
#include "point_network.h"

namespace {

using namespace pcl_dise;
using namespace pcl_dise::detail;
using Values = std::vector<double>;

Values apply(const Linear& l, const Values& x, bool relu) {
  Values y(l.bias.begin(), l.bias.end());
  for (int o = 0; o < l.out_features; ++o) {
    for (int c = 0; c < l.in_features; ++c) y[o] += double(l.weight[o * l.in_features + c]) * x[c];
    if (relu) y[o] = std::max(y[o], 0.0);
  }
  return y;
}

Values mlp(const Mlp& m, const Values& x) { return apply(m.second, apply(m.first, x, true), false); }

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
Values referenceWeights(const Model& model, const PointNeighborhood& nb) {
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
    e1[e] = mlp(model.layer1, edge[e]);
  }
  const Values g1 = mlp(model.layerg, join(mean(e1), {ni[0], ni[1], ni[2]}));
  for (int e = 0; e < k; ++e) e2[e] = mlp(model.layer2, join(e1[e], g1));
  const Values g2 = mlp(model.layerg2, mean(e2));
  for (int e = 0; e < k; ++e) e3[e] = mlp(model.layer3, join(e2[e], g2));
  const Values g3 = mlp(model.layerg3, mean(e3));
  const float q[4] = {float(g3[0]), float(g3[1]), float(g3[2]), float(g3[3])};
  float r[3][3];
  rotationFromQuaternion(q, r);
  Values logits(k);
  for (int e = 0; e < k; ++e) {
    Values rc(3, 0.0);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) rc[a] += r[a][b] * c[e][b];
    logits[e] = mlp(model.layer4, join(join(e3[e], Values(g3.begin() + 4, g3.end())), rc))[0];
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

void expectMatchesReference(const PointNetworkImplementation& implementation, const Model& model, int count,
                            int coincident, unsigned seed) {
  SCOPED_TRACE(std::string(implementation.name) + ", " + std::to_string(count) + " edges, " +
               std::to_string(coincident) + " coincident");
  const Fixture f = makeFixture(count, coincident, seed);
  const PointNeighborhood nb = f.neighborhood(1.7f);
  const PointNetworkWeights net(model);
  const std::size_t scratch_size = pointNetworkScratchFloats(count);
  constexpr float canary = 12345.f;
  std::vector<float> scratch(scratch_size + 64, canary), weights(count + 16, canary);
  float normal[3] = {canary, canary, canary}, curvature = canary;
  const bool fitted = implementation.function(net, nb, scratch.data(), weights.data(), normal, &curvature);
  const Values expected = referenceWeights(model, nb);
  for (int e = 0; e < count; ++e) ASSERT_NEAR(weights[e], expected[e], 1e-6 + 1e-4 * expected[e]) << "edge " << e;
  // The plane fit: fitPlane (tested on its own) with the reference weights.
  const std::vector<float> expected_weights(expected.begin(), expected.end());
  float expected_normal[3] = {canary, canary, canary}, expected_curvature = canary;
  ASSERT_EQ(fitted, fitPlane<double>(f.points.data(), f.points.data(), f.neighbors.data(), expected_weights.data(),
                                     count, expected_normal, &expected_curvature));
  if (!fitted) return;
  if (count - coincident < 3) {
    // Collinear: any normal perpendicular to the line is right.
    const float* d = f.points.data() + 3 * f.neighbors.back();
    EXPECT_NEAR(normal[0] * d[0] + normal[1] * d[1] + normal[2] * d[2], 0.f, 1e-5);
    EXPECT_NEAR(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2], 1.f, 1e-5);
    return;
  }
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(normal[c], expected_normal[c], 1e-4);
  EXPECT_NEAR(curvature, expected_curvature, 1e-4);
  for (std::size_t s = scratch_size; s < scratch.size(); ++s) ASSERT_EQ(scratch[s], canary) << "scratch overrun";
  for (int e = count; e < count + 16; ++e) ASSERT_EQ(weights[e], canary) << "weights overrun";
}

TEST(PointNetwork, EveryImplementationMatchesTheReference) {
  const Model model = randomModel(7);
  for (const auto& implementation : pointNetworkImplementations())
    for (int count : {1, 2, 3, 7, 8, 9, 16, 17, 33, 65, 80, 81, 129})
      expectMatchesReference(implementation, model, count, count / 4, 100 + count);
}

TEST(PointNetwork, LargeLogitsStillGiveTheSoftmax) {
  // Logits spread over hundreds: the softmax's exponentials span the whole float range.
  Model model = randomModel(8);
  for (float& w : model.layer4.second.weight) w *= 200.f;
  for (const auto& implementation : pointNetworkImplementations())
    expectMatchesReference(implementation, model, 65, 0, 3);
}

TEST(PointNetwork, TheWidestImplementationRuns) {
  const auto& implementations = pointNetworkImplementations();
  ASSERT_FALSE(implementations.empty());
  EXPECT_STREQ(implementations.front().name, "portable");
  EXPECT_EQ(pointNetwork().function, implementations.back().function);
  EXPECT_EQ(nativeInstructionSet(), implementations.back().name);
  std::cout << "the per-point network runs with " << pointNetwork().name << "\n";
}

}  // namespace
