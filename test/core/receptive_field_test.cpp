// The receptive field (receptive_field.h): estimated alone, it gives its seeds the very bytes that
// the whole cloud's forward pass gives them, for k and radius, every backend step that reads
// neighbours (iterations, the adaptive mode), and points without a normal inside it.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "pcl_dise/core/edge_scale.h"
#include "pcl_dise/core/forward.h"
#include "pcl_dise/core/model.h"
#include "pcl_dise/core/neighbor_search.h"
#include "pcl_dise/core/receptive_field.h"
#include "test_support.h"

namespace {

using namespace pcl_dise;

// A wavy sheet with a few points alone in space (no normal) and a stack of coincident points.
std::vector<float> sheetWithStrays(std::size_t n) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> p;
  for (std::size_t i = 0; i < n; ++i) {
    const float x = u(rng), y = u(rng);
    p.insert(p.end(), {x, y, 0.2f * std::sin(3 * x) * std::cos(2 * y)});
  }
  for (int i = 0; i < 6; ++i) p.insert(p.end(), {1.3f + 0.2f * i, 0.f, 0.f});  // a sparse strand off the edge
  for (int i = 0; i < 30; ++i) p.insert(p.end(), {0.5f, 0.5f, 0.2f * std::sin(1.5f) * std::cos(1.f)});
  return p;
}

void expectSameBytes(const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

struct FieldCase {
  NeighborSearch search;
  int iterations;
  double settle;
};

TEST(ReceptiveField, SeedsGetTheWholeCloudsBytes) {
  const std::vector<float> points = sheetWithStrays(3000);
  const std::size_t n = points.size() / 3;
  const Model model = loadModel(test::randomModelFile(21));
  NeighborSearch knn;
  knn.k = 17;
  NeighborSearch radius;
  radius.radius = 0.09f;
  for (const FieldCase& setup :
       {FieldCase{knn, 4, 0.0}, FieldCase{radius, 4, 0.0}, FieldCase{knn, 2, 3.0}, FieldCase{radius, 0, 0.0}}) {
    const Neighborhoods all = searchNeighborhoods(points.data(), n, setup.search);
    ForwardOptions options;
    options.iterations = setup.iterations;
    options.settle_degrees = setup.settle;
    ForwardInput whole;
    whole.points = points.data();
    whole.num_points = n;
    whole.neighborhoods = &all;
    whole.edge_scale = edgeScale(points.data(), n);
    const ForwardResult expected = runForward(model, whole, options);

    const NeighborSearchIndex index(points.data(), n, setup.search);
    std::size_t asked = 0;
    const std::int32_t strand = 3005, stack = std::int32_t(n - 1);
    const std::vector<std::int32_t> seeds = {5, 17, 17, 2999, stack, strand, 1200};
    const ReceptiveField field =
        receptiveField(points.data(), n, seeds, setup.iterations, [&](const std::vector<std::int32_t>& nodes) {
          asked += nodes.size();
          return index.rowsOf(nodes.data(), nodes.size());
        });
    EXPECT_LT(field.nodes.size(), n / 2);
    std::size_t with_rows = 0;
    for (std::size_t l = 0; l < field.nodes.size(); ++l) with_rows += field.neighborhoods.size(l) > 0;
    EXPECT_EQ(asked, with_rows);  // each point searched once
    ForwardInput part;
    part.points = field.points.data();
    part.num_points = field.nodes.size();
    part.neighborhoods = &field.neighborhoods;
    part.edge_scale = whole.edge_scale;
    part.last_iteration = field.last_iteration.data();
    const ForwardResult got = runForward(model, part, options);
    ASSERT_EQ(field.local_of_seed.size(), seeds.size());
    std::vector<float> mine, theirs;
    for (std::size_t s = 0; s < seeds.size(); ++s) {
      const std::int32_t l = field.local_of_seed[s];
      ASSERT_EQ(field.nodes[l], seeds[s]);
      mine.insert(mine.end(), &got.normals[3 * l], &got.normals[3 * l] + 3);
      mine.push_back(got.curvature[l]);
      theirs.insert(theirs.end(), &expected.normals[3 * seeds[s]], &expected.normals[3 * seeds[s]] + 3);
      theirs.push_back(expected.curvature[seeds[s]]);
    }
    expectSameBytes(mine, theirs);
    if (setup.search.k > 0)
      EXPECT_TRUE(std::isnan(mine[4 * 4])) << "a stack of more than k + 1 coincident points has no plane";
    else
      EXPECT_TRUE(std::isnan(mine[4 * 5])) << "a point alone within the radius has no normal";
  }
}

TEST(ReceptiveField, HopsAndDepths) {
  // A chain 0 - 1 - 2 - 3 - 4 - 5: each point's neighbourhood is itself and the next ones.
  const std::vector<float> points = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0, 5, 0, 0};
  auto rows = [](const std::vector<std::int32_t>& nodes) {
    Neighborhoods n;
    for (std::int32_t i : nodes) {
      const std::int32_t row[2] = {i, std::min(i + 1, 5)};
      n.append(row, 2);
    }
    return n;
  };
  const ReceptiveField field = receptiveField(points.data(), 6, {1}, 2, rows);
  EXPECT_EQ(field.nodes, (std::vector<std::int32_t>{1, 2, 3, 4}));  // 3 hops out: position only
  EXPECT_EQ(field.last_iteration, (std::vector<std::uint8_t>{2, 1, 0, 0}));
  EXPECT_EQ(field.neighborhoods.size(3), 0);
  EXPECT_EQ(field.neighborhoods.size(2), 2);
  EXPECT_THROW(receptiveField(points.data(), 6, {6}, 2, rows), std::invalid_argument);
  EXPECT_THROW(receptiveField(points.data(), 6, {1}, -1, rows), std::invalid_argument);
  EXPECT_TRUE(receptiveField(points.data(), 6, {}, 2, rows).nodes.empty());
}

}  // namespace
