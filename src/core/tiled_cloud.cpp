#include "pcl_dise/core/tiled_cloud.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>

namespace pcl_dise {

namespace {

constexpr int kFineCells = 128;  // along the longest side of the bounds

}  // namespace

Box Box::grown(double margin) const {
  Box b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = lo[a] - margin;
    b.hi[a] = hi[a] + margin;
  }
  return b;
}

std::array<int, 3> TileTree::fineCell(const float* p) const {
  std::array<int, 3> c;
  for (int a = 0; a < 3; ++a)
    c[a] = std::clamp(static_cast<int>(std::floor((p[a] - bounds_.lo[a]) / fine_side_)), 0, fine_dims_[a] - 1);
  return c;
}

std::size_t TileTree::tileOf(const float* p) const {
  const std::array<int, 3> c = fineCell(p);
  std::int32_t node = 0;
  while (nodes_[node].axis >= 0) node = nodes_[node].child[c[nodes_[node].axis] >= nodes_[node].split];
  return static_cast<std::size_t>(nodes_[node].split);
}

std::vector<std::size_t> TileTree::tilesMeeting(const Box& region) const {
  std::vector<std::size_t> tiles;
  for (std::size_t t = 0; t < boxes_.size(); ++t) {
    bool meets = true;
    for (int a = 0; a < 3; ++a) meets = meets && boxes_[t].lo[a] <= region.hi[a] && boxes_[t].hi[a] >= region.lo[a];
    if (meets) tiles.push_back(t);
  }
  return tiles;
}

DensityHistogram::DensityHistogram(const Box& bounds) {
  double largest = 0;
  for (int a = 0; a < 3; ++a) largest = std::max(largest, bounds.hi[a] - bounds.lo[a]);
  grid_.bounds_ = bounds;
  grid_.fine_side_ = largest > 0 ? largest * (1 + 1e-6) / kFineCells : 1.0;
  for (int a = 0; a < 3; ++a)
    grid_.fine_dims_[a] = static_cast<int>(std::floor((bounds.hi[a] - bounds.lo[a]) / grid_.fine_side_)) + 1;
  counts_.assign(std::size_t(grid_.fine_dims_[0]) * grid_.fine_dims_[1] * grid_.fine_dims_[2], 0);
}

void DensityHistogram::add(const float* p) {
  const std::array<int, 3> c = grid_.fineCell(p);
  ++counts_[c[0] + std::size_t(grid_.fine_dims_[0]) * (c[1] + std::size_t(grid_.fine_dims_[1]) * c[2])];
}

TileTree DensityHistogram::tiles(std::size_t tile_points) const {
  TileTree tree = grid_;
  const auto& dims = grid_.fine_dims_;
  struct Range {
    std::array<int, 3> lo, hi;  // fine cells [lo, hi)
  };
  // Points per slice of `range` along `axis`.
  auto profile = [&](const Range& r, int axis) {
    std::vector<std::size_t> slices(r.hi[axis] - r.lo[axis], 0);
    for (int z = r.lo[2]; z < r.hi[2]; ++z)
      for (int y = r.lo[1]; y < r.hi[1]; ++y)
        for (int x = r.lo[0]; x < r.hi[0]; ++x) {
          const int c[3] = {x, y, z};
          slices[c[axis] - r.lo[axis]] += counts_[x + std::size_t(dims[0]) * (y + std::size_t(dims[1]) * z)];
        }
    return slices;
  };
  // Depth first: node `node` covers `range` holding `count` points.
  std::function<void(std::int32_t, const Range&, std::size_t)> build = [&](std::int32_t node, const Range& r,
                                                                           std::size_t count) {
    int axis = 0;
    for (int a = 1; a < 3; ++a)
      if (r.hi[a] - r.lo[a] > r.hi[axis] - r.lo[axis]) axis = a;
    if (count <= tile_points || r.hi[axis] - r.lo[axis] == 1) {
      tree.nodes_[node].split = static_cast<int>(tree.boxes_.size());
      Box box;
      for (int a = 0; a < 3; ++a) {
        box.lo[a] = grid_.bounds_.lo[a] + grid_.fine_side_ * r.lo[a];
        // The last cells reach the far face, whatever the rounding of lo + side * dims.
        box.hi[a] = r.hi[a] == dims[a] ? std::max(grid_.bounds_.hi[a], grid_.bounds_.lo[a] + grid_.fine_side_ * r.hi[a])
                                       : grid_.bounds_.lo[a] + grid_.fine_side_ * r.hi[a];
      }
      tree.boxes_.push_back(box);
      tree.counts_.push_back(count);
      return;
    }
    const std::vector<std::size_t> slices = profile(r, axis);
    // A node needing t tiles gives floor(t / 2) tiles' worth to its first child, so tiles come out
    // near count / t points, not halved down to a power of two: fewer, larger tiles, less halo.
    // Splits that leave each child within its tiles' capacity come first.
    const std::size_t needed = (count + tile_points - 1) / tile_points, first = needed / 2;
    const double target = double(count) * double(first) / double(needed);
    std::size_t below = 0, best_below = 0;
    int split = r.lo[axis] + 1;
    std::pair<bool, double> best{true, std::numeric_limits<double>::infinity()};
    for (int s = 1; s < static_cast<int>(slices.size()); ++s) {
      below += slices[s - 1];
      const bool overfills = below > first * tile_points || count - below > (needed - first) * tile_points;
      const std::pair<bool, double> miss{overfills, std::abs(double(below) - target)};
      if (miss < best) best = miss, split = r.lo[axis] + s, best_below = below;
    }
    tree.nodes_[node].axis = axis;
    tree.nodes_[node].split = split;
    Range halves[2] = {r, r};
    halves[0].hi[axis] = split;
    halves[1].lo[axis] = split;
    for (int h = 0; h < 2; ++h) {
      tree.nodes_[node].child[h] = static_cast<std::int32_t>(tree.nodes_.size());
      tree.nodes_.emplace_back();
      build(tree.nodes_[node].child[h], halves[h], h == 0 ? best_below : count - best_below);
    }
  };
  std::size_t total = 0;
  for (std::uint32_t c : counts_) total += c;
  tree.nodes_.assign(1, TileTree::Node{});
  build(0, Range{{0, 0, 0}, dims}, total);
  return tree;
}

bool TilePart::holds(const float* p) const {
  if (whole) return true;
  for (int a = 0; a < 3; ++a)
    if (p[a] < box.lo[a] || p[a] > box.hi[a] || (open_hi[a] && p[a] == box.hi[a])) return false;
  return true;
}

std::array<TilePart, 2> TilePart::halves() const {
  int axis = 0;
  for (int a = 1; a < 3; ++a)
    if (box.hi[a] - box.lo[a] > box.hi[axis] - box.lo[axis]) axis = a;
  const double middle = 0.5 * (box.lo[axis] + box.hi[axis]);
  std::array<TilePart, 2> half{*this, *this};
  for (TilePart& h : half) h.whole = false;
  half[0].box.hi[axis] = middle;
  half[0].open_hi[axis] = true;
  half[1].box.lo[axis] = middle;
  return half;
}

TileLoad TiledCloud::load(std::size_t tile, const Box& region) const {
  TilePart whole;
  whole.tile = tile;
  whole.box = tiles_.tileBox(tile);
  return load(whole, region);
}

TileLoad TiledCloud::load(const TilePart& part, const Box& region) const {
  const std::size_t tile = part.tile;
  std::vector<std::uint64_t> global;
  std::vector<float> positions;
  std::vector<std::uint8_t> own;
  std::vector<std::uint64_t> tile_global;
  std::vector<float> tile_positions;
  for (std::size_t other : tiles_.tilesMeeting(region)) {
    tile_global.clear();
    tile_positions.clear();
    readTile(other, tile_global, tile_positions);
    for (std::size_t i = 0; i < tile_global.size(); ++i) {
      const float* p = tile_positions.data() + 3 * i;
      const bool in_part = other == tile && part.holds(p);
      if (!in_part && !region.contains(p)) continue;
      global.push_back(tile_global[i]);
      positions.insert(positions.end(), p, p + 3);
      own.push_back(in_part);
    }
  }
  std::vector<std::size_t> order(global.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return global[a] < global[b]; });
  TileLoad load;
  load.region = region;
  load.global.resize(order.size());
  load.positions.resize(3 * order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    load.global[i] = global[order[i]];
    std::copy_n(positions.begin() + 3 * order[i], 3, load.positions.begin() + 3 * i);
    if (own[order[i]]) load.core.push_back(static_cast<std::int32_t>(i));
  }
  return load;
}

TiledCloudInMemory::TiledCloudInMemory(const float* points, std::size_t num_points, std::size_t tile_points)
    : points_(points) {
  size_ = num_points;
  DensityHistogram histogram(boundsOf(points, num_points));
  for (std::size_t i = 0; i < num_points; ++i) histogram.add(points + 3 * i);
  tiles_ = histogram.tiles(tile_points);
  members_.resize(tiles_.size());
  for (std::size_t i = 0; i < num_points; ++i) members_[tiles_.tileOf(points + 3 * i)].push_back(std::uint32_t(i));
}

void TiledCloudInMemory::readTile(std::size_t tile, std::vector<std::uint64_t>& global,
                                  std::vector<float>& positions) const {
  for (std::uint32_t i : members_[tile]) {
    global.push_back(i);
    positions.insert(positions.end(), points_ + 3 * std::size_t(i), points_ + 3 * std::size_t(i) + 3);
  }
}

Box boundsOf(const float* points, std::size_t num_points) {
  Box box;
  for (int a = 0; a < 3; ++a) box.lo[a] = box.hi[a] = num_points > 0 ? points[a] : 0.0;
  for (std::size_t i = 0; i < num_points; ++i)
    for (int a = 0; a < 3; ++a) {
      box.lo[a] = std::min(box.lo[a], double(points[3 * i + a]));
      box.hi[a] = std::max(box.hi[a], double(points[3 * i + a]));
    }
  return box;
}

}  // namespace pcl_dise
