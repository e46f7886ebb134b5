// Procedural CAD shapes: every kind samples to unit normals that match its faces, box unions
// keep only the union's surface, and seeds give reproducible, different shapes.
#include <algorithm>
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "pcl_dise/train/outward_normals.h"
#include "pcl_dise/train/procedural_shapes.h"

namespace {

using namespace pcl_dise::train;

double norm(const std::array<float, 3>& v) {
  return std::sqrt(double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2]);
}

TEST(ProceduralShapes, EveryKindSamplesWithUnitNormals) {
  const auto shapes = proceduralShapes(proceduralKinds().size(), 3);
  ASSERT_EQ(shapes.size(), proceduralKinds().size());
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    SCOPED_TRACE(shapes[s].name);
    EXPECT_EQ(shapes[s].name.find("cad_" + proceduralKinds()[s] + "_3_"), 0u);
    ASSERT_FALSE(shapes[s].mesh.triangles.empty());
    const Cloud c = sample(shapes[s].mesh, 2000, Density::Uniform, 0.0, 1);
    ASSERT_EQ(c.points.size(), 2000u);
    for (const auto& n : c.normals) ASSERT_NEAR(norm(n), 1.0, 1e-5);
  }
}

TEST(ProceduralShapes, ClosedSolidsHaveNoBoundaryEdges) {
  // Every edge of a closed surface is shared by two triangles (box unions: per box).
  for (const auto& shape : proceduralShapes(proceduralKinds().size(), 4)) {
    SCOPED_TRACE(shape.name);
    std::map<std::pair<int, int>, int> edges;
    for (const auto& t : shape.mesh.triangles)
      for (int e = 0; e < 3; ++e) ++edges[std::minmax(t[e], t[(e + 1) % 3])];
    for (const auto& [edge, count] : edges) EXPECT_EQ(count, 2) << edge.first << "-" << edge.second;
  }
}

TEST(ProceduralShapes, BoxUnionsKeepOnlyTheUnionsSurface) {
  const std::size_t union_kind = 1;
  ASSERT_EQ(proceduralKinds()[union_kind], "boxunion");
  for (std::uint64_t seed : {1, 2, 3}) {
    const Mesh mesh = proceduralShapes(union_kind + 1, seed)[union_kind].mesh;
    ASSERT_GE(mesh.solid_boxes.size(), 2u);
    const Cloud c = sample(mesh, 5000, Density::Uniform, 0.0, seed);
    for (const auto& p : c.points)
      for (const auto& box : mesh.solid_boxes) {
        bool inside = true;
        for (int k = 0; k < 3; ++k) inside = inside && p[k] > box[k] + 1e-5 && p[k] < box[k + 3] - 1e-5;
        ASSERT_FALSE(inside) << p[0] << " " << p[1] << " " << p[2];
      }
  }
}

// Volume enclosed by a closed mesh (divergence theorem): positive where every face points out.
double signedVolume(const Mesh& m) {
  double v = 0;
  for (const auto& t : m.triangles) {
    const auto &a = m.vertices[t[0]], &b = m.vertices[t[1]], &c = m.vertices[t[2]];
    v +=
        (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) /
        6;
  }
  return v;
}

TEST(ThinShapes, EveryKindIsAClosedSolidWithOutwardFaces) {
  const auto shapes = thinShapes(2 * thinKinds().size(), 3);
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    SCOPED_TRACE(shapes[s].name);
    EXPECT_EQ(shapes[s].name.find("thin_" + thinKinds()[s % thinKinds().size()] + "_3_"), 0u);
    std::map<std::pair<int, int>, int> edges;
    for (const auto& t : shapes[s].mesh.triangles)
      for (int e = 0; e < 3; ++e) ++edges[std::minmax(t[e], t[(e + 1) % 3])];
    for (const auto& [edge, count] : edges) ASSERT_EQ(count, 2) << edge.first << "-" << edge.second;
    EXPECT_GT(signedVolume(shapes[s].mesh), 0);
    const Cloud c = sample(shapes[s].mesh, 1000, Density::Uniform, 0.0, 1);
    for (const auto& n : c.normals) ASSERT_NEAR(norm(n), 1.0, 1e-5);
  }
}

// The generalised winding number of a closed mesh about p, its faces turned outward (`outward`:
// one normal per triangle): 1 inside, 0 outside (the sum of the solid angles its triangles
// subtend, over 4 pi); 2 where it overlaps itself.
double windingNumber(const Mesh& m, const std::vector<std::array<double, 3>>& outward, const std::array<double, 3>& p) {
  double total = 0;
  for (std::size_t f = 0; f < m.triangles.size(); ++f) {
    const auto& t = m.triangles[f];
    double v[3][3], len[3];
    for (int c = 0; c < 3; ++c) {
      for (int k = 0; k < 3; ++k) v[c][k] = m.vertices[t[c]][k] - p[k];
      len[c] = std::sqrt(v[c][0] * v[c][0] + v[c][1] * v[c][1] + v[c][2] * v[c][2]);
    }
    auto dot = [&](int a, int b) { return v[a][0] * v[b][0] + v[a][1] * v[b][1] + v[a][2] * v[b][2]; };
    const double det = v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) -
                       v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
                       v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
    const double angle =
        2 * std::atan2(det, len[0] * len[1] * len[2] + dot(0, 1) * len[2] + dot(0, 2) * len[1] + dot(1, 2) * len[0]);
    double wound[3];  // (b - a) x (c - a), against the outward normal
    const double ab[3] = {v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2]},
                 ac[3] = {v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2]};
    for (int k = 0; k < 3; ++k) wound[k] = ab[(k + 1) % 3] * ac[(k + 2) % 3] - ab[(k + 2) % 3] * ac[(k + 1) % 3];
    const double facing = wound[0] * outward[f][0] + wound[1] * outward[f][1] + wound[2] * outward[f][2];
    total += facing < 0 ? -angle : angle;
  }
  return total / (4 * 3.14159265358979323846);
}

// Every sampled point has the solid just behind it and nothing just in front of it: a shape that
// crosses or folds onto itself has points whose inward side lies in two solids or whose outward
// side lies inside another part.
void expectNoSelfOverlap(const NamedMesh& shape, std::size_t samples) {
  SCOPED_TRACE(shape.name);
  const Cloud c = sample(shape.mesh, samples, Density::Uniform, 0.0, 7);
  const auto outward = outwardFaceNormals(shape.mesh);
  const double step = 1e-6;
  int bad = 0;
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    std::array<double, 3> inside, outside;
    for (int k = 0; k < 3; ++k) {
      inside[k] = c.points[i][k] - step * c.normals[i][k];
      outside[k] = c.points[i][k] + step * c.normals[i][k];
    }
    bad += std::lround(windingNumber(shape.mesh, outward, inside)) != 1 ||
           std::lround(windingNumber(shape.mesh, outward, outside)) != 0;
  }
  EXPECT_EQ(bad, 0) << "of " << samples << " points";
}

TEST(ThinShapes, NoShapeOverlapsItself) {
  for (const auto& shape : thinShapes(2 * thinKinds().size(), 3)) expectNoSelfOverlap(shape, 400);
}

TEST(ThinShapes, BentSheetsNeverCrossThemselves) {
  // Bends of up to 160 degrees can bring a strip back across itself; those are drawn again.
  const std::size_t bent = std::find(thinKinds().begin(), thinKinds().end(), "bentsheet") - thinKinds().begin();
  for (std::uint64_t seed : {1, 2, 3, 7}) {
    const auto shapes = thinShapes(30 * thinKinds().size(), seed);
    for (std::size_t s = bent; s < shapes.size(); s += thinKinds().size()) expectNoSelfOverlap(shapes[s], 300);
  }
}

TEST(ThinShapes, BothFacesOfAWallFallIntoOneNeighbourhood) {
  // On a 5,000-point sample, many points have a point of the other face of their wall within
  // 0.06 (about a k = 64 neighbourhood's radius at 100,000 points): parallel normals (up to
  // sign) and an offset along them. The wedge is thin only near its edge.
  for (const auto& shape : thinShapes(thinKinds().size(), 5)) {
    if (shape.name.find("wedge") != std::string::npos) continue;
    SCOPED_TRACE(shape.name);
    const Cloud c = sample(shape.mesh, 5000, Density::Uniform, 0.0, 2);
    int close = 0;
    for (std::size_t i = 0; i < c.points.size(); ++i)
      for (std::size_t j = 0; j < c.points.size(); ++j) {
        double d2 = 0, dot = 0, along = 0;
        for (int k = 0; k < 3; ++k) {
          const double offset = c.points[j][k] - c.points[i][k];
          d2 += offset * offset;
          dot += c.normals[i][k] * c.normals[j][k];
          along += offset * c.normals[i][k];
        }
        if (d2 < 0.06 * 0.06 && d2 > 1e-8 && std::fabs(dot) > 0.7 && along * along > 0.5 * d2) {
          ++close;
          break;
        }
      }
    EXPECT_GT(close, 1000) << close;
  }
}

TEST(ProceduralShapes, SeedsAreReproducibleAndDistinct) {
  const auto a = proceduralShapes(4, 7), b = proceduralShapes(4, 7), c = proceduralShapes(4, 8);
  for (std::size_t s = 0; s < a.size(); ++s) {
    EXPECT_EQ(a[s].mesh.vertices, b[s].mesh.vertices);
    EXPECT_NE(a[s].mesh.vertices, c[s].mesh.vertices);
  }
}

}  // namespace
