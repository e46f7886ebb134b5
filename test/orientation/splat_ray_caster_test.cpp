// SplatRayCaster against testing every disc, and on shapes whose crossings are known.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "pcl_dise/orientation/splat_ray_caster.h"

namespace {

using pcl_dise::SplatRayCaster;

// Discs: positions, unit normals and radii, N each.
struct Discs {
  std::vector<float> xyz, normal, radius;
  void add(float x, float y, float z, float nx, float ny, float nz, float r) {
    const float length = std::sqrt(nx * nx + ny * ny + nz * nz);
    xyz.insert(xyz.end(), {x, y, z});
    normal.insert(normal.end(), {nx / length, ny / length, nz / length});
    radius.push_back(r);
  }
  std::size_t size() const { return radius.size(); }
  SplatRayCaster caster(std::size_t max_cells = std::size_t(1) << 22) const {
    return SplatRayCaster(xyz.data(), normal.data(), radius.data(), size(), max_cells);
  }
};

// A unit sphere, n points, discs of radius 7 / sqrt(n) (about two point spacings, so that no ray slips between them).
Discs sphere(int n, float centre_x = 0.f, unsigned seed = 1) {
  std::mt19937 random(seed);
  std::normal_distribution<float> gauss;
  Discs d;
  for (int i = 0; i < n; ++i) {
    const float v[3] = {gauss(random), gauss(random), gauss(random)};
    const float r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    d.add(centre_x + v[0] / r, v[1] / r, v[2] / r, v[0], v[1], v[2], 7.f / std::sqrt(float(n)));
  }
  return d;
}

// The square [0, 1]² at height z, on a grid of `per_side`², discs of one grid step.
void addSquare(Discs& d, float z, int per_side) {
  const float step = 1.f / per_side;
  for (int i = 0; i < per_side; ++i)
    for (int j = 0; j < per_side; ++j) d.add((i + 0.5f) * step, (j + 0.5f) * step, z, 0.f, 0.f, 1.f, step);
}

TEST(SplatRayCaster, CrossesASphereOnceFromInsideAndTwiceThrough) {
  const Discs ball = sphere(20000);
  const SplatRayCaster caster = ball.caster();
  SplatRayCaster::Scratch scratch;
  std::mt19937 random(3);
  std::normal_distribution<float> gauss;
  for (int ray = 0; ray < 200; ++ray) {
    float d[3] = {gauss(random), gauss(random), gauss(random)};
    const float length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (float& c : d) c /= length;
    const float centre[3] = {0.1f, -0.2f, 0.05f};
    EXPECT_EQ(caster.crossings(centre, d, 0.f, 0.05f, scratch), 1);
    const float outside[3] = {-3 * d[0], -3 * d[1], -3 * d[2]};
    EXPECT_EQ(caster.crossings(outside, d, 0.f, 0.05f, scratch), 2);
  }
  const float far[3] = {5.f, 5.f, 5.f}, away[3] = {1.f, 0.f, 0.f};
  EXPECT_EQ(caster.crossings(far, away, 0.f, 0.05f, scratch), 0);
}

TEST(SplatRayCaster, SameCountAsTestingEveryDisc) {
  // Two spheres and a square, rays from random points in random directions, on a coarse grid
  // (few cells, many discs each) and a fine one.
  Discs scene = sphere(4000);
  const Discs second = sphere(3000, 1.6f, 2);
  for (std::size_t i = 0; i < second.size(); ++i)
    scene.add(second.xyz[3 * i], second.xyz[3 * i + 1], second.xyz[3 * i + 2], second.normal[3 * i],
              second.normal[3 * i + 1], second.normal[3 * i + 2], second.radius[i]);
  addSquare(scene, -1.2f, 60);
  std::mt19937 random(4);
  std::uniform_real_distribution<float> where(-1.5f, 2.5f);
  std::normal_distribution<float> gauss;
  for (const std::size_t max_cells : {std::size_t(64), std::size_t(1) << 22}) {
    const SplatRayCaster caster = scene.caster(max_cells);
    SplatRayCaster::Scratch scratch;
    int crossing_something = 0;
    for (int ray = 0; ray < 500; ++ray) {
      const float origin[3] = {where(random), where(random), where(random)};
      float d[3] = {gauss(random), gauss(random), gauss(random)};
      const float length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      for (float& c : d) c /= length;
      const int expected = caster.crossingsByTestingAll(origin, d, 0.01f, 0.03f);
      EXPECT_EQ(caster.crossings(origin, d, 0.01f, 0.03f, scratch), expected) << "ray " << ray;
      crossing_something += expected > 0;
    }
    EXPECT_GT(crossing_something, 100);
  }
}

TEST(SplatRayCaster, SheetsCloserThanTheMergeDepthAreOne) {
  Discs two;
  addSquare(two, 0.f, 50);
  addSquare(two, 0.03f, 50);
  const SplatRayCaster caster = two.caster();
  SplatRayCaster::Scratch scratch;
  const float below[3] = {0.4f, 0.2f, -1.f}, up[3] = {0.f, 0.6f, 0.8f};
  EXPECT_EQ(caster.crossings(below, up, 0.f, 0.01f, scratch), 2);
  EXPECT_EQ(caster.crossings(below, up, 0.f, 0.05f, scratch), 1);
  // Starting between the sheets, or skipping the first.
  const float between[3] = {0.5f, 0.5f, 0.015f}, straight_up[3] = {0.f, 0.f, 1.f};
  EXPECT_EQ(caster.crossings(between, straight_up, 0.f, 0.01f, scratch), 1);
  const float on_first[3] = {0.5f, 0.5f, 0.f};
  EXPECT_EQ(caster.crossings(on_first, straight_up, 0.01f, 0.01f, scratch), 1);
  EXPECT_EQ(caster.crossings(on_first, straight_up, 0.05f, 0.01f, scratch), 0);
}

TEST(SplatRayCaster, ARayAlongASheetPassesBesideIt) {
  Discs square;
  addSquare(square, 0.f, 40);
  const SplatRayCaster caster = square.caster();
  SplatRayCaster::Scratch scratch;
  const float origin[3] = {-0.5f, 0.5f, 0.001f}, along[3] = {1.f, 0.f, 0.f};
  EXPECT_EQ(caster.crossings(origin, along, 0.f, 0.01f, scratch), 0);
}

TEST(SplatRayCaster, LeavesOutWhatIsNotFiniteAndHandlesNothing) {
  Discs d;
  d.add(0.f, 0.f, 0.f, 0.f, 0.f, 1.f, 0.1f);
  d.add(std::numeric_limits<float>::quiet_NaN(), 0.f, 0.f, 0.f, 0.f, 1.f, 0.1f);
  d.add(0.f, 0.f, 1.f, 0.f, 0.f, 1.f, 0.f);  // no radius: left out
  d.add(0.f, 0.f, 2.f, 0.f, 0.f, 1.f, std::numeric_limits<float>::infinity());
  const SplatRayCaster caster = d.caster();
  SplatRayCaster::Scratch scratch;
  const float below[3] = {0.f, 0.f, -1.f}, up[3] = {0.f, 0.f, 1.f};
  EXPECT_EQ(caster.crossings(below, up, 0.f, 0.01f, scratch), 1);
  EXPECT_EQ(caster.crossingsByTestingAll(below, up, 0.f, 0.01f), 1);
  const SplatRayCaster empty(nullptr, nullptr, nullptr, 0);
  EXPECT_EQ(empty.crossings(below, up, 0.f, 0.01f, scratch), 0);
}

}  // namespace
