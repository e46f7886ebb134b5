// outwardFaceNormals: consistent, outward face normals whatever the triangles' winding.
#include <cmath>
#include <map>
#include <random>
#include <utility>

#include <gtest/gtest.h>

#include "pcl_dise/train/outward_normals.h"
#include "pcl_dise/train/procedural_shapes.h"

namespace {

using namespace pcl_dise::train;

std::array<double, 3> rawNormal(const Mesh& m, std::size_t f) {
  const auto& a = m.vertices[m.triangles[f][0]];
  const auto& b = m.vertices[m.triangles[f][1]];
  const auto& c = m.vertices[m.triangles[f][2]];
  const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  return {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
}

double dot(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// The winding the normals imply must agree across every edge two triangles share, and enclose a
// positive volume.
void expectConsistentAndOutward(const Mesh& m, const std::string& name) {
  const auto normals = outwardFaceNormals(m);
  ASSERT_EQ(normals.size(), m.triangles.size());
  std::map<std::pair<int, int>, int> directed;  // edges as the implied winding runs them
  double volume = 0;
  for (std::size_t f = 0; f < m.triangles.size(); ++f) {
    std::array<int, 3> t = m.triangles[f];
    if (dot(rawNormal(m, f), normals[f]) < 0) std::swap(t[1], t[2]);
    for (int c = 0; c < 3; ++c) ++directed[{t[c], t[(c + 1) % 3]}];
    const auto& a = m.vertices[t[0]];
    const auto& b = m.vertices[t[1]];
    const auto& c = m.vertices[t[2]];
    volume +=
        a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  std::size_t clashes = 0;
  for (const auto& [edge, count] : directed) clashes += count > 1 && directed.count({edge.second, edge.first}) == 0;
  EXPECT_EQ(clashes, 0u) << name;
  EXPECT_GT(volume, 0) << name;
}

// An octahedron whose triangles are wound at random: every face normal must point away from the
// centre (convex), and the unit length holds.
TEST(OutwardFaceNormals, ConvexShapeWoundAtRandomFacesOut) {
  Mesh m;
  m.vertices = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  std::mt19937 random(3);
  for (int x : {0, 1})
    for (int y : {2, 3})
      for (int z : {4, 5}) {
        if (random() % 2)
          m.addTriangle(x, y, z);
        else
          m.addTriangle(x, z, y);
      }
  const auto normals = outwardFaceNormals(m);
  for (std::size_t f = 0; f < m.triangles.size(); ++f) {
    std::array<double, 3> centroid{0, 0, 0};
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k) centroid[k] += m.vertices[m.triangles[f][c]][k] / 3;
    EXPECT_GT(dot(normals[f], centroid), 0);
    EXPECT_NEAR(dot(normals[f], normals[f]), 1.0, 1e-12);
  }
}

TEST(OutwardFaceNormals, EveryProceduralAndThinShape) {
  for (const auto& shape : proceduralShapes(proceduralKinds().size(), 5))
    expectConsistentAndOutward(shape.mesh, shape.name);
  for (const auto& shape : thinShapes(thinKinds().size(), 5)) expectConsistentAndOutward(shape.mesh, shape.name);
}

}  // namespace
