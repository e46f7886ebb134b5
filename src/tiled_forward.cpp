#include "pcl_dise/tiled_forward.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "pcl_dise/edge_scale.h"
#include "pcl_dise/grid_search.h"

namespace pcl_dise {

namespace {

constexpr std::size_t kEdgeScaleNeighbors = 17;  // edge_scale.h: 16 nearest plus the point itself
constexpr double kHaloGrowth = 1.5;
constexpr std::size_t kRadiusSamples = 64;

struct Box {
  double lo[3], hi[3];
};

// The cloud cut into boxes of a grid, about tile_points points each; members by global index.
struct Tiling {
  Box cloud;
  std::vector<Box> boxes;
  std::vector<std::vector<std::int32_t>> members;
};

Tiling makeTiles(const float* points, std::size_t n, std::size_t tile_points) {
  Tiling t;
  for (int a = 0; a < 3; ++a) t.cloud.lo[a] = t.cloud.hi[a] = n > 0 ? points[a] : 0.0;
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      t.cloud.lo[a] = std::min(t.cloud.lo[a], double(points[3 * i + a]));
      t.cloud.hi[a] = std::max(t.cloud.hi[a], double(points[3 * i + a]));
    }
  // Cubes whose count over the box is about n / tile_points (more where the cloud is a surface).
  const double extent[3] = {t.cloud.hi[0] - t.cloud.lo[0], t.cloud.hi[1] - t.cloud.lo[1],
                            t.cloud.hi[2] - t.cloud.lo[2]};
  const double target = std::max(1.0, std::ceil(double(n) / double(tile_points)));
  const double largest = std::max({extent[0], extent[1], extent[2]});
  double side = largest > 0 ? largest * 1.000001 : 1.0;
  auto tilesAt = [&](double s) {
    double count = 1;
    for (double e : extent) count *= std::floor(e / s) + 1;
    return count;
  };
  while (side > largest * 1e-6 && tilesAt(side / 1.1) <= target) side /= 1.1;
  int dims[3];
  for (int a = 0; a < 3; ++a) dims[a] = static_cast<int>(std::floor(extent[a] / side)) + 1;
  std::vector<std::vector<std::int32_t>> by_cell(std::size_t(dims[0]) * dims[1] * dims[2]);
  for (std::size_t i = 0; i < n; ++i) {
    int c[3];
    for (int a = 0; a < 3; ++a)
      c[a] = std::min(dims[a] - 1, static_cast<int>(std::floor((points[3 * i + a] - t.cloud.lo[a]) / side)));
    by_cell[c[0] + std::size_t(dims[0]) * (c[1] + std::size_t(dims[1]) * c[2])].push_back(std::int32_t(i));
  }
  for (std::size_t cell = 0; cell < by_cell.size(); ++cell) {
    if (by_cell[cell].empty()) continue;
    const int c[3] = {int(cell % dims[0]), int((cell / dims[0]) % dims[1]),
                      int(cell / (std::size_t(dims[0]) * dims[1]))};
    Box b;
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = t.cloud.lo[a] + side * c[a];
      b.hi[a] = t.cloud.lo[a] + side * (c[a] + 1);
    }
    t.boxes.push_back(b);
    t.members.push_back(std::move(by_cell[cell]));
  }
  return t;
}

// A tile's loaded points: its own (core) and every other point within `margin` of its box, in
// global order, so that ties in distance break as in the whole cloud.
struct Load {
  std::vector<std::int32_t> global;  // loaded point -> global index, ascending
  std::vector<float> positions;      // loaded x 3
  std::vector<std::int32_t> core;    // loaded indices of the tile's own points
  Box region;                        // the box grown by the margin
};

Load loadTile(const float* points, std::size_t n, const Tiling& tiling, std::size_t tile, double margin) {
  Load load;
  const Box& box = tiling.boxes[tile];
  for (int a = 0; a < 3; ++a) {
    load.region.lo[a] = box.lo[a] - margin;
    load.region.hi[a] = box.hi[a] + margin;
  }
  const std::vector<std::int32_t>& own = tiling.members[tile];
  std::size_t next_own = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float* p = points + 3 * i;
    const bool is_own = next_own < own.size() && own[next_own] == std::int32_t(i);
    bool inside = true;
    for (int a = 0; a < 3; ++a) inside = inside && p[a] >= load.region.lo[a] && p[a] <= load.region.hi[a];
    if (!is_own && !inside) continue;
    if (is_own) {
      load.core.push_back(std::int32_t(load.global.size()));
      ++next_own;
    }
    load.global.push_back(std::int32_t(i));
    load.positions.insert(load.positions.end(), p, p + 3);
  }
  return load;
}

// Where a loaded point's neighbourhood is surely the whole cloud's: the ball out to its last
// neighbour lies inside the loaded region (faces beyond the cloud's own box hold no points).
std::vector<std::uint8_t> completeNeighborhoods(const Load& load, const Neighborhoods& knn, const Box& cloud) {
  std::vector<std::uint8_t> complete(load.global.size());
  for (std::size_t i = 0; i < complete.size(); ++i) {
    const float* p = load.positions.data() + 3 * i;
    double room = std::numeric_limits<double>::infinity();
    for (int a = 0; a < 3; ++a) {
      if (load.region.lo[a] > cloud.lo[a]) room = std::min(room, p[a] - load.region.lo[a]);
      if (load.region.hi[a] < cloud.hi[a]) room = std::min(room, load.region.hi[a] - p[a]);
    }
    double reach2 = 0;
    if (knn.size(i) > 0) {
      const float* q = load.positions.data() + 3 * std::size_t(knn.begin(i)[knn.size(i) - 1]);
      for (int a = 0; a < 3; ++a) reach2 += (double(q[a]) - p[a]) * (double(q[a]) - p[a]);
    }
    complete[i] = room > 0 && room * room > reach2 * (1 + 1e-9) + 1e-30;
  }
  return complete;
}

// Whether every point within `hops` neighbourhood hops of the tile's own points has a complete
// neighbourhood: then the tile's own results are the whole cloud's.
bool provesTile(const Load& load, const Neighborhoods& knn, const std::vector<std::uint8_t>& complete, int hops) {
  std::vector<std::uint8_t> seen(load.global.size(), 0);
  std::vector<std::int32_t> frontier = load.core, next;
  for (std::int32_t i : frontier) seen[i] = 1;
  for (int hop = 0;; ++hop) {
    for (std::int32_t i : frontier)
      if (!complete[i]) return false;
    if (hop == hops) return true;
    next.clear();
    for (std::int32_t i : frontier)
      for (const std::int32_t* j = knn.begin(i); j != knn.begin(i) + knn.size(i); ++j)
        if (!seen[*j]) {
          seen[*j] = 1;
          next.push_back(*j);
        }
    frontier.swap(next);
  }
}

// A first margin: `hops` + 1 times the typical distance to the k-th neighbour among the tile's own points.
double firstMargin(const float* points, const std::vector<std::int32_t>& own, std::size_t k, int hops) {
  std::vector<float> positions;
  for (std::int32_t i : own)
    positions.insert(positions.end(), points + 3 * std::size_t(i), points + 3 * std::size_t(i) + 3);
  const GridSearch search = GridSearch::forNearest(positions.data(), own.size(), k);
  std::vector<std::int32_t> ids;
  std::vector<float> dist2;
  std::vector<double> reach;
  const std::size_t samples = std::min(own.size(), kRadiusSamples);
  for (std::size_t s = 0; s < samples; ++s) {
    const float* p = positions.data() + 3 * (s * own.size() / samples);
    search.nearest(p, k, ids, dist2);
    if (!dist2.empty()) reach.push_back(std::sqrt(double(dist2.back())));
  }
  if (reach.empty()) return 0;
  std::sort(reach.begin(), reach.end());
  return (hops + 1) * reach[reach.size() / 2];
}

// Loads the tile with a halo that grows until it proves the tile; returns the load and its graph.
Load provenLoad(const float* points, std::size_t n, const Tiling& tiling, std::size_t tile, std::size_t k, int hops,
                int threads, Neighborhoods& knn, TiledForwardReport& report) {
  double margin = firstMargin(points, tiling.members[tile], k, hops);
  for (;;) {
    Load load = loadTile(points, n, tiling, tile, margin);
    knn = nearestNeighborGraph(load.positions.data(), load.global.size(), k, threads);
    const bool whole_cloud = load.global.size() == n;
    if (whole_cloud || provesTile(load, knn, completeNeighborhoods(load, knn, tiling.cloud), hops)) {
      report.largest_load = std::max(report.largest_load, load.global.size());
      return load;
    }
    ++report.halo_growths;
    margin = margin > 0 ? margin * kHaloGrowth : 1e-6;
  }
}

}  // namespace

TiledForwardReport runTiledForward(const Model& model, const float* points, std::size_t num_points,
                                   const TiledForwardOptions& options, std::vector<float>& normals,
                                   std::vector<float>& curvature, Backend backend) {
  if (options.neighbors == 0 || options.tile_points == 0 || options.iterations < 0)
    throw std::invalid_argument("tiled forward pass: neighbors and tile_points must be positive, iterations >= 0");
  for (std::size_t i = 0; i < 3 * num_points; ++i)
    if (!std::isfinite(points[i]))
      throw std::invalid_argument("tiled forward pass: point " + std::to_string(i / 3) +
                                  " has a non-finite coordinate");
  TiledForwardReport report;
  normals.assign(3 * num_points, std::numeric_limits<float>::quiet_NaN());
  curvature.assign(num_points, std::numeric_limits<float>::quiet_NaN());
  if (num_points == 0) return report;
  const Tiling tiling = makeTiles(points, num_points, options.tile_points);
  report.tiles = tiling.boxes.size();

  // First pass: the edge scale's per-point terms, each tile's own points with their 16 nearest.
  const std::size_t scale_k = std::min(kEdgeScaleNeighbors, num_points);
  std::vector<double> terms(num_points);
  Neighborhoods knn;
  for (std::size_t tile = 0; tile < tiling.boxes.size(); ++tile) {
    const Load load = provenLoad(points, num_points, tiling, tile, scale_k, 0, options.threads, knn, report);
    for (std::int32_t i : load.core) terms[load.global[i]] = edgeScaleTerm(load.positions.data(), knn, std::size_t(i));
  }
  report.edge_scale = edgeScaleFromTerms(terms.data(), num_points, num_points * scale_k);

  // Second pass: each tile's forward pass, its halo L + 1 hops deep.
  ForwardOptions forward;
  forward.iterations = options.iterations;
  forward.threads = options.threads;
  const std::size_t k = std::min(options.neighbors, num_points);
  for (std::size_t tile = 0; tile < tiling.boxes.size(); ++tile) {
    const Load load =
        provenLoad(points, num_points, tiling, tile, k, options.iterations + 1, options.threads, knn, report);
    ForwardInput input;
    input.points = load.positions.data();
    input.num_points = load.global.size();
    input.neighborhoods = &knn;
    input.edge_scale = report.edge_scale;
    const ForwardResult result = runForward(model, input, forward, backend);
    for (std::int32_t i : load.core) {
      const std::size_t g = std::size_t(load.global[i]);
      std::copy_n(result.normals.begin() + 3 * std::size_t(i), 3, normals.begin() + 3 * g);
      curvature[g] = result.curvature[std::size_t(i)];
    }
  }
  return report;
}

}  // namespace pcl_dise
