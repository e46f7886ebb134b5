#include "procedural_shapes.h"

#include <array>
#include <cmath>
#include <random>
#include <stdexcept>

namespace pcl_dise {
namespace pcpnet {
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
  for (int i = 0; i < n; ++i) outline.push_back({radius * std::cos(2 * kPi * i / n), radius * std::sin(2 * kPi * i / n)});
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
  for (auto& c : q) len += (c = gauss(rng)) * c;
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
    addPipe(m, uniform(0.4, 0.8), 1.0, 0, uniform(0.3, 3), 256);
  } else if (kind == "frustum") {
    addPrism(m, regularPolygon(integer(3, 6), 1.0), 0, 0, 0, uniform(0.5, 1.5), integer(0, 1) ? 0.0 : uniform(0.3, 0.7));
  } else if (kind == "bipyramid") {
    addBipyramid(m, integer(3, 8), 1.0, uniform(0.5, 1.5));
  } else if (kind == "icosahedron") {
    addIcosahedron(m);
  } else if (kind == "roundedbox") {
    addSuperquadric(m, uniform(0.5, 1), uniform(0.5, 1), uniform(0.3, 1), uniform(0.1, 0.35), uniform(0.1, 0.35), 160, 320);
  } else if (kind == "roundedcylinder") {
    addSuperquadric(m, 1, 1, uniform(0.3, 1.5), uniform(0.1, 0.3), 1.0, 160, 320);
  } else {
    throw std::invalid_argument("unknown procedural shape '" + kind + "'");
  }
  scale(m, uniform(0.7, 1.3), uniform(0.7, 1.3), uniform(0.7, 1.3));
  rotate(m, rng);
  return m;
}

}  // namespace

const std::vector<std::string>& proceduralKinds() {
  static const std::vector<std::string> kinds = {"box",      "boxunion",    "prism",       "star",
                                                 "cylinder", "pipe",        "frustum",     "bipyramid",
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

}  // namespace pcpnet
}  // namespace pcl_dise
