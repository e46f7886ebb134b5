// orientNormals on shapes whose outward normals are known: the normals' signs are scrambled and
// must come back facing out.
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/orientation/orientation_propagation.h"

namespace {

using pcl_dise::OrientationOptions;
using pcl_dise::OrientationReport;
using pcl_dise::orientNormals;

// points and their outward normals, N×3 each
struct Shape {
  std::vector<float> points, outward;
  void add(float x, float y, float z, float nx, float ny, float nz) {
    points.insert(points.end(), {x, y, z});
    const float length = std::sqrt(nx * nx + ny * ny + nz * nz);
    outward.insert(outward.end(), {nx / length, ny / length, nz / length});
  }
  std::size_t size() const { return points.size() / 3; }
  void append(const Shape& other, float dx) {
    for (std::size_t i = 0; i < other.size(); ++i)
      add(other.points[3 * i] + dx, other.points[3 * i + 1], other.points[3 * i + 2], other.outward[3 * i],
          other.outward[3 * i + 1], other.outward[3 * i + 2]);
  }
};

Shape sphere(int n, unsigned seed = 1) {
  std::mt19937 random(seed);
  std::normal_distribution<float> gauss;
  Shape s;
  for (int i = 0; i < n; ++i) {
    float v[3] = {gauss(random), gauss(random), gauss(random)};
    const float r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    s.add(v[0] / r, v[1] / r, v[2] / r, v[0], v[1], v[2]);
  }
  return s;
}

// A box of sides sx × sy × sz centred at the origin, points uniform over its area.
Shape box(int n, float sx, float sy, float sz, unsigned seed = 2) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> unit(-0.5f, 0.5f);
  const float area[3] = {sy * sz, sx * sz, sx * sy};  // faces facing x, y, z
  std::discrete_distribution<int> face({area[0], area[0], area[1], area[1], area[2], area[2]});
  Shape s;
  for (int i = 0; i < n; ++i) {
    const int f = face(random), axis = f / 2;
    const float sign = f % 2 ? 1.f : -1.f;
    float p[3] = {unit(random) * sx, unit(random) * sy, unit(random) * sz};
    const float half[3] = {sx / 2, sy / 2, sz / 2};
    p[axis] = sign * half[axis];
    float n3[3] = {0, 0, 0};
    n3[axis] = sign;
    s.add(p[0], p[1], p[2], n3[0], n3[1], n3[2]);
  }
  return s;
}

Shape torus(int n, float major, float minor, unsigned seed = 3) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> angle(0.f, 6.2831853f);
  Shape s;
  for (int i = 0; i < n; ++i) {
    const float u = angle(random), v = angle(random);
    const float nx = std::cos(v) * std::cos(u), ny = std::cos(v) * std::sin(u), nz = std::sin(v);
    s.add(major * std::cos(u) + minor * nx, major * std::sin(u) + minor * ny, minor * nz, nx, ny, nz);
  }
  return s;
}

// The surface of a union of axis-aligned boxes ({lower, upper} corners), points uniform over its
// area at about `spacing` apart: each box's faces, less what lies inside another box.
Shape boxUnion(const std::vector<std::array<float, 6>>& boxes, float spacing, unsigned seed = 9) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  auto inside = [&](const float* p, std::size_t own) {
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      if (b == own) continue;
      bool in = true;
      for (int a = 0; a < 3; ++a) in = in && p[a] >= boxes[b][a] && p[a] <= boxes[b][3 + a];
      if (in) return true;
    }
    return false;
  };
  Shape s;
  for (std::size_t b = 0; b < boxes.size(); ++b)
    for (int axis = 0; axis < 3; ++axis)
      for (const int side : {0, 1}) {
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        const float size_u = boxes[b][3 + u] - boxes[b][u], size_v = boxes[b][3 + v] - boxes[b][v];
        const int n = static_cast<int>(size_u * size_v / (spacing * spacing));
        for (int i = 0; i < n; ++i) {
          float p[3], normal[3] = {0, 0, 0};
          p[axis] = boxes[b][3 * side + axis];
          p[u] = boxes[b][u] + unit(random) * size_u;
          p[v] = boxes[b][v] + unit(random) * size_v;
          normal[axis] = side ? 1.f : -1.f;
          if (!inside(p, b)) s.add(p[0], p[1], p[2], normal[0], normal[1], normal[2]);
        }
      }
  return s;
}

// A heat sink: a base plate 1 × 0.8 × 0.05 and five fins 0.4 high, `fin` thick, 0.15 apart.
Shape finnedPlate(float fin, float spacing) {
  std::vector<std::array<float, 6>> boxes{{0.f, 0.f, 0.f, 1.f, 0.8f, 0.05f}};
  for (int f = 0; f < 5; ++f) {
    const float x = 0.15f + 0.15f * f;
    boxes.push_back({x, 0.f, 0.05f, x + fin, 0.8f, 0.45f});
  }
  return boxUnion(boxes, spacing);
}

// The outward normals with random signs.
std::vector<float> scrambled(const Shape& s, unsigned seed = 7) {
  std::mt19937 random(seed);
  std::vector<float> normals = s.outward;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (random() % 2)
      for (int a = 0; a < 3; ++a) normals[3 * i + a] = -normals[3 * i + a];
  return normals;
}

// The share of the points that `counted` accepts (all by default) whose normal faces out, and how
// many it accepted.
double fractionOutward(const Shape& s, const std::vector<float>& normals,
                       const std::function<bool(std::size_t)>& counted = nullptr, std::size_t* points = nullptr) {
  std::size_t out = 0, total = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (counted && !counted(i)) continue;
    const float* n = &normals[3 * i];
    const float* o = &s.outward[3 * i];
    out += n[0] * o[0] + n[1] * o[1] + n[2] * o[2] > 0.f;
    ++total;
  }
  if (points) *points = total;
  return total ? static_cast<double>(out) / double(total) : 0.0;
}

double orientedOutward(const Shape& s, const OrientationOptions& options = {}, OrientationReport* report = nullptr) {
  std::vector<float> normals = scrambled(s);
  const OrientationReport r = orientNormals(s.points.data(), normals.data(), s.size(), options);
  if (report) *report = r;
  return fractionOutward(s, normals);
}

TEST(OrientNormals, SphereFacesOut) {
  OrientationReport report;
  EXPECT_EQ(orientedOutward(sphere(3000), {}, &report), 1.0);
  EXPECT_EQ(report.oriented, 3000u);
  EXPECT_EQ(report.parts, 1u);
  EXPECT_EQ(report.without_normal, 0u);
}

TEST(OrientNormals, BoxWithSharpNormalsFacesOut) {
  // Sharp normals turn by 90 degrees at the edges, where Hoppe's 1 - |n_i . n_j| cannot tell the sign.
  EXPECT_EQ(orientedOutward(box(6000, 1.f, 1.5f, 0.7f)), 1.0);
}

TEST(OrientNormals, TorusFacesOut) { EXPECT_EQ(orientedOutward(torus(8000, 1.f, 0.3f)), 1.0); }

TEST(OrientNormals, SeparateObjectsAreSeededEachOnItsOwn) {
  Shape two = sphere(2000);
  two.append(torus(4000, 1.f, 0.3f), 5.f);
  OrientationReport report;
  EXPECT_EQ(orientedOutward(two, {}, &report), 1.0);
  EXPECT_EQ(report.parts, 2u);
}

TEST(OrientNormals, ThinPlateKeepsItsTwoSidesApart) {
  // Points about 1.6 cm apart (sqrt(area / n)), the plate 2 cm thick: each point's 10 nearest
  // reach 2.8 cm and take in points of the other side, whose normals point the other way.
  const Shape plate = box(8000, 1.f, 1.f, 0.02f);
  OrientationReport report;
  EXPECT_EQ(orientedOutward(plate, {}, &report), 1.0);
  EXPECT_EQ(report.sheet_crossings, 0u);
}

TEST(OrientNormals, PlateThinnerThanThePointSpacingKeepsItsTwoSidesApart) {
  // 1.2 cm thick, points 1.6 cm apart: most chords to the other side are longer than the plate is
  // thick, and read as one slanted plane they would join the sides with one sign. They are two
  // layers: each end lies off the other's tangent plane by more than its own neighbours do.
  const Shape plate = box(8000, 1.f, 1.f, 0.012f);
  EXPECT_GE(orientedOutward(plate), 0.99);
}

TEST(OrientNormals, FinsThinnerThanThePointSpacingJoinTheirBaseFacingOutOnClosedShapes) {
  // Fins 0.8 cm thick, points 1 cm apart: the tree joins about a quarter of the fins' faces to the
  // base through a fin (74% facing out); told the cloud samples a closed shape, rays from each
  // face see the fin's far face and flip the faces that point in.
  const Shape plate = finnedPlate(0.008f, 0.01f);
  OrientationReport tree_report, closed_report;
  OrientationOptions closed;
  closed.closed = true;
  const double by_tree = orientedOutward(plate, {}, &tree_report);
  const double with_parity = orientedOutward(plate, closed, &closed_report);
  std::printf("finned plate, %zu points: %.4f facing out by the tree alone, %.4f with ray parity\n", plate.size(),
              by_tree, with_parity);
  EXPECT_EQ(tree_report.parity_flipped, 0u);
  EXPECT_GE(with_parity, 0.99);
  EXPECT_GT(closed_report.parity_flipped, 0u);
}

TEST(OrientNormals, ParityLeavesAnOpenSurfaceAlone) {
  // A saddle has no inside: rays both ways cross nothing, no point votes, the tree's sign stays,
  // even where the caller says the cloud is closed.
  Shape saddle;
  for (int i = 0; i < 100; ++i)
    for (int j = 0; j < 100; ++j) {
      const float x = i * 0.01f - 0.5f, y = j * 0.01f - 0.5f;
      saddle.add(x, y, x * x - y * y, -2 * x, 2 * y, 1.f);
    }
  OrientationOptions closed;
  closed.closed = true;
  OrientationReport report;
  EXPECT_EQ(orientedOutward(saddle, closed, &report), 1.0);
  EXPECT_EQ(report.parity_flipped, 0u);
}

TEST(OrientNormals, NoisyNormalsOnASphere) {
  Shape s = sphere(5000, 4);
  std::mt19937 random(5);
  std::normal_distribution<float> gauss(0.f, 0.15f);
  for (float& n : s.outward) n += gauss(random);  // about 10 degrees of error
  EXPECT_GE(orientedOutward(s), 0.999);
}

// Positions displaced along random directions by a deviation of `deviation`, the true normals kept
// (as the validation set's noisy clouds are made), and normals off by about `normal_error` radians.
Shape noisy(Shape s, float deviation, float normal_error, unsigned seed = 11) {
  std::mt19937 random(seed);
  std::normal_distribution<float> gauss;
  for (float& p : s.points) p += deviation * gauss(random);
  for (float& n : s.outward) n += normal_error * gauss(random);
  return s;
}

// The true normals (noise included), every other one flipped: scrambled() would flip them along
// with their noise.
std::vector<float> alternated(const Shape& s) {
  std::vector<float> normals = s.outward;
  for (std::size_t i = 1; i < s.size(); i += 2)
    for (int a = 0; a < 3; ++a) normals[3 * i + a] = -normals[3 * i + a];
  return normals;
}

// Orients the shape's alternated true normals (into `normals`) as a closed shape.
OrientationReport orientAlternatedAsClosed(const Shape& s, std::vector<float>& normals) {
  normals = alternated(s);
  OrientationOptions options;
  options.closed = true;
  return orientNormals(s.points.data(), normals.data(), s.size(), options);
}

// Under noise near the spacing (a deviation of 1.4% of the size, PCPNet's noise 1e-1), the tree
// alone joins faces with opposite signs; the outside grid decides each point's side.
TEST(OrientNormals, ClosedShapesUnderHeavyNoiseFaceOut) {
  const Shape shapes[] = {noisy(box(30000, 1.f, 1.5f, 0.7f), 0.021f, 0.25f),
                          noisy(torus(30000, 1.f, 0.35f), 0.036f, 0.25f)};
  for (const Shape& s : shapes) {
    std::vector<float> normals;
    const OrientationReport report = orientAlternatedAsClosed(s, normals);
    EXPECT_TRUE(report.outside_grid);
    EXPECT_GT(report.grid_cell, 0.f);
    EXPECT_GE(fractionOutward(s, normals), 0.97);
    EXPECT_LT(report.undecided, s.size() / 20);
  }
}

// A dense sphere and a sparse one beside it, oriented as closed shapes; their report.
OrientationReport expectTwoSpheresFaceOut(int dense, int sparse) {
  Shape two = sphere(dense, 5);
  two.append(sphere(sparse, 6), 3.f);
  OrientationOptions options;
  options.closed = true;
  OrientationReport report;
  EXPECT_EQ(orientedOutward(two, options, &report), 1.0);
  EXPECT_TRUE(report.outside_grid);
  EXPECT_LT(report.undecided, two.size() / 100);
  return report;
}

// A band that closes a dense shape can leak around a sparse one: the grid on which most points
// vote decides, not the first that encloses a volume (the sparse sphere's walks would leave both
// ways and its points stay undecided).
TEST(OrientNormals, TheGridWhereMostPointsVoteClosesASparsePartToo) { expectTwoSpheresFaceOut(19000, 1000); }

// Eight unit spheres in a row, 0.002 apart, about 0.1 between points (as the bones of a hand
// skeleton at their joints): the outside grid's band fills the gaps, so the walks from the points
// around each gap stay in it and many points are unsure. Their side comes from the winding number
// of the sure points nearby (step 10): 97.8% facing out, 95.2% without.
TEST(OrientNormals, PointsTheGridLeavesUnsureReadTheWindingNumberOfTheSureOnes) {
  Shape chain;
  for (int b = 0; b < 8; ++b) chain.append(sphere(1200, 20 + b), b * 2.002f);
  OrientationOptions options;
  options.closed = true;
  OrientationReport report;
  EXPECT_GE(orientedOutward(chain, options, &report), 0.97);
  EXPECT_TRUE(report.outside_grid);
  EXPECT_GT(report.winding_flipped, 0u);
}

// Six unit spheres in a row, 0.05 apart, under noise of deviation 0.05 (about the point spacing,
// as the hand skeleton's bones under noise 5e-2): the noise rules out ray parity and the winding
// number (steps 8 and 10), and the outside grid's band fills the gaps, so from the points around
// them neither walk gets out. The walk that first enters the volume the band encloses is the inward
// one: 96.1% of the points within 0.3 of a gap face out, 34 points undecided; without that vote
// 1,764 points stay undecided and 91.4% of those near the gaps face out.
TEST(OrientNormals, WhereNeitherWalkGetsOutUnderNoiseTheNearerInsideDecides) {
  constexpr float kGap = 0.05f;
  Shape chain;
  for (int b = 0; b < 6; ++b) chain.append(sphere(8000, 40 + b), b * (2.f + kGap));
  const Shape s = noisy(chain, 0.05f, 0.25f);
  std::vector<float> normals;
  const OrientationReport report = orientAlternatedAsClosed(s, normals);
  ASSERT_TRUE(report.outside_grid);
  EXPECT_FALSE(report.parity_checked);
  EXPECT_LT(report.undecided, s.size() / 200);
  std::size_t near_gaps = 0;
  const double near_out = fractionOutward(
      s, normals,
      [&](std::size_t i) {
        const float period = 2.f + kGap, x = s.points[3 * i] - 1.f - 0.5f * kGap;  // gaps at x = period k
        return std::abs(x - period * std::round(x / period)) < 0.3f && x > -0.5f * period && x < 4.5f * period;
      },
      &near_gaps);
  EXPECT_GT(near_gaps, 10000u);
  EXPECT_GE(near_out, 0.95);
  EXPECT_GE(fractionOutward(s, normals), 0.988);
}

// A thin tube, sparse and noisy (as a knot at 15,000 points under noise 1e-1): no band both closes
// and leaves half the points voting, and the noise is too large for ray parity. The grid on which
// most points vote is still used where at least 40% do; the tree alone leaves the tube half and half.
TEST(OrientNormals, AThinNoisyTubeTakesAGridWhereFewerThanHalfVote) {
  const Shape tube = noisy(torus(8000, 1.f, 0.15f), 0.025f, 0.25f);
  std::vector<float> normals;
  const OrientationReport report = orientAlternatedAsClosed(tube, normals);
  EXPECT_TRUE(report.outside_grid);
  EXPECT_FALSE(report.parity_checked);
  EXPECT_GE(fractionOutward(tube, normals), 0.97);
}

// A fin thinner than the walks (0.02, under noise of deviation 0.006) on a block: from its faces
// both walks get out, neither alone; the nearer exit still says which face a point lies on. Without
// it half the fin's points have no vote and keep the tree's signs, which the noise leaves mixed
// (75% of the fin facing out).
TEST(OrientNormals, TheNearerExitDecidesAWallThinnerThanTheWalks) {
  const std::array<float, 6> block{0.f, 0.f, 0.f, 1.f, 1.f, 1.f}, fin{0.3f, 0.49f, 1.f, 0.7f, 0.51f, 1.5f};
  const Shape s = noisy(boxUnion({block, fin}, 0.012f), 0.006f, 0.25f);
  std::vector<float> normals;
  const OrientationReport report = orientAlternatedAsClosed(s, normals);
  ASSERT_TRUE(report.outside_grid);
  std::size_t on_fin = 0;  // the fin's faces above the block
  const double fin_out = fractionOutward(
      s, normals, [&](std::size_t i) { return s.points[3 * i + 2] >= 1.05f; }, &on_fin);
  ASSERT_GT(on_fin, 1000u);
  EXPECT_GE(fin_out, 0.85);
  EXPECT_LT(report.undecided, on_fin / 10);
  EXPECT_GE(fractionOutward(s, normals), 0.97);
}

// A closed slab thinner than the noise's spread (0.02 thick, deviation 0.006): no band encloses a
// volume and the noise rules out ray parity. Each point's side comes from the middle of its wall,
// the centroid of its 64 nearest points; the tree alone leaves the two faces mixed.
TEST(OrientNormals, ThinNoisyWallsTakeTheirSidesFromTheWallsMiddle) {
  const Shape slab = noisy(box(40000, 1.f, 1.f, 0.02f), 0.006f, 0.25f);
  std::vector<float> normals;
  const OrientationReport report = orientAlternatedAsClosed(slab, normals);
  EXPECT_FALSE(report.outside_grid);
  EXPECT_FALSE(report.parity_checked);
  EXPECT_TRUE(report.wall_middles);
  // The two large faces (the rims are as thick as the noise).
  EXPECT_GE(fractionOutward(slab, normals, [&](std::size_t i) { return std::abs(slab.outward[3 * i + 2]) >= 0.5f; }),
            0.85);
}

// Fins two spacings thick on a thick base: the outside grid encloses the base, but the walks from
// the fins' faces get out on both sides or on neither, and few of the fins' points have a clear
// vote of their own (95.4% of the points facing out on the grid alone). Ray parity checks those
// patches as it checks a shape without a grid.
TEST(OrientNormals, RayParityChecksThePatchesTheGridLeavesUnsure) {
  std::vector<std::array<float, 6>> boxes{{0.f, 0.f, 0.f, 1.f, 0.8f, 0.3f}};
  for (int f = 0; f < 5; ++f) {
    const float x = 0.15f + 0.15f * f;
    boxes.push_back({x, 0.f, 0.3f, x + 0.02f, 0.8f, 0.4f});
  }
  const Shape sink = boxUnion(boxes, 0.01f);
  OrientationOptions options;
  options.closed = true;
  OrientationReport report;
  const double outward = orientedOutward(sink, options, &report);
  EXPECT_TRUE(report.outside_grid);
  EXPECT_TRUE(report.parity_checked);
  EXPECT_GT(report.parity_flipped, 0u);
  EXPECT_GE(outward, 0.99);
}

// Where each neighbourhood reaches one face only (here a noisy open sheet: no volume for a grid,
// noise too large for ray parity), the wall middles would vote the noise's way: the sample of 2^15
// points says so before every point is searched, and the tree's sides stay as they were.
TEST(OrientNormals, ASheetWhoseNeighbourhoodsShowOneFaceKeepsTheTreesSides) {
  Shape sheet;
  for (int i = 0; i < 200; ++i)
    for (int j = 0; j < 200; ++j) sheet.add(i * 0.01f, j * 0.01f, 0.f, 0.f, 0.f, 1.f);
  sheet = noisy(sheet, 0.01f, 0.3f);
  std::vector<float> tree = alternated(sheet), closed = tree;
  OrientationOptions options;
  orientNormals(sheet.points.data(), tree.data(), sheet.size(), options);
  options.closed = true;
  const OrientationReport report = orientNormals(sheet.points.data(), closed.data(), sheet.size(), options);
  EXPECT_FALSE(report.outside_grid);
  EXPECT_FALSE(report.parity_checked);
  EXPECT_FALSE(report.wall_middles);
  EXPECT_EQ(closed, tree);
}

// Above 2^17 points the grids are compared on a sample, and the chosen grid's walks then run from
// every point: the same sides as on a smaller cloud.
TEST(OrientNormals, LargeCloudsCompareGridsOnASampleAndVoteEverywhere) {
  const OrientationReport report = expectTwoSpheresFaceOut(190000, 10000);
  EXPECT_LT(report.low_confidence, 2000u);  // each point's own walks vote, not only the sample's
}

// The confidence says where the side is least sure: high on a clean closed shape, lower under
// heavy noise, and its low values find the points that came out wrong more often than the rest.
TEST(OrientNormals, ConfidenceIsHighWhereTheSideIsClearAndLowWhereItIsWrong) {
  OrientationOptions options;
  options.closed = true;
  const Shape clean = box(20000, 1.f, 1.5f, 0.7f);
  std::vector<float> normals = scrambled(clean), confidence(clean.size());
  OrientationReport report =
      orientNormals(clean.points.data(), normals.data(), clean.size(), options, confidence.data());
  std::size_t low = 0;
  for (float c : confidence) {
    ASSERT_TRUE(c >= 0.f && c <= 1.f) << c;
    low += c < 0.5f;
  }
  EXPECT_EQ(report.low_confidence, low);
  EXPECT_LT(low, clean.size() / 50);

  const Shape heavy = noisy(torus(30000, 1.f, 0.35f), 0.05f, 0.5f);
  normals = alternated(heavy);
  confidence.assign(heavy.size(), 0.f);
  report = orientNormals(heavy.points.data(), normals.data(), heavy.size(), options, confidence.data());
  EXPECT_GT(report.low_confidence, low);
  // The share of wrong sides among the least sure points exceeds the share among the others.
  std::size_t wrong_low = 0, all_low = 0, wrong_high = 0, all_high = 0;
  for (std::size_t i = 0; i < heavy.size(); ++i) {
    const float* n = &normals[3 * i];
    const float* o = &heavy.outward[3 * i];
    const bool wrong = n[0] * o[0] + n[1] * o[1] + n[2] * o[2] < 0.f;
    (confidence[i] < 0.5f ? wrong_low : wrong_high) += wrong;
    (confidence[i] < 0.5f ? all_low : all_high) += 1;
  }
  ASSERT_GT(all_low, 0u);
  ASSERT_GT(all_high, 0u);
  EXPECT_GT(double(wrong_low) / double(all_low), double(wrong_high) / double(all_high));
}

TEST(OrientNormals, ConfidenceIsNanWithoutANormal) {
  const Shape s = sphere(2000);
  std::vector<float> normals = scrambled(s), confidence(s.size());
  for (int a = 0; a < 3; ++a) normals[3 * 5 + a] = NAN;
  orientNormals(s.points.data(), normals.data(), s.size(), {}, confidence.data());
  EXPECT_TRUE(std::isnan(confidence[5]));
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i != 5) {
      EXPECT_TRUE(confidence[i] >= 0.f && confidence[i] <= 1.f);
    }
}

TEST(OrientNormals, TheOutsideGridKeepsASeedGivenInward) {
  // A room scanned from inside: the seed says inward, the grid must not turn the walls outward.
  const Shape s = box(20000, 2.f, 2.f, 1.f);
  std::vector<float> normals = scrambled(s);
  const float* o = &s.outward[0];
  if (normals[0] * o[0] + normals[1] * o[1] + normals[2] * o[2] > 0)
    for (int a = 0; a < 3; ++a) normals[a] = -normals[a];
  OrientationOptions options;
  options.closed = true;
  options.seed_index = 0;
  const OrientationReport report = orientNormals(s.points.data(), normals.data(), s.size(), options);
  EXPECT_TRUE(report.outside_grid);
  EXPECT_LE(fractionOutward(s, normals), 0.001);
}

TEST(OrientNormals, HolesAndALargeCoplanarPartFinishAndFaceUp) {
  Shape plane;
  for (int i = 0; i < 150; ++i)
    for (int j = 0; j < 150; ++j) {
      const float x = i * 0.01f, y = j * 0.01f;
      const bool in_hole = std::hypot(x - 0.4f, y - 0.4f) < 0.15f || std::hypot(x - 1.1f, y - 0.9f) < 0.2f;
      if (!in_hole) plane.add(x, y, 0.f, 0.f, 0.f, 1.f);
    }
  OrientationReport report;
  EXPECT_EQ(orientedOutward(plane, {}, &report), 1.0);  // an open surface faces its seed's side: +z
  EXPECT_EQ(report.parts, 1u);
}

TEST(OrientNormals, ViewpointSeedsEveryPart) {
  // Two spheres and a viewpoint below them: the outward side still comes out (the nearest point faces
  // the viewpoint), where the topmost rule agrees.
  Shape two = sphere(2000);
  two.append(sphere(2000, 9), 4.f);
  OrientationOptions options;
  options.has_viewpoint = true;
  options.viewpoint = {2.f, 0.f, -10.f};
  EXPECT_EQ(orientedOutward(two, options), 1.0);
  // An open plane seen from below faces down.
  Shape plane;
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 40; ++j) plane.add(i * 0.02f, j * 0.02f, 0.f, 0.f, 0.f, -1.f);
  EXPECT_EQ(orientedOutward(plane, options), 1.0);
}

TEST(OrientNormals, AUserSeedKeepsItsNormal) {
  const Shape s = sphere(2000);
  std::vector<float> normals = scrambled(s);
  // Point 10's normal as given points inward (or outward): the whole sphere follows it.
  OrientationOptions options;
  options.seed_index = 10;
  const float* o = &s.outward[30];
  const bool seed_outward = normals[30] * o[0] + normals[31] * o[1] + normals[32] * o[2] > 0.f;
  orientNormals(s.points.data(), normals.data(), s.size(), options);
  EXPECT_EQ(fractionOutward(s, normals), seed_outward ? 1.0 : 0.0);
}

TEST(OrientNormals, ASeedGivenInwardTurnsTheParityVoteInward) {
  // The heat sink of FinsThinnerThanThePointSpacing..., its seed point's normal given inward: the
  // rays then flip the faces that point out, so that all face in as the seed does.
  const Shape plate = finnedPlate(0.008f, 0.01f);
  std::vector<float> normals = scrambled(plate);
  OrientationOptions options;
  options.closed = true;
  options.seed_index = 0;
  for (int a = 0; a < 3; ++a) normals[a] = -plate.outward[a];
  const OrientationReport report = orientNormals(plate.points.data(), normals.data(), plate.size(), options);
  EXPECT_LE(fractionOutward(plate, normals), 0.01);
  EXPECT_GT(report.parity_flipped, 0u);
}

TEST(OrientNormals, NanNormalsAreLeftAndReported) {
  Shape s = sphere(2000);
  std::vector<float> normals = scrambled(s);
  for (int i = 0; i < 2000; i += 100) normals[3 * i] = NAN;
  s.points[3 * 5 + 1] = INFINITY;
  OrientationReport report = orientNormals(s.points.data(), normals.data(), s.size());
  EXPECT_EQ(report.without_normal, 21u);
  EXPECT_EQ(report.oriented, 1979u);
  std::size_t out = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i % 100 == 0) {
      EXPECT_TRUE(std::isnan(normals[3 * i]));
      continue;
    }
    out += normals[3 * i] * s.outward[3 * i] + normals[3 * i + 1] * s.outward[3 * i + 1] +
               normals[3 * i + 2] * s.outward[3 * i + 2] >
           0.f;
  }
  EXPECT_EQ(out, 1979u);
}

TEST(OrientNormals, DegenerateCloudsGiveAReportNotACrash) {
  OrientationReport report = orientNormals(nullptr, nullptr, 0);
  EXPECT_EQ(report.oriented + report.without_normal + report.parts, 0u);

  float point[3] = {1, 2, 3}, normal[3] = {0, 0, -2};
  report = orientNormals(point, normal, 1);
  EXPECT_EQ(report.parts, 1u);
  EXPECT_EQ(report.isolated, 1u);
  EXPECT_EQ(normal[2], 2.f);  // faces +z, length kept

  std::vector<float> points = {0, 0, 0, 1, 1, 1, 2, 2, 2}, nan_normals(9, NAN);
  report = orientNormals(points.data(), nan_normals.data(), 3);
  EXPECT_EQ(report.oriented, 0u);
  EXPECT_EQ(report.without_normal, 3u);

  // Points far apart: every one joins the graph through its nearest others.
  Shape scattered;
  for (int i = 0; i < 5; ++i) scattered.add(100.f * i, -50.f * i, 7.f * i * i, 0.f, 0.f, 1.f);
  EXPECT_EQ(orientedOutward(scattered), 1.0);

  OrientationOptions bad;
  bad.neighbors = 0;
  EXPECT_THROW(orientNormals(point, normal, 1, bad), std::invalid_argument);
  bad.neighbors = 10;
  bad.seed_index = 1;
  EXPECT_THROW(orientNormals(point, normal, 1, bad), std::invalid_argument);
}

// Known neighbourhoods as an estimation keeps them: the 65 nearest of every point in rows numbered
// backwards, the points without a normal left out of every row (their own rows empty), and every
// `short_every`-th row cut to 5 entries (too few for the graph: searched instead).
struct EstimationRows {
  pcl_dise::Neighborhoods rows;
  std::vector<std::int32_t> point_of_row;
  pcl_dise::KnownNeighborhoods known() const { return {&rows, point_of_row.data()}; }
};

EstimationRows estimationRows(const Shape& s, const std::vector<float>& normals, std::size_t short_every) {
  const std::size_t n = s.size();
  const pcl_dise::Neighborhoods nearest = pcl_dise::nearestNeighborGraph(s.points.data(), n, 65);
  auto row_of = [n](std::size_t point) { return static_cast<std::int32_t>(n - 1 - point); };
  std::vector<std::vector<std::int32_t>> rows(n);
  for (std::size_t p = 0; p < n; ++p) {
    std::vector<std::int32_t>& row = rows[std::size_t(row_of(p))];
    if (std::isnan(normals[3 * p])) continue;
    for (const std::int32_t* j = nearest.begin(p); j != nearest.begin(p) + nearest.size(p); ++j)
      if (!std::isnan(normals[3 * std::size_t(*j)])) row.push_back(row_of(std::size_t(*j)));
    if (short_every > 0 && p % short_every == 0) row.resize(5);
  }
  EstimationRows e{pcl_dise::Neighborhoods::fromRows(rows), std::vector<std::int32_t>(n)};
  for (std::size_t p = 0; p < n; ++p) e.point_of_row[std::size_t(row_of(p))] = static_cast<std::int32_t>(p);
  return e;
}

// Each path of a closed orientation (the outside grid with ray parity, the wall middles) and the
// tree alone give the same sides and confidences whether they search or read the rows.
TEST(OrientNormals, KnownNeighborhoodsGiveWhatTheSearchGives) {
  struct Case {
    Shape shape;
    bool closed;
  };
  const Case cases[] = {{noisy(torus(6000, 1.f, 0.3f), 0.002f, 0.1f), true},
                        {noisy(box(40000, 1.f, 1.f, 0.02f), 0.006f, 0.25f), true},
                        {noisy(sphere(3000), 0.003f, 0.2f), false}};
  for (const Case& c : cases) {
    std::vector<float> searched = alternated(c.shape);
    for (int a = 0; a < 3; ++a) searched[3 * 7 + a] = NAN;
    std::vector<float> read = searched, searched_confidence(c.shape.size()), read_confidence(c.shape.size());
    OrientationOptions options;
    options.closed = c.closed;
    const OrientationReport by_search =
        orientNormals(c.shape.points.data(), searched.data(), c.shape.size(), options, searched_confidence.data());
    const EstimationRows rows = estimationRows(c.shape, read, 10);
    const pcl_dise::KnownNeighborhoods known = rows.known();
    const OrientationReport by_rows =
        orientNormals(c.shape.points.data(), read.data(), c.shape.size(), options, read_confidence.data(), &known);
    EXPECT_EQ(by_search.wall_middles, by_rows.wall_middles);
    EXPECT_EQ(by_search.outside_grid, by_rows.outside_grid);
    EXPECT_EQ(by_search.flipped, by_rows.flipped);
    for (std::size_t i = 0; i < c.shape.size(); ++i) {
      if (i == 7) continue;
      ASSERT_EQ(searched[3 * i], read[3 * i]) << i;
      ASSERT_EQ(searched_confidence[i], read_confidence[i]) << i;
    }
  }
}

// Rows from an estimation that left every third point without a normal, read by an orientation
// that has normals for them: the rows lack those points, so the orientation searches (the same
// sides and confidences as without rows).
TEST(OrientNormals, RowsThatLeaveOutPointsOrientedAreNotRead) {
  const Shape s = noisy(box(40000, 1.f, 1.f, 0.02f), 0.006f, 0.25f);
  std::vector<float> estimated = alternated(s);
  for (std::size_t i = 0; i < s.size(); i += 3)
    for (int a = 0; a < 3; ++a) estimated[3 * i + a] = NAN;
  const EstimationRows rows = estimationRows(s, estimated, 0);
  const pcl_dise::KnownNeighborhoods known = rows.known();
  std::vector<float> searched = alternated(s), read = searched, searched_confidence(s.size()),
                     read_confidence(s.size());
  OrientationOptions options;
  options.closed = true;
  orientNormals(s.points.data(), searched.data(), s.size(), options, searched_confidence.data());
  orientNormals(s.points.data(), read.data(), s.size(), options, read_confidence.data(), &known);
  EXPECT_EQ(searched, read);
  EXPECT_EQ(searched_confidence, read_confidence);
}

TEST(OrientNormals, KnownNeighborhoodsOutsideTheCloudAreRefused) {
  const Shape s = sphere(500);
  std::vector<float> normals = scrambled(s);
  EstimationRows rows = estimationRows(s, normals, 0);
  rows.point_of_row[3] = 500;
  pcl_dise::KnownNeighborhoods known = rows.known();
  EXPECT_THROW(orientNormals(s.points.data(), normals.data(), s.size(), {}, nullptr, &known), std::invalid_argument);
  rows = estimationRows(s, normals, 0);
  rows.rows.indices[10] = 500;
  known = rows.known();
  EXPECT_THROW(orientNormals(s.points.data(), normals.data(), s.size(), {}, nullptr, &known), std::invalid_argument);
}

TEST(OrientNormals, SameResultOnAnyNumberOfThreads) {
  const Shape s = torus(5000, 1.f, 0.25f);
  std::vector<float> one = scrambled(s), two = one;
  OrientationOptions options;
  options.threads = 1;
  orientNormals(s.points.data(), one.data(), s.size(), options);
  options.threads = 2;
  orientNormals(s.points.data(), two.data(), s.size(), options);
  EXPECT_EQ(one, two);
}

}  // namespace
