#include "pcl_dise/train/outward_normals.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>

namespace pcl_dise {
namespace train {
namespace {

// A triangle's directed edge: the undirected key, the triangle, and whether it runs low -> high.
struct EdgeUse {
  std::uint64_t key;
  std::int32_t face;
  bool forward;
};

std::vector<EdgeUse> edgeUses(const Mesh& mesh) {
  std::vector<EdgeUse> uses;
  uses.reserve(3 * mesh.triangles.size());
  for (std::size_t f = 0; f < mesh.triangles.size(); ++f)
    for (int c = 0; c < 3; ++c) {
      const auto a = static_cast<std::uint32_t>(mesh.triangles[f][c]);
      const auto b = static_cast<std::uint32_t>(mesh.triangles[f][(c + 1) % 3]);
      const std::uint64_t key = (std::uint64_t(std::min(a, b)) << 32) | std::max(a, b);
      uses.push_back({key, static_cast<std::int32_t>(f), a < b});
    }
  std::sort(uses.begin(), uses.end(),
            [](const EdgeUse& x, const EdgeUse& y) { return std::tie(x.key, x.face) < std::tie(y.key, y.face); });
  return uses;
}

// Six times the signed volume of the tetrahedron (origin, a, b, c).
double signedVolume6(const std::array<double, 3>& a, const std::array<double, 3>& b, const std::array<double, 3>& c) {
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
}

}  // namespace

std::vector<std::array<double, 3>> outwardFaceNormals(const Mesh& mesh) {
  const std::size_t faces = mesh.triangles.size();
  // Neighbours across manifold edges, and whether a neighbour's winding agrees (it runs the
  // shared edge the other way).
  std::vector<std::vector<std::pair<std::int32_t, bool>>> across(faces);
  const std::vector<EdgeUse> uses = edgeUses(mesh);
  for (std::size_t u = 0; u < uses.size();) {
    std::size_t end = u;
    while (end < uses.size() && uses[end].key == uses[u].key) ++end;
    if (end - u == 2) {
      const bool agree = uses[u].forward != uses[u + 1].forward;
      across[uses[u].face].push_back({uses[u + 1].face, agree});
      across[uses[u + 1].face].push_back({uses[u].face, agree});
    }
    u = end;
  }

  std::vector<std::int8_t> flip(faces, -1);  // -1: not reached yet
  std::vector<std::int32_t> sheet;
  for (std::size_t start = 0; start < faces; ++start) {
    if (flip[start] >= 0) continue;
    flip[start] = 0;
    sheet.assign(1, static_cast<std::int32_t>(start));
    for (std::size_t head = 0; head < sheet.size(); ++head)
      for (const auto& [g, agree] : across[sheet[head]])
        if (flip[g] < 0) {
          flip[g] = static_cast<std::int8_t>(flip[sheet[head]] ^ !agree);
          sheet.push_back(g);
        }
    double volume = 0;
    for (const std::int32_t f : sheet) {
      const auto& t = mesh.triangles[f];
      const double v = signedVolume6(mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]);
      volume += flip[f] ? -v : v;
    }
    if (volume < 0)
      for (const std::int32_t f : sheet) flip[f] ^= 1;
  }

  std::vector<std::array<double, 3>> normals(faces);
  for (std::size_t f = 0; f < faces; ++f) {
    const auto& a = mesh.vertices[mesh.triangles[f][0]];
    const auto& b = mesh.vertices[mesh.triangles[f][1]];
    const auto& c = mesh.vertices[mesh.triangles[f][2]];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    const double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    const double s = length > 0 ? (flip[f] ? -1.0 : 1.0) / length : 0.0;
    normals[f] = {n[0] * s, n[1] * s, n[2] * s};
  }
  return normals;
}

}  // namespace train
}  // namespace pcl_dise
