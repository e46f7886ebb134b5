#include "pcl_dise/train/procedural_shapes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

namespace pcl_dise {
namespace train {
namespace {

constexpr double kPi = 3.14159265358979323846;
using Point2 = std::array<double, 2>;

int addVertex(Mesh& m, double x, double y, double z) {
  m.vertices.push_back({x, y, z});
  return static_cast<int>(m.vertices.size()) - 1;
}

// A closed solid between z0 and z1 over `outline` (counter-clockwise, star-shaped about its
// centre (cx, cy)); the top is the outline scaled by top_scale about the centre (0: a pyramid).
void addPrism(Mesh& m, const std::vector<Point2>& outline, double cx, double cy, double z0, double z1,
              double top_scale = 1.0, int solid = -1) {
  const int n = static_cast<int>(outline.size());
  const int bottom_centre = addVertex(m, cx, cy, z0), top_centre = addVertex(m, cx, cy, z1);
  const int first = static_cast<int>(m.vertices.size());
  for (const auto& p : outline) addVertex(m, cx + p[0], cy + p[1], z0);
  const bool apex = top_scale == 0;  // the top ring collapses into the top centre
  if (!apex)
    for (const auto& p : outline) addVertex(m, cx + top_scale * p[0], cy + top_scale * p[1], z1);
  for (int i = 0; i < n; ++i) {
    const int j = (i + 1) % n;
    const int b0 = first + i, b1 = first + j;
    const int t0 = apex ? top_centre : first + n + i, t1 = apex ? top_centre : first + n + j;
    m.addTriangle(bottom_centre, b1, b0, solid);
    m.addTriangle(top_centre, t0, t1, solid);
    m.addTriangle(b0, b1, t1, solid);
    m.addTriangle(b0, t1, t0, solid);
  }
}

void addBox(Mesh& m, const std::array<double, 3>& lo, const std::array<double, 3>& hi, int solid = -1) {
  const double hx = 0.5 * (hi[0] - lo[0]), hy = 0.5 * (hi[1] - lo[1]);
  addPrism(m, {{hx, -hy}, {hx, hy}, {-hx, hy}, {-hx, -hy}}, 0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), lo[2], hi[2],
           1.0, solid);
}

std::vector<Point2> regularPolygon(int n, double radius) {
  std::vector<Point2> outline;
  for (int i = 0; i < n; ++i)
    outline.push_back({radius * std::cos(2 * kPi * i / n), radius * std::sin(2 * kPi * i / n)});
  return outline;
}

// Annulus between radii r (inner) and R (outer), extruded from z0 to z1.
void addPipe(Mesh& m, double r, double R, double z0, double z1, int segments) {
  const int first = static_cast<int>(m.vertices.size());
  for (double z : {z0, z1})
    for (double radius : {R, r})
      for (int i = 0; i < segments; ++i)
        addVertex(m, radius * std::cos(2 * kPi * i / segments), radius * std::sin(2 * kPi * i / segments), z);
  auto id = [&](int level, int ring, int i) { return first + (2 * level + ring) * segments + (i % segments); };
  for (int i = 0; i < segments; ++i) {
    for (int ring = 0; ring < 2; ++ring) {  // outer and inner walls
      m.addTriangle(id(0, ring, i), id(0, ring, i + 1), id(1, ring, i + 1));
      m.addTriangle(id(0, ring, i), id(1, ring, i + 1), id(1, ring, i));
    }
    for (int level = 0; level < 2; ++level) {  // annular caps
      m.addTriangle(id(level, 0, i), id(level, 0, i + 1), id(level, 1, i + 1));
      m.addTriangle(id(level, 0, i), id(level, 1, i + 1), id(level, 1, i));
    }
  }
}

// Superquadric |x/a|^(2/e2) ... : exponents e near 0 give flat faces with rounded edges.
void addSuperquadric(Mesh& m, double a, double b, double c, double e1, double e2, int rings, int segments) {
  auto spow = [](double v, double e) { return std::copysign(std::pow(std::abs(v), e), v); };
  const int south = addVertex(m, 0, 0, -c), north = addVertex(m, 0, 0, c);
  const int first = static_cast<int>(m.vertices.size());
  for (int i = 1; i < rings; ++i) {
    const double eta = -kPi / 2 + kPi * i / rings;
    for (int j = 0; j < segments; ++j) {
      const double omega = -kPi + 2 * kPi * j / segments;
      addVertex(m, a * spow(std::cos(eta), e1) * spow(std::cos(omega), e2),
                b * spow(std::cos(eta), e1) * spow(std::sin(omega), e2), c * spow(std::sin(eta), e1));
    }
  }
  auto id = [&](int ring, int j) { return first + ring * segments + (j % segments); };
  for (int j = 0; j < segments; ++j) {
    m.addTriangle(south, id(0, j + 1), id(0, j));
    m.addTriangle(north, id(rings - 2, j), id(rings - 2, j + 1));
    for (int i = 0; i + 1 < rings - 1; ++i) {
      m.addTriangle(id(i, j), id(i, j + 1), id(i + 1, j + 1));
      m.addTriangle(id(i, j), id(i + 1, j + 1), id(i + 1, j));
    }
  }
}

void addBipyramid(Mesh& m, int n, double radius, double height) {
  const int bottom = addVertex(m, 0, 0, -height), top = addVertex(m, 0, 0, height);
  const int first = static_cast<int>(m.vertices.size());
  for (const auto& p : regularPolygon(n, radius)) addVertex(m, p[0], p[1], 0);
  for (int i = 0; i < n; ++i) {
    m.addTriangle(top, first + i, first + (i + 1) % n);
    m.addTriangle(bottom, first + (i + 1) % n, first + i);
  }
}

// The 20 faces are the triples of mutually adjacent vertices (edge length 2).
void addIcosahedron(Mesh& m) {
  const double phi = (1 + std::sqrt(5.0)) / 2;
  const int first = static_cast<int>(m.vertices.size());
  for (double s : {-1.0, 1.0})
    for (double t : {-phi, phi}) {
      addVertex(m, 0, s, t);
      addVertex(m, s, t, 0);
      addVertex(m, t, 0, s);
    }
  auto adjacent = [&](int i, int j) {
    double d = 0;
    for (int k = 0; k < 3; ++k) d += std::pow(m.vertices[first + i][k] - m.vertices[first + j][k], 2);
    return std::abs(d - 4) < 1e-9;
  };
  for (int i = 0; i < 12; ++i)
    for (int j = i + 1; j < 12; ++j)
      for (int k = j + 1; k < 12; ++k)
        if (adjacent(i, j) && adjacent(j, k) && adjacent(i, k)) m.addTriangle(first + i, first + j, first + k);
}

void scale(Mesh& m, double sx, double sy, double sz) {
  for (auto& v : m.vertices) v = {v[0] * sx, v[1] * sy, v[2] * sz};
}

// A uniformly random rotation (from a random unit quaternion).
void rotate(Mesh& m, std::mt19937_64& rng) {
  std::normal_distribution<double> gauss;
  double q[4], len = 0;
  for (auto& c : q) {
    c = gauss(rng);
    len += c * c;
  }
  len = std::sqrt(len);
  const double w = q[0] / len, x = q[1] / len, y = q[2] / len, z = q[3] / len;
  const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                          {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                          {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  for (auto& v : m.vertices) {
    const std::array<double, 3> p = v;
    for (int i = 0; i < 3; ++i) v[i] = r[i][0] * p[0] + r[i][1] * p[1] + r[i][2] * p[2];
  }
}

// Adds the triangles (a, b, c), (a, c, d) of a planar quad, wound so that their normal points
// along `outward`.
void addQuadFacing(Mesh& m, int a, int b, int c, int d, const std::array<double, 3>& outward) {
  const auto& pa = m.vertices[a];
  const auto& pb = m.vertices[b];
  const auto& pc = m.vertices[c];
  const double u[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]},
               w[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
  const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
  if (n[0] * outward[0] + n[1] * outward[1] + n[2] * outward[2] >= 0) {
    m.addTriangle(a, b, c);
    m.addTriangle(a, c, d);
  } else {
    m.addTriangle(a, c, b);
    m.addTriangle(a, d, c);
  }
}

// A solid made of the filled cells of a grid with uneven spacing: lines[axis] are its grid
// lines (ascending), filled(i, j, k) says which cells belong to it. Only the faces between a
// filled and an empty cell are surface; layouts must not let two cells touch along an edge only.
struct CellSolid {
  std::array<std::vector<double>, 3> lines;
  std::vector<char> cells;
  int size(int axis) const { return static_cast<int>(lines[axis].size()) - 1; }
  char& at(int i, int j, int k) { return cells[(k * size(1) + j) * size(0) + i]; }
  bool filled(int i, int j, int k) const {
    if (i < 0 || j < 0 || k < 0 || i >= size(0) || j >= size(1) || k >= size(2)) return false;
    return cells[(k * size(1) + j) * size(0) + i] != 0;
  }
};

CellSolid cellSolid(std::vector<double> x, std::vector<double> y, std::vector<double> z) {
  CellSolid s;
  s.lines = {std::move(x), std::move(y), std::move(z)};
  s.cells.assign(static_cast<std::size_t>(s.size(0)) * s.size(1) * s.size(2), 0);
  return s;
}

void addCellSolid(Mesh& m, const CellSolid& s) {
  std::map<std::array<int, 3>, int> nodes;
  auto node = [&](std::array<int, 3> g) {
    auto [it, added] = nodes.try_emplace(g, 0);
    if (added) it->second = addVertex(m, s.lines[0][g[0]], s.lines[1][g[1]], s.lines[2][g[2]]);
    return it->second;
  };
  for (int k = 0; k < s.size(2); ++k)
    for (int j = 0; j < s.size(1); ++j)
      for (int i = 0; i < s.size(0); ++i) {
        if (!s.filled(i, j, k)) continue;
        const std::array<int, 3> cell{i, j, k};
        for (int axis = 0; axis < 3; ++axis)
          for (int side : {0, 1}) {
            std::array<int, 3> next = cell;
            next[axis] += side ? 1 : -1;
            if (s.filled(next[0], next[1], next[2])) continue;
            const int u = (axis + 1) % 3, v = (axis + 2) % 3;
            std::array<int, 3> corner = cell;
            corner[axis] += side;
            std::array<int, 4> q;
            const int du[4] = {0, 1, 1, 0}, dv[4] = {0, 0, 1, 1};
            for (int c = 0; c < 4; ++c) {
              std::array<int, 3> g = corner;
              g[u] += du[c];
              g[v] += dv[c];
              q[c] = node(g);
            }
            std::array<double, 3> outward{0, 0, 0};
            outward[axis] = side ? 1 : -1;
            addQuadFacing(m, q[0], q[1], q[2], q[3], outward);
          }
      }
}

Point2 segmentNormal(const std::vector<Point2>& path, int i) {
  const double dx = path[i + 1][0] - path[i][0], dz = path[i + 1][1] - path[i][1], len = std::hypot(dx, dz);
  return Point2{-dz / len, dx / len};
}

// The offset direction at each vertex of a strip along `path`: mitred, scaled so that the strip
// keeps its thickness through each bend.
std::vector<Point2> mitreNormals(const std::vector<Point2>& path) {
  const int n = static_cast<int>(path.size());
  std::vector<Point2> normal(n);
  for (int i = 0; i < n; ++i) {
    if (i == 0 || i == n - 1) {
      normal[i] = segmentNormal(path, i == 0 ? 0 : n - 2);
      continue;
    }
    const Point2 a = segmentNormal(path, i - 1), b = segmentNormal(path, i);
    Point2 mid{a[0] + b[0], a[1] + b[1]};
    const double len = std::hypot(mid[0], mid[1]);
    mid = {mid[0] / len, mid[1] / len};
    const double cosine = mid[0] * a[0] + mid[1] * a[1];
    normal[i] = {mid[0] / cosine, mid[1] / cosine};
  }
  return normal;
}

double cross(const Point2& o, const Point2& a, const Point2& b) {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

double pointSegmentDistance(const Point2& p, const Point2& a, const Point2& b) {
  const double dx = b[0] - a[0], dz = b[1] - a[1], len2 = dx * dx + dz * dz;
  const double t = len2 > 0 ? std::clamp(((p[0] - a[0]) * dx + (p[1] - a[1]) * dz) / len2, 0.0, 1.0) : 0.0;
  return std::hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dz);
}

double segmentDistance(const Point2& a, const Point2& b, const Point2& c, const Point2& d) {
  const double abc = cross(a, b, c), abd = cross(a, b, d), cda = cross(c, d, a), cdb = cross(c, d, b);
  if (((abc > 0 && abd < 0) || (abc < 0 && abd > 0)) && ((cda > 0 && cdb < 0) || (cda < 0 && cdb > 0))) return 0;
  return std::min({pointSegmentDistance(a, c, d), pointSegmentDistance(b, c, d), pointSegmentDistance(c, a, b),
                   pointSegmentDistance(d, a, b)});
}

// Whether the strip's cross-section (the polygon around `path` at +-thickness / 2) is simple,
// with at least `clearance` between edges that do not share a vertex: a strip whose bends bring
// it back across itself, or whose mitres overrun a short segment, is not a solid.
bool stripIsSimple(const std::vector<Point2>& path, double thickness, double clearance) {
  const int n = static_cast<int>(path.size());
  const std::vector<Point2> normal = mitreNormals(path);
  std::vector<Point2> outline;  // one face forwards, the other backwards
  for (int i = 0; i < n; ++i)
    outline.push_back({path[i][0] + 0.5 * thickness * normal[i][0], path[i][1] + 0.5 * thickness * normal[i][1]});
  for (int i = n - 1; i >= 0; --i)
    outline.push_back({path[i][0] - 0.5 * thickness * normal[i][0], path[i][1] - 0.5 * thickness * normal[i][1]});
  const int edges = static_cast<int>(outline.size());
  for (int e = 0; e < edges; ++e)
    for (int f = e + 2; f < edges; ++f) {
      if (e == 0 && f == edges - 1) continue;  // they share the first vertex
      const Point2 &a = outline[e], &b = outline[(e + 1) % edges], &c = outline[f], &d = outline[(f + 1) % edges];
      if (segmentDistance(a, b, c, d) < clearance) return false;
    }
  return true;
}

// A strip of `thickness` along the polyline `path` (in the x-z plane), extruded along y over
// [0, width]: sheet metal bent at the polyline's corners (mitred, so each bend is a sharp edge).
void addThickPolyline(Mesh& m, const std::vector<Point2>& path, double thickness, double width) {
  const int n = static_cast<int>(path.size());
  const std::vector<Point2> normal = mitreNormals(path);
  const int first = static_cast<int>(m.vertices.size());
  auto id = [&](int i, int side, int end) { return first + 4 * i + 2 * side + end; };  // side 0: +normal
  for (int i = 0; i < n; ++i)
    for (int side : {0, 1})
      for (int end : {0, 1}) {
        const double o = (side ? -0.5 : 0.5) * thickness;
        addVertex(m, path[i][0] + o * normal[i][0], end * width, path[i][1] + o * normal[i][1]);
      }
  for (int i = 0; i + 1 < n; ++i) {
    const Point2 sn = segmentNormal(path, i);
    addQuadFacing(m, id(i, 0, 0), id(i + 1, 0, 0), id(i + 1, 0, 1), id(i, 0, 1), {sn[0], 0, sn[1]});
    addQuadFacing(m, id(i, 1, 0), id(i + 1, 1, 0), id(i + 1, 1, 1), id(i, 1, 1), {-sn[0], 0, -sn[1]});
    for (int end : {0, 1})
      addQuadFacing(m, id(i, 0, end), id(i + 1, 0, end), id(i + 1, 1, end), id(i, 1, end), {0, end ? 1.0 : -1.0, 0});
  }
  for (int i : {0, n - 1}) {
    const double dx = path[i == 0 ? 1 : n - 1][0] - path[i == 0 ? 0 : n - 2][0];
    const double dz = path[i == 0 ? 1 : n - 1][1] - path[i == 0 ? 0 : n - 2][1];
    const double sign = i == 0 ? -1 : 1;
    addQuadFacing(m, id(i, 0, 0), id(i, 1, 0), id(i, 1, 1), id(i, 0, 1), {sign * dx, 0, sign * dz});
  }
}

// A thin blade: a lens-shaped cross-section (half-width `chord`, thickness `thickness`) along z
// over [0, length], twisted by `twist` radians from end to end, capped at both ends.
void addTwistedBlade(Mesh& m, double chord, double thickness, double length, double twist) {
  const int around = 32, along = 96;
  const int first = static_cast<int>(m.vertices.size());
  std::vector<Point2> section;
  for (int a = 0; a < around; ++a) {
    const double t = 2 * kPi * a / around;
    section.push_back({chord * std::cos(t), 0.5 * thickness * std::sin(t)});
  }
  for (int s = 0; s <= along; ++s) {
    const double z = length * s / along, angle = twist * s / along, c = std::cos(angle), sn = std::sin(angle);
    for (const auto& p : section) addVertex(m, c * p[0] - sn * p[1], sn * p[0] + c * p[1], z);
  }
  auto id = [&](int s, int a) { return first + s * around + (a % around); };
  for (int s = 0; s < along; ++s)
    for (int a = 0; a < around; ++a) {
      const auto& p = m.vertices[id(s, a)];
      addQuadFacing(m, id(s, a), id(s, a + 1), id(s + 1, a + 1), id(s + 1, a), {p[0], p[1], 0});
    }
  for (int end : {0, along}) {
    const int centre = addVertex(m, 0, 0, length * end / along);
    for (int a = 0; a < around; ++a) {
      const auto& pa = m.vertices[id(end, a)];
      const auto& pb = m.vertices[id(end, a + 1)];
      const double cross = pa[0] * pb[1] - pa[1] * pb[0];  // > 0: counter-clockwise seen from +z
      if ((cross > 0) == (end > 0))
        m.addTriangle(centre, id(end, a), id(end, a + 1));
      else
        m.addTriangle(centre, id(end, a + 1), id(end, a));
    }
  }
}

// The thin shapes' random draws: uniform reals, integers, and a wall's thickness (walls this thin
// fall inside one k = 64 neighbourhood of a 100,000-point sample, both faces).
struct ThinDraws {
  std::mt19937_64& rng;
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  double thin() { return uniform(0.004, 0.03); }
};

// Each thin shape's draws are made one statement at a time, in the order the datasets so far were
// made with (GCC evaluated a call's arguments last to first; C++ leaves that order open).
void finnedPlate(ThinDraws& draw, Mesh& m) {
  const int fins = draw.integer(3, 7);
  const double fin = draw.thin(), gap = draw.uniform(0.02, 0.12), base = draw.uniform(0.02, 0.08),
               height = draw.uniform(0.2, 0.6);
  std::vector<double> x{0};
  for (int f = 0; f < fins; ++f) {
    x.push_back(x.back() + fin);
    if (f + 1 < fins) x.push_back(x.back() + gap);
  }
  CellSolid s = cellSolid(x, {0, draw.uniform(0.5, 1.2)}, {0, base, base + height});
  for (int i = 0; i < s.size(0); ++i) {
    s.at(i, 0, 0) = 1;
    s.at(i, 0, 1) = i % 2 == 0;
  }
  addCellSolid(m, s);
}

// Two parallel plates closer than a neighbourhood, joined at one end.
void hairpin(ThinDraws& draw, Mesh& m) {
  const double t = draw.thin(), gap = draw.uniform(0.005, 0.05), join = draw.uniform(0.03, 0.1);
  const double height = draw.uniform(0.5, 1.2), width = draw.uniform(0.4, 1.0);
  CellSolid s = cellSolid({0, t, t + gap, 2 * t + gap}, {0, width}, {0, join, join + height});
  for (int i = 0; i < 3; ++i) {
    s.at(i, 0, 0) = 1;
    s.at(i, 0, 1) = i != 1;
  }
  addCellSolid(m, s);
}

// Thin-walled L, U, J and closed rectangular sections, extruded along y: the grid's middle
// column and row are wide, its outer ones thin, so the middle cell is never filled.
void channel(ThinDraws& draw, Mesh& m) {
  const double t = draw.thin(), w = draw.uniform(0.2, 0.6), h = draw.uniform(0.2, 0.6), length = draw.uniform(0.6, 1.4);
  CellSolid s = cellSolid({0, t, t + w, 2 * t + w}, {0, length}, {0, t, t + h, 2 * t + h});
  const char* layouts[4] = {
      "xxx"
      "x.."
      "x..",  // L (bottom row first)
      "xxx"
      "x.x"
      "x.x",  // U
      "xxx"
      "x.x"
      "x..",  // J
      "xxx"
      "x.x"
      "xxx"};  // rectangular tube
  const char* layout = layouts[draw.integer(0, 3)];
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 3; ++i) s.at(i, 0, k) = layout[3 * k + i] == 'x';
  addCellSolid(m, s);
}

// Thin walls and floor, open at the top.
void hollowBox(ThinDraws& draw, Mesh& m) {
  const double t = draw.thin(), a = draw.uniform(0.3, 0.8), b = draw.uniform(0.3, 0.8), c = draw.uniform(0.2, 0.6);
  CellSolid s = cellSolid({0, t, t + a, 2 * t + a}, {0, t, t + b, 2 * t + b}, {0, t, t + c});
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) {
      s.at(i, j, 0) = 1;
      s.at(i, j, 1) = i != 1 || j != 1;
    }
  addCellSolid(m, s);
}

// Rectangular holes of many sizes; holes sit at odd (i, j) so that no two cells meet at an edge only.
void perforatedPlate(ThinDraws& draw, Mesh& m) {
  const int nx = 2 * draw.integer(2, 4) + 1, ny = 2 * draw.integer(2, 4) + 1;
  std::vector<double> x{0}, y{0};
  for (int i = 0; i < nx; ++i) x.push_back(x.back() + draw.uniform(0.03, 0.2));
  for (int j = 0; j < ny; ++j) y.push_back(y.back() + draw.uniform(0.03, 0.2));
  CellSolid s = cellSolid(x, y, {0, draw.uniform(0.004, 0.05)});
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) s.at(i, j, 0) = !(i % 2 == 1 && j % 2 == 1 && draw.integer(0, 3) > 0);
  addCellSolid(m, s);
}

// Sheet metal with 1 to 4 bends of 20 to 160 degrees, left or right, drawn again until the
// strip does not cross or touch itself (a clearance of half its thickness).
void bentSheet(ThinDraws& draw, Mesh& m) {
  std::vector<Point2> path;
  double width = 0, thickness = 0;
  do {
    path = {{0, 0}};
    double heading = 0;
    const int bends = draw.integer(1, 4);
    for (int b = 0; b <= bends; ++b) {
      const double len = draw.uniform(0.15, 0.5);
      path.push_back({path.back()[0] + len * std::cos(heading), path.back()[1] + len * std::sin(heading)});
      const double side = draw.integer(0, 1) ? 1 : -1;
      heading += side * draw.uniform(20, 160) * kPi / 180;
    }
    width = draw.uniform(0.3, 1.0);
    thickness = draw.thin();
  } while (!stripIsSimple(path, thickness, 0.5 * thickness));
  addThickPolyline(m, path, thickness, width);
}

void thinTube(ThinDraws& draw, Mesh& m) {
  const double wall = draw.thin();
  addPipe(m, 0.5 - wall, 0.5, 0, draw.uniform(0.3, 1.5), 256);
}

void twistedBlade(ThinDraws& draw, Mesh& m) {
  const double twist = draw.uniform(20, 150) * kPi / 180, length = draw.uniform(0.8, 1.5), thickness = draw.thin(),
               chord = draw.uniform(0.12, 0.3);
  addTwistedBlade(m, chord, thickness, length, twist);
}

// A knife edge: a prism over a triangle with an apex angle of 5 to 60 degrees.
void wedge(ThinDraws& draw, Mesh& m) {
  const double length = draw.uniform(0.4, 0.9), angle = draw.uniform(5, 60) * kPi / 180;
  const double half = length * std::tan(angle / 2);
  addPrism(m, {{-length / 3, -half}, {2 * length / 3, 0}, {-length / 3, half}}, 0, 0, 0, draw.uniform(0.2, 0.8));
}

struct ThinShape {
  const char* kind;
  void (*make)(ThinDraws& draw, Mesh& m);
};
constexpr ThinShape kThinShapes[] = {{"finnedplate", finnedPlate},
                                     {"hairpin", hairpin},
                                     {"channel", channel},
                                     {"hollowbox", hollowBox},
                                     {"perforatedplate", perforatedPlate},
                                     {"bentsheet", bentSheet},
                                     {"thintube", thinTube},
                                     {"twistedblade", twistedBlade},
                                     {"wedge", wedge}};

Mesh makeThinShape(const std::string& kind, std::mt19937_64& rng) {
  ThinDraws draw{rng};
  Mesh m;
  const auto shape =
      std::find_if(std::begin(kThinShapes), std::end(kThinShapes), [&](const ThinShape& t) { return kind == t.kind; });
  if (shape == std::end(kThinShapes)) throw std::invalid_argument("unknown thin shape '" + kind + "'");
  shape->make(draw, m);
  const double sz = draw.uniform(0.8, 1.25), sy = draw.uniform(0.8, 1.25), sx = draw.uniform(0.8, 1.25);
  scale(m, sx, sy, sz);
  rotate(m, rng);
  return m;
}

Mesh makeShape(const std::string& kind, std::mt19937_64& rng) {
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto integer = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Mesh m;
  if (kind == "box") {
    addBox(m, {0, 0, 0}, {uniform(0.3, 1), uniform(0.3, 1), uniform(0.3, 1)});
  } else if (kind == "boxunion") {
    // Axis-aligned so that the solids' boxes stay valid: the union's surface is what remains of
    // each box's surface outside the others.
    const int boxes = integer(2, 4);
    for (int b = 0; b < boxes; ++b) {
      std::array<double, 3> lo, hi;
      for (int k = 0; k < 3; ++k) {
        const double centre = uniform(-0.3, 0.3), half = uniform(0.1, 0.4);
        lo[k] = centre - half;
        hi[k] = centre + half;
      }
      m.solid_boxes.push_back({lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]});
      addBox(m, lo, hi, b);
    }
    return m;
  } else if (kind == "prism") {
    const int n = integer(3, 8);
    std::vector<double> angles;
    for (int i = 0; i < n; ++i) angles.push_back(2 * kPi * (i + uniform(-0.3, 0.3)) / n);
    std::vector<Point2> outline;
    for (double a : angles) outline.push_back({std::cos(a), std::sin(a)});
    addPrism(m, outline, 0, 0, 0, uniform(0.3, 1.5));
  } else if (kind == "star") {
    const int n = integer(4, 8);
    const double inner = uniform(0.35, 0.7);
    std::vector<Point2> outline;
    for (int i = 0; i < 2 * n; ++i) {
      const double radius = i % 2 ? inner : 1.0, a = kPi * i / n;
      outline.push_back({radius * std::cos(a), radius * std::sin(a)});
    }
    addPrism(m, outline, 0, 0, 0, uniform(0.2, 1.0));
  } else if (kind == "cylinder") {
    addPrism(m, regularPolygon(256, 1.0), 0, 0, 0, uniform(0.3, 3));
  } else if (kind == "pipe") {
    const double height = uniform(0.3, 3), inner = uniform(0.4, 0.8);
    addPipe(m, inner, 1.0, 0, height, 256);
  } else if (kind == "frustum") {
    const double top_scale = integer(0, 1) ? 0.0 : uniform(0.3, 0.7), height = uniform(0.5, 1.5);
    addPrism(m, regularPolygon(integer(3, 6), 1.0), 0, 0, 0, height, top_scale);
  } else if (kind == "bipyramid") {
    const double height = uniform(0.5, 1.5);
    addBipyramid(m, integer(3, 8), 1.0, height);
  } else if (kind == "icosahedron") {
    addIcosahedron(m);
  } else if (kind == "roundedbox") {
    const double e2 = uniform(0.1, 0.35), e1 = uniform(0.1, 0.35), c = uniform(0.3, 1), b = uniform(0.5, 1),
                 a = uniform(0.5, 1);
    addSuperquadric(m, a, b, c, e1, e2, 160, 320);
  } else if (kind == "roundedcylinder") {
    const double e1 = uniform(0.1, 0.3), c = uniform(0.3, 1.5);
    addSuperquadric(m, 1, 1, c, e1, 1.0, 160, 320);
  } else {
    throw std::invalid_argument("unknown procedural shape '" + kind + "'");
  }
  const double sz = uniform(0.7, 1.3), sy = uniform(0.7, 1.3), sx = uniform(0.7, 1.3);
  scale(m, sx, sy, sz);
  rotate(m, rng);
  return m;
}

}  // namespace

const std::vector<std::string>& proceduralKinds() {
  static const std::vector<std::string> kinds = {"box",         "boxunion",   "prism",          "star",
                                                 "cylinder",    "pipe",       "frustum",        "bipyramid",
                                                 "icosahedron", "roundedbox", "roundedcylinder"};
  return kinds;
}

std::vector<NamedMesh> proceduralShapes(std::size_t count, std::uint64_t seed) {
  std::vector<NamedMesh> shapes;
  const auto& kinds = proceduralKinds();
  for (std::size_t i = 0; i < count; ++i) {
    const std::string& kind = kinds[i % kinds.size()];
    std::mt19937_64 rng(seed * 6364136223846793005ull + i);
    shapes.push_back({"cad_" + kind + "_" + std::to_string(seed) + "_" + std::to_string(i), makeShape(kind, rng)});
  }
  return shapes;
}

const std::vector<std::string>& thinKinds() {
  static const std::vector<std::string> kinds = [] {
    std::vector<std::string> names;
    for (const ThinShape& t : kThinShapes) names.push_back(t.kind);
    return names;
  }();
  return kinds;
}

std::vector<NamedMesh> thinShapes(std::size_t count, std::uint64_t seed) {
  std::vector<NamedMesh> shapes;
  const auto& kinds = thinKinds();
  for (std::size_t i = 0; i < count; ++i) {
    const std::string& kind = kinds[i % kinds.size()];
    std::mt19937_64 rng(seed * 2862933555777941757ull + i);
    shapes.push_back({"thin_" + kind + "_" + std::to_string(seed) + "_" + std::to_string(i), makeThinShape(kind, rng)});
  }
  return shapes;
}

}  // namespace train
}  // namespace pcl_dise
