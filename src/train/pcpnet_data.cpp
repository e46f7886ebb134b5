#include "pcl_dise/train/pcpnet_data.h"
#include "file_access.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

#include "pcl_dise/io/text_io.h"
#include "pcl_dise/train/outward_normals.h"

namespace pcl_dise {
namespace train {
namespace {

using detail::fail;

// Density of the striped variant for layers 1..30 (docs/algorithm.md).
constexpr double kStripeDensity[30] = {0.1,    10,     0.1374, 7.279,  0.1887, 5.298,  0.2593, 3.857, 0.3562, 2.807,
                                       0.4894, 2.043,  0.6723, 1.487,  0.9237, 1.083,  1.269,  0.788, 1.743,  0.5736,
                                       2.395,  0.4175, 3.29,   0.3039, 4.52,   0.2212, 6.21,   0.161, 8.532,  0.1172};

}  // namespace

bool Mesh::addTriangle(int a, int b, int c, int solid) {
  const auto &pa = vertices[a], &pb = vertices[b], &pc = vertices[c];
  const double u[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]},
               w[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
  const double cx = u[1] * w[2] - u[2] * w[1], cy = u[2] * w[0] - u[0] * w[2], cz = u[0] * w[1] - u[1] * w[0];
  if (!(cx * cx + cy * cy + cz * cz > 0)) return false;
  triangles.push_back({a, b, c});
  if (solid >= 0) part.push_back(solid);
  return true;
}

double noiseDeviation(double level, double largest_side) { return level / (4.2 * std::sqrt(3.0)) * largest_side; }

double noiseLevelOfName(const std::string& name, std::string& clean) {
  const std::string marker = "_noise_white_";
  const std::size_t at = name.rfind(marker);
  if (at == std::string::npos) return 0;
  const std::string level_text = name.substr(at + marker.size());
  std::size_t used = 0;
  double level = 0;
  try {
    level = std::stod(level_text, &used);
  } catch (const std::exception&) {
    return 0;
  }
  if (used != level_text.size() || !(level > 0) || !std::isfinite(level)) return 0;
  clean = name.substr(0, at);
  return level;
}

Cloud sample(const Mesh& mesh, std::size_t count, Density density, double noise_level, std::uint64_t seed) {
  std::array<double, 3> lo = mesh.vertices[0], hi = mesh.vertices[0];
  for (const auto& v : mesh.vertices)
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], v[c]);
      hi[c] = std::max(hi[c], v[c]);
    }
  const double diagonal_sum = (hi[0] - lo[0]) + (hi[1] - lo[1]) + (hi[2] - lo[2]);
  const double largest_side = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});

  std::vector<double> weight(mesh.triangles.size());
  const std::vector<std::array<double, 3>> face_normal = outwardFaceNormals(mesh);
  for (std::size_t f = 0; f < mesh.triangles.size(); ++f) {
    const auto& a = mesh.vertices[mesh.triangles[f][0]];
    const auto& b = mesh.vertices[mesh.triangles[f][1]];
    const auto& c = mesh.vertices[mesh.triangles[f][2]];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    double area = 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    // Position of the face centroid along the bounding box's 1-norm diagonal.
    double f_pos = 0;
    for (int k = 0; k < 3; ++k) f_pos += (a[k] + b[k] + c[k]) / 3.0 - lo[k];
    f_pos = diagonal_sum > 0 ? f_pos / diagonal_sum : 0.0;
    if (density == Density::Gradient) area *= std::exp(f_pos * std::log2(0.01));  // sic, as published
    if (density == Density::Striped)
      area *= kStripeDensity[std::min(30, static_cast<int>(std::floor(30 * f_pos)) + 1) - 1];
    weight[f] = area;
  }
  std::mt19937_64 rng(seed);
  std::discrete_distribution<std::size_t> pick(weight.begin(), weight.end());
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> gauss(0.0, noiseDeviation(noise_level, largest_side));
  // A point of solid `own` that lies strictly inside another solid is inside the union.
  auto insideOtherSolid = [&](const double* q, int own) {
    constexpr double kTolerance = 1e-9;
    for (std::size_t s = 0; s < mesh.solid_boxes.size(); ++s) {
      if (static_cast<int>(s) == own) continue;
      const auto& box = mesh.solid_boxes[s];
      bool inside = true;
      for (int k = 0; k < 3 && inside; ++k) inside = q[k] > box[k] + kTolerance && q[k] < box[k + 3] - kTolerance;
      if (inside) return true;
    }
    return false;
  };
  Cloud cloud;
  cloud.points.reserve(count);
  cloud.normals.reserve(count);
  const std::size_t max_draws = 100 * count + 1000;
  for (std::size_t draws = 0; cloud.points.size() < count; ++draws) {
    if (draws == max_draws) throw std::runtime_error("sampling: almost all of the surface lies inside other solids");
    const std::size_t f = pick(rng);
    double r1 = uniform(rng), r2 = uniform(rng);
    if (r1 + r2 > 1) {
      r1 = 1 - r1;
      r2 = 1 - r2;
    }
    const auto& a = mesh.vertices[mesh.triangles[f][0]];
    const auto& b = mesh.vertices[mesh.triangles[f][1]];
    const auto& c = mesh.vertices[mesh.triangles[f][2]];
    double q[3];
    for (int k = 0; k < 3; ++k) q[k] = a[k] + r1 * (b[k] - a[k]) + r2 * (c[k] - a[k]);
    if (!mesh.part.empty() && insideOtherSolid(q, mesh.part[f])) continue;
    std::array<float, 3> p;
    for (int k = 0; k < 3; ++k) p[k] = static_cast<float>(q[k] + (noise_level > 0 ? gauss(rng) : 0.0));
    cloud.points.push_back(p);
    cloud.normals.push_back({static_cast<float>(face_normal[f][0]), static_cast<float>(face_normal[f][1]),
                             static_cast<float>(face_normal[f][2])});
  }
  return cloud;
}

std::vector<std::int64_t> sampleIndices(std::size_t n, std::size_t count, std::uint64_t seed) {
  std::vector<std::int64_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(std::min(count, n));
  std::sort(all.begin(), all.end());
  return all;
}

void writeCloud(const std::string& base, const Cloud& cloud, const std::vector<std::int64_t>& pidx) {
  std::ofstream xyz(base + ".xyz"), normals(base + ".normals"), ids(base + ".pidx");
  if (!xyz || !normals || !ids) fail(base, "cannot be written");
  xyz.precision(9);
  normals.precision(7);
  for (std::size_t i = 0; i < cloud.points.size(); ++i) {
    xyz << cloud.points[i][0] << ' ' << cloud.points[i][1] << ' ' << cloud.points[i][2] << '\n';
    normals << cloud.normals[i][0] << ' ' << cloud.normals[i][1] << ' ' << cloud.normals[i][2] << '\n';
  }
  for (auto i : pidx) ids << i << '\n';
}

LoadedCloud readCloud(const std::string& base) {
  LoadedCloud loaded;
  loaded.cloud.points = io::readTextTriples(base + ".xyz");
  loaded.cloud.normals = io::readTextTriples(base + ".normals");
  const std::size_t n = loaded.cloud.points.size();
  if (loaded.cloud.normals.size() != n)
    fail(base, std::to_string(n) + " points but " + std::to_string(loaded.cloud.normals.size()) + " normals");
  std::ifstream ids(base + ".pidx");
  if (ids) {
    long long i;
    while (ids >> i) {
      if (i < 0 || static_cast<std::size_t>(i) >= n)
        fail(base + ".pidx", "index " + std::to_string(i) + " out of range [0, " + std::to_string(n) + ")");
      loaded.pidx.push_back(i);
    }
  } else {
    loaded.pidx.resize(n);
    std::iota(loaded.pidx.begin(), loaded.pidx.end(), 0);
  }
  return loaded;
}

std::vector<std::string> readList(const std::string& list_path) {
  std::ifstream in(list_path);
  if (!in) fail(list_path, "cannot be opened");
  const auto slash = list_path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : list_path.substr(0, slash);
  std::vector<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty()) names.push_back(line[0] == '/' ? line : dir + "/" + line);
  }
  return names;
}

}  // namespace train
}  // namespace pcl_dise
