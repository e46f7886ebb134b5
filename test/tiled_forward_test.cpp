// The tiled forward pass (tiled_forward.h) against the whole cloud's: the same normals and
// curvature bit for bit, on a cloud of uneven density cut into many tiles, for several k and L.
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "pcl_dise/grid_search.h"
#include "pcl_dise/model.h"
#include "pcl_dise/tiled_forward.h"

namespace {

using namespace pcl_dise;

// A sphere, a dense blob on it and a sparse plate beside it: density varies by 20 across tiles.
std::vector<float> unevenCloud(std::size_t n) {
  std::mt19937 rng(3);
  std::normal_distribution<float> g;
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> p;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 5 == 4) {  // the plate
      p.insert(p.end(), {3.f + 2.f * u(rng), 2.f * u(rng), 0.01f * u(rng)});
      continue;
    }
    float v[3] = {g(rng), g(rng), g(rng)};
    const float r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    const float scale = i % 5 == 3 ? 0.1f : 1.f;  // the blob: a small patch near (0, 0, 1)
    if (scale < 1.f) {
      v[0] *= scale;
      v[1] *= scale;
      v[2] = std::fabs(v[2]) + 5.f;
    }
    const float len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    p.insert(p.end(), {v[0] / (scale < 1.f ? len : r), v[1] / (scale < 1.f ? len : r), v[2] / (scale < 1.f ? len : r)});
  }
  return p;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(TiledForward, GivesTheWholeCloudsNormalsBitForBit) {
  const std::vector<float> points = unevenCloud(6000);
  const std::size_t n = points.size() / 3;
  const Model model = randomModel(5);
  for (std::size_t neighbors : {17u, 33u})
    for (int iterations : {0, 2, 4}) {
      SCOPED_TRACE("k + 1 = " + std::to_string(neighbors) + ", L = " + std::to_string(iterations));
      const Neighborhoods knn = nearestNeighborGraph(points.data(), n, neighbors);
      ForwardInput input;
      input.points = points.data();
      input.num_points = n;
      input.neighborhoods = &knn;
      ForwardOptions options;
      options.iterations = iterations;
      const ForwardResult whole = runForward(model, input, options);

      TiledForwardOptions tiled;
      tiled.neighbors = neighbors;
      tiled.iterations = iterations;
      tiled.tile_points = 700;
      std::vector<float> normals, curvature;
      const TiledForwardReport report = runTiledForward(model, points.data(), n, tiled, normals, curvature);
      EXPECT_GE(report.tiles, 6u);
      // Small neighbourhoods and few iterations reach a few hops: no tile needs the whole cloud.
      if (neighbors == 17 && iterations <= 2) {
        EXPECT_LT(report.largest_load, n);
      }
      EXPECT_EQ(report.edge_scale, edgeScale(points.data(), n));
      EXPECT_TRUE(sameBits(normals, whole.normals));
      EXPECT_TRUE(sameBits(curvature, whole.curvature));
    }
}

TEST(TiledForward, OneTileAndBadInput) {
  const std::vector<float> points = unevenCloud(500);
  std::vector<float> normals, curvature;
  TiledForwardOptions options;
  options.neighbors = 17;
  options.iterations = 1;
  const TiledForwardReport report = runTiledForward(randomModel(1), points.data(), 500, options, normals, curvature);
  EXPECT_EQ(report.tiles, 1u);
  EXPECT_EQ(normals.size(), 1500u);
  std::vector<float> bad = points;
  bad[7] = NAN;
  EXPECT_THROW(runTiledForward(randomModel(1), bad.data(), 500, options, normals, curvature), std::invalid_argument);
  options.tile_points = 0;
  EXPECT_THROW(runTiledForward(randomModel(1), points.data(), 500, options, normals, curvature), std::invalid_argument);
}

}  // namespace
