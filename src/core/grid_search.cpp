#include "pcl_dise/core/grid_search.h"

#include "pcl_dise/core/grid_margin.h"

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "grid_kernels.h"
#include "group_by_key.h"
#include "pcl_dise/core/forward.h"  // detail::resolveThreads

namespace pcl_dise {

using detail::distanceKey;
using detail::keyDist2;
using detail::keyId;
using detail::kKeysSlack;
using detail::sortSmallest;
using detail::squaredDistances;

namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();
// Reach of the blocks batched queries start from: 5 x 5 x 5 cells, each 0.6 of the typical
// k-th neighbour distance (forNearest) or half the radius (forRadius).
constexpr int kBlockReach = 2;
constexpr double kCellsPerKthDistance = 1.0 / 0.6;
// At most this many cells per point: memory stays linear however the cloud is spread.
constexpr double kMaxCellsPerPoint = 4.0;
// The next query's first limit: the last k-th squared distance times this.
constexpr float kHintGrowth = 1.15f;
// A limit that held `count` < k keys grows by kHintRetryMargin * k / count, at most kHintRetryMax.
constexpr float kHintRetryMargin = 1.3f, kHintRetryMax = 4.f;
float hintRetryGrowth(std::size_t count, std::size_t k) {
  return count > 0 ? std::min(kHintRetryMax, kHintRetryMargin * float(k) / float(count)) : kHintRetryMax;
}
// A cell holding more positions than this many times the cloud's mean over its occupied cells
// (and at least kCrowdedCell) gets a grid of its own: near-coincident points, a blob far denser
// than the rest, cost what the rest costs. At most kMaxNesting grids deep.
constexpr double kCrowdedFactor = 32.0;
constexpr std::int32_t kCrowdedCell = 1024;
constexpr int kMaxNesting = 3;
// Cells of up to this many points are searched for coincident points pair by pair; larger ones
// sorted by x first.
constexpr std::int32_t kPairwiseCell = 32;
// A sampled point whose k-th neighbour lies closer than this share of the cell a grid of about
// one cell per point would have is packed into a speck: left out of the typical distance.
constexpr double kSpeckOfCell = 0.01;

bool finite3(const float* p) { return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]); }

// The cell size that gives about `target` cells over a box of these extents.
double cellSizeForCells(const double extent[3], double target) {
  const double largest = std::max({extent[0], extent[1], extent[2]});
  if (!(largest > 0)) return 1.0;
  double lo = largest * 1e-7, hi = largest * 1.000001;
  for (int step = 0; step < 60; ++step) {
    const double h = std::sqrt(lo * hi);
    double cells = 1;
    for (int a = 0; a < 3; ++a) cells *= std::floor(extent[a] / h) + 1;
    (cells > target ? lo : hi) = h;
  }
  return hi;
}

double cellsAt(const double extent[3], double size) {
  double cells = 1;
  for (int a = 0; a < 3; ++a) cells *= std::floor(extent[a] / size) + 1;
  return cells;
}

// The cell size a grid of num_points over a box of these extents gets when `requested` is asked
// for: requested, or larger where it would make more than kMaxCellsPerPoint cells per point.
double maxCells(std::size_t num_points) { return std::max(64.0, kMaxCellsPerPoint * double(num_points)); }
float allowedCellSize(const double extent[3], std::size_t num_points, float requested) {
  double h = requested > 0 && std::isfinite(requested) ? requested : 1.0;
  const double max_cells = maxCells(num_points);
  if (cellsAt(extent, h) > max_cells) h = std::max(h, cellSizeForCells(extent, max_cells));
  while (cellsAt(extent, h) > max_cells) h *= 1.01;
  return static_cast<float>(h);
}

float finestCellSize(const double extent[3], std::size_t num_points) {
  return allowedCellSize(extent, num_points, static_cast<float>(cellSizeForCells(extent, maxCells(num_points))));
}

// Batched queries of one cell are answered in runs of at most this many, each run a task that
// gathers the cell's block once: a crowded cell is shared among the threads.
constexpr std::size_t kQueriesPerTask = 256;

// Passes over the points run on threads from this many points on.
constexpr std::int64_t kParallelPoints = 1 << 15;

void bounds(const float* points, std::size_t n, float lo[3], float hi[3], int threads) {
  for (int a = 0; a < 3; ++a) lo[a] = hi[a] = n > 0 ? points[a] : 0.f;
  const std::int64_t count = static_cast<std::int64_t>(n);
  std::int64_t first_bad = count;
#pragma omp parallel num_threads(detail::resolveThreads(threads)) if (count >= kParallelPoints)
  {
    float l[3] = {lo[0], lo[1], lo[2]}, h[3] = {hi[0], hi[1], hi[2]};
    std::int64_t bad = count;
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < count; ++i) {
      const float* p = points + 3 * i;
      if (!finite3(p)) {
        bad = std::min(bad, i);
        continue;
      }
      for (int a = 0; a < 3; ++a) {
        l[a] = std::min(l[a], p[a]);
        h[a] = std::max(h[a], p[a]);
      }
    }
#pragma omp critical
    {
      first_bad = std::min(first_bad, bad);
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], l[a]);
        hi[a] = std::max(hi[a], h[a]);
      }
    }
  }
  if (first_bad < count)
    throw std::invalid_argument("GridSearch: point " + std::to_string(first_bad) + " has a non-finite coordinate");
}

}  // namespace

struct GridSearch::Scratch {
  std::vector<float> x, y, z, dist2, answer_dist2;
  std::vector<std::int32_t> ids, answer_ids;  // the block's candidates; the last query's answer
  std::vector<std::uint64_t> keys, sorted, slots, member_keys;
  float hint2 = 0;                         // squared distance that held k neighbours for the last query of this block
  std::vector<std::int32_t> crowded;       // the block's crowded cells (their nested grids)
  std::vector<std::uint64_t> nested_keys;  // the crowded cells' candidates for the current query
  std::vector<std::int32_t> nested_ids;
  std::vector<float> nested_dist2;
  std::size_t wanted_k = 0;  // what the nested grids are asked: k nearest, or within wanted_radius
  float wanted_radius = 0;
  std::int32_t last_query = -1;  // the last query answered from this block (batched queries)
  bool grid_places = false;      // candidates named by their place in the grid's arrays, not their index
  std::vector<std::pair<std::uint64_t, std::int32_t>> by_index;  // grid_places: (distance and index, place)
  std::unique_ptr<Scratch> nested;                               // a nested grid's, kept from query to query
  Scratch& inner() {
    if (!nested) nested = std::make_unique<Scratch>();
    return *nested;
  }
  void clear() {
    hint2 = 0;
    last_query = -1;
    crowded.clear();
    x.clear();
    y.clear();
    z.clear();
    ids.clear();
  }
};

GridSearch::GridSearch(const float* points, std::size_t num_points, float cell_size, int threads) {
  if (num_points > std::size_t(std::numeric_limits<std::int32_t>::max()))
    throw std::invalid_argument("GridSearch: more than 2^31 - 1 points");
  float lo[3], hi[3];
  bounds(points, num_points, lo, hi, threads);
  double extent[3];
  for (int a = 0; a < 3; ++a) extent[a] = double(hi[a]) - lo[a];
  cell_size_ = allowedCellSize(extent, num_points, cell_size);
  double largest_coordinate = 0;
  for (int a = 0; a < 3; ++a) {
    origin_[a] = lo[a];
    dims_[a] = static_cast<int>(std::floor(extent[a] / cell_size_)) + 1;
    largest_coordinate = std::max({largest_coordinate, std::fabs(double(lo[a])), std::fabs(double(hi[a]))});
  }
  // Rounding in a point's cell: a block's covered radius is cut by this much, so that a point
  // that rounding put in the next cell is never taken for outside a radius it lies within.
  margin_ = gridRoundingMargin(cell_size_, std::max({dims_[0], dims_[1], dims_[2]}), largest_coordinate);

  const std::size_t cells = std::size_t(dims_[0]) * dims_[1] * dims_[2];
  const std::int64_t count = static_cast<std::int64_t>(num_points);
  const int team = detail::resolveThreads(threads);
  std::vector<std::int64_t> cell_of(num_points);
#pragma omp parallel for num_threads(team) schedule(static) if (count >= kParallelPoints)
  for (std::int64_t i = 0; i < count; ++i) {
    const float* p = points + 3 * i;
    cell_of[i] = cellIndex(coordinate(p[0], 0), coordinate(p[1], 1), coordinate(p[2], 2));
  }
  detail::groupByKey(cell_of, cells, cell_start_, ids_);
  num_points_ = num_points;
  x_.resize(num_points);
  y_.resize(num_points);
  z_.resize(num_points);
#pragma omp parallel for num_threads(team) schedule(static) if (count >= kParallelPoints)
  for (std::int64_t s = 0; s < count; ++s) {
    const float* p = points + 3 * std::size_t(ids_[s]);
    x_[s] = p[0];
    y_[s] = p[1];
    z_[s] = p[2];
  }
  collapseCoincident(team);
}

bool GridSearch::cellHasCoincident(std::size_t c, std::vector<std::pair<float, std::int32_t>>& by_x) const {
  const std::int32_t b = cell_start_[c], e = cell_start_[c + 1];
  if (e - b < 2) return false;
  if (e - b <= kPairwiseCell) {  // the usual cell: compared pair by pair, without branches
    bool equal = false;
    for (std::int32_t t = b; t < e; ++t) {
      const float xt = x_[t], yt = y_[t], zt = z_[t];
      for (std::int32_t u = t + 1; u < e; ++u) equal |= (x_[u] == xt) & (y_[u] == yt) & (z_[u] == zt);
    }
    return equal;
  }
  by_x.clear();  // coincident points share x: only runs of one x are compared
  for (std::int32_t t = b; t < e; ++t) by_x.emplace_back(x_[t], t);
  std::sort(by_x.begin(), by_x.end());
  for (std::size_t r = 0; r < by_x.size();) {
    std::size_t end = r + 1;
    while (end < by_x.size() && by_x[end].first == by_x[r].first) ++end;
    for (std::size_t t = r; t < end; ++t)
      for (std::size_t u = t + 1; u < end; ++u) {
        const std::int32_t i = by_x[t].second, j = by_x[u].second;
        if (y_[i] == y_[j] && z_[i] == z_[j]) return true;
      }
    r = end;
  }
  return false;
}

void GridSearch::collapseCoincident(int threads) {
  // Each cell's points by position, then index: coincident points become one run.
  std::vector<std::int32_t> order;
  auto before = [&](std::int32_t a, std::int32_t b) {
    if (x_[a] != x_[b]) return x_[a] < x_[b];
    if (y_[a] != y_[b]) return y_[a] < y_[b];
    if (z_[a] != z_[b]) return z_[a] < z_[b];
    return ids_[a] < ids_[b];
  };
  auto same = [&](std::int32_t a, std::int32_t b) { return x_[a] == x_[b] && y_[a] == y_[b] && z_[a] == z_[b]; };
  const std::size_t cells = cell_start_.size() - 1;
  const std::int64_t num_cells = static_cast<std::int64_t>(cells);
  std::atomic<bool> any{false};
#pragma omp parallel num_threads(threads) if (num_cells >= kParallelPoints)
  {
    std::vector<std::pair<float, std::int32_t>> by_x;
#pragma omp for schedule(dynamic, 4096)
    for (std::int64_t c = 0; c < num_cells; ++c)
      if (!any.load(std::memory_order_relaxed) && cellHasCoincident(std::size_t(c), by_x))
        any.store(true, std::memory_order_relaxed);
  }
  if (!any) return;  // the common case: one entry per point, no member lists
  // One slot per position: its coordinates, its smallest index, and its members in index order.
  std::vector<float> x, y, z;
  std::vector<std::int32_t> first_ids, cell_start(cells + 1, 0);
  member_start_.assign(1, 0);
  member_ids_.clear();
  member_ids_.reserve(num_points_);
  for (std::size_t c = 0; c < cells; ++c) {
    const std::int32_t b = cell_start_[c], e = cell_start_[c + 1];
    order.resize(std::size_t(e - b));
    for (std::int32_t t = b; t < e; ++t) order[std::size_t(t - b)] = t;
    std::sort(order.begin(), order.end(), before);
    for (std::size_t t = 0; t < order.size(); ++t) {
      if (t == 0 || !same(order[t - 1], order[t])) {
        if (t > 0) member_start_.push_back(static_cast<std::int32_t>(member_ids_.size()));
        x.push_back(x_[order[t]]);
        y.push_back(y_[order[t]]);
        z.push_back(z_[order[t]]);
        first_ids.push_back(ids_[order[t]]);
      }
      member_ids_.push_back(ids_[order[t]]);
    }
    if (!order.empty()) member_start_.push_back(static_cast<std::int32_t>(member_ids_.size()));
    cell_start[c + 1] = static_cast<std::int32_t>(first_ids.size());
  }
  slot_of_first_.assign(num_points_, -1);
  for (std::size_t slot = 0; slot < first_ids.size(); ++slot)
    slot_of_first_[first_ids[slot]] = static_cast<std::int32_t>(slot);
  x_.swap(x);
  y_.swap(y);
  z_.swap(z);
  ids_.swap(first_ids);
  cell_start_.swap(cell_start);
}

std::size_t GridSearch::expandMembers(Scratch& s, std::size_t count, float limit2, std::size_t per_slot) const {
  // The first per_slot members of each slot closer than limit2 (or as close): a slot's members
  // share its distance and come in index order, so no others can be among the answer.
  s.member_keys.clear();
  for (std::size_t j = 0; j < count; ++j) {
    const float d2 = keyDist2(s.keys[j]);
    if (!(d2 <= limit2)) continue;
    const std::int32_t slot = slot_of_first_[keyId(s.keys[j])];
    const std::int32_t b = member_start_[slot];
    const std::int32_t e = std::min<std::int64_t>(member_start_[slot + 1], std::int64_t(b) + std::int64_t(per_slot));
    for (std::int32_t t = b; t < e; ++t) s.member_keys.push_back(distanceKey(d2, member_ids_[t]));
  }
  return s.member_keys.size();
}

float GridSearch::kthPointDistance2(const std::uint64_t* slot_keys, std::size_t count, std::size_t k) const {
  float kth2 = 0;
  for (std::size_t j = 0, held = 0; j < count && held < k; ++j) {
    held += member_ids_.empty() ? 1 : multiplicity(keyId(slot_keys[j]));
    kth2 = keyDist2(slot_keys[j]);
  }
  return kth2;
}

std::size_t GridSearch::multiplicity(std::int32_t first_id) const {
  const std::int32_t slot = slot_of_first_[first_id];
  return std::size_t(member_start_[slot + 1] - member_start_[slot]);
}

GridSearch GridSearch::forNearest(const float* points, std::size_t num_points, std::size_t k, int threads) {
  return nearestGrid(points, num_points, k, 0, threads);
}

GridSearch GridSearch::forRadius(const float* points, std::size_t num_points, float radius, int threads) {
  return radiusGrid(points, num_points, radius, 0, threads);
}

GridSearch GridSearch::nearestGrid(const float* points, std::size_t num_points, std::size_t k, int depth, int threads) {
  float lo[3], hi[3];
  bounds(points, num_points, lo, hi, threads);
  const double extent[3] = {double(hi[0]) - lo[0], double(hi[1]) - lo[1], double(hi[2]) - lo[2]};
  // A first grid, of the finest cells allowed, measures the k-th neighbour distance on a sample.
  // On a surface in a box (most clouds) the typical distance asks for finer cells still: the
  // first grid is the grid, built once.
  GridSearch first(points, num_points, finestCellSize(extent, num_points), threads);
  if (num_points == 0 || k == 0) return first;
  const std::size_t samples = std::min<std::size_t>(num_points, 256);
  std::vector<float> kth(samples);
  Scratch scratch;
  std::vector<std::int32_t> ids(std::min(k, num_points));
  std::vector<float> dist2(ids.size());
  // A sample in a crowded cell of the first grid lies in a blob (left out below, as a speck): not
  // asked, which would read the whole blob.
  const std::int32_t crowded = first.crowdedLimit();
  for (std::size_t s = 0; s < samples; ++s) {
    const float* p = points + 3 * (s * num_points / samples);
    const std::int64_t c =
        first.cellIndex(first.coordinate(p[0], 0), first.coordinate(p[1], 1), first.coordinate(p[2], 2));
    if (first.cell_start_[c + 1] - first.cell_start_[c] > crowded) {
      kth[s] = 0;
      continue;
    }
    first.nearestGrowing(p, ids.size(), kBlockReach, scratch, ids.data(), dist2.data());
    kth[s] = dist2.back();
  }
  // The typical distance among the points that are not packed with k others into a speck of the
  // cloud (a hundredth of the cell of one cell per point): points stacked at one position (an organized scan's
  // invalid pixels written as zeros) or within a hair of it become one slot or a grid of their own
  // (nestCrowdedCells) and say nothing of the spacing of the rest.
  const double speck = kSpeckOfCell * cellSizeForCells(extent, double(num_points));
  auto distinct = std::partition(kth.begin(), kth.end(), [&](float d2) { return double(d2) > speck * speck; });
  if (distinct == kth.begin()) distinct = std::partition(kth.begin(), kth.end(), [](float d2) { return d2 > 0; });
  if (distinct == kth.begin()) {  // every sample coincides with k others: keep the first grid
    first.nestCrowdedCells(k, 0.f, depth, threads);
    return first;
  }
  const auto middle = kth.begin() + (distinct - kth.begin()) / 2;
  std::nth_element(kth.begin(), middle, distinct);
  const double typical = std::sqrt(double(*middle));
  const float wanted = static_cast<float>(typical / kCellsPerKthDistance);
  GridSearch grid = allowedCellSize(extent, num_points, wanted) == first.cell_size_
                        ? std::move(first)
                        : GridSearch(points, num_points, wanted, threads);
  grid.typical_distance_ = typical;
  grid.built_k_ = k;
  grid.nestCrowdedCells(k, 0.f, depth, threads);
  return grid;
}

GridSearch GridSearch::radiusGrid(const float* points, std::size_t num_points, float radius, int depth, int threads) {
  if (!(radius > 0) || !std::isfinite(radius))
    throw std::invalid_argument("GridSearch: the radius must be positive and finite");
  GridSearch grid(points, num_points, radius / kBlockReach, threads);
  grid.nestCrowdedCells(0, radius, depth, threads);
  return grid;
}

std::int32_t GridSearch::crowdedLimit() const {
  const std::size_t cells = cell_start_.size() - 1;
  std::size_t occupied = 0;
  for (std::size_t c = 0; c < cells; ++c) occupied += cell_start_[c + 1] > cell_start_[c];
  const double mean = occupied > 0 ? double(ids_.size()) / double(occupied) : 1.0;
  return std::max(kCrowdedCell, static_cast<std::int32_t>(std::min(kCrowdedFactor * mean, 1e9)));
}

void GridSearch::nestCrowdedCells(std::size_t k, float radius, int depth, int threads) {
  if (depth >= kMaxNesting) return;
  const std::size_t cells = cell_start_.size() - 1;
  const std::int32_t limit = crowdedLimit();
  auto crowded = [&](std::int64_t c) { return cell_start_[c + 1] - cell_start_[c] > limit; };
  std::vector<std::int32_t> group_of(cells, -1);
  std::vector<std::int64_t> group;
  std::vector<std::int32_t> order;
  std::vector<float> slots;
  for (std::size_t start = 0; start < cells; ++start) {
    if (!crowded(std::int64_t(start)) || group_of[start] >= 0) continue;
    // Crowded cells side by side (a blob across a cell's corner) make one group, one grid.
    group.assign(1, std::int64_t(start));
    group_of[start] = 0;
    int lo[3] = {dims_[0], dims_[1], dims_[2]}, hi[3] = {-1, -1, -1};
    for (std::size_t g = 0; g < group.size(); ++g) {
      const std::int64_t c = group[g];
      int at[3];
      cellCoordinates(c, at);
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], at[a]);
        hi[a] = std::max(hi[a], at[a]);
      }
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int x = at[0] + dx, y = at[1] + dy, z = at[2] + dz;
            if (x < 0 || y < 0 || z < 0 || x >= dims_[0] || y >= dims_[1] || z >= dims_[2]) continue;
            const std::int64_t o = cellIndex(x, y, z);
            if (group_of[o] >= 0 || !crowded(o)) continue;
            group_of[o] = 0;
            group.push_back(o);
          }
    }
    // The group's positions in the order of their smallest index, so that the nested grid breaks
    // ties as this one does; its answers are those indices.
    order.clear();
    for (const std::int64_t c : group)
      for (std::int32_t t = cell_start_[c]; t < cell_start_[c + 1]; ++t) order.push_back(t);
    std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t o) { return ids_[a] < ids_[o]; });
    slots.resize(3 * order.size());
    std::vector<std::int32_t> first_ids(order.size());
    for (std::size_t t = 0; t < order.size(); ++t) {
      slots[3 * t] = x_[order[t]];
      slots[3 * t + 1] = y_[order[t]];
      slots[3 * t + 2] = z_[order[t]];
      first_ids[t] = ids_[order[t]];
    }
    auto nested =
        std::make_shared<GridSearch>(k > 0 ? nearestGrid(slots.data(), order.size(), k, depth + 1, threads)
                                           : radiusGrid(slots.data(), order.size(), radius, depth + 1, threads));
    if (std::size_t(nested->dims_[0]) * nested->dims_[1] * nested->dims_[2] < 8) continue;  // it would not spread them
    if (nested_of_cell_.empty()) nested_of_cell_.assign(cells, -1);
    for (const std::int64_t c : group) nested_of_cell_[c] = static_cast<std::int32_t>(nested_.size());
    NestedBox box;
    std::size_t box_cells = 1;
    for (int a = 0; a < 3; ++a) {
      box.lo[a] = lo[a];
      box.hi[a] = hi[a];
      box_cells *= std::size_t(hi[a] - lo[a] + 1);
    }
    box.whole = box_cells == group.size();
    nested_boxes_.push_back(box);
    nested_.push_back(std::move(nested));
    nested_ids_.push_back(std::move(first_ids));
    nested_points_.push_back(slots);
  }
}

float GridSearch::nestedCovered(const float* query, std::size_t n) const {
  // Every point closer to the query than this lies in the group's cells (a box of them).
  const NestedBox& box = nested_boxes_[n];
  if (!box.whole) return 0.f;
  float covered = kInfinity;
  for (int a = 0; a < 3; ++a) {
    if (box.lo[a] > 0) covered = std::min(covered, query[a] - (origin_[a] + cell_size_ * float(box.lo[a])));
    if (box.hi[a] < dims_[a] - 1)
      covered = std::min(covered, origin_[a] + cell_size_ * float(box.hi[a] + 1) - query[a]);
  }
  return covered == kInfinity ? kInfinity : std::max(covered - margin_, 0.f);
}

std::int64_t GridSearch::cellIndex(int x, int y, int z) const {
  return x + std::int64_t(dims_[0]) * (y + std::int64_t(dims_[1]) * z);
}

void GridSearch::cellCoordinates(std::int64_t c, int cell[3]) const {
  cell[0] = int(c % dims_[0]);
  cell[1] = int((c / dims_[0]) % dims_[1]);
  cell[2] = int(c / (std::int64_t(dims_[0]) * dims_[1]));
}

int GridSearch::coordinate(float v, int axis) const {
  const float c = std::floor((v - origin_[axis]) / cell_size_);
  return c < 0.f ? 0 : (c >= float(dims_[axis]) ? dims_[axis] - 1 : int(c));
}

void GridSearch::gather(const int cell[3], int reach, Scratch& s) const {
  s.clear();
  const int x0 = std::max(cell[0] - reach, 0), x1 = std::min(cell[0] + reach, dims_[0] - 1);
  for (int z = std::max(cell[2] - reach, 0); z <= std::min(cell[2] + reach, dims_[2] - 1); ++z)
    for (int y = std::max(cell[1] - reach, 0); y <= std::min(cell[1] + reach, dims_[1] - 1); ++y) {
      // Cells x0..x1 of a row lie one after another in cell order; a crowded cell among them is
      // asked through its own grid instead.
      auto take = [&](std::int32_t b, std::int32_t e) {
        s.x.insert(s.x.end(), x_.begin() + b, x_.begin() + e);
        s.y.insert(s.y.end(), y_.begin() + b, y_.begin() + e);
        s.z.insert(s.z.end(), z_.begin() + b, z_.begin() + e);
        if (s.grid_places)
          for (std::int32_t g = b; g < e; ++g) s.ids.push_back(g);
        else
          s.ids.insert(s.ids.end(), ids_.begin() + b, ids_.begin() + e);
      };
      if (nested_of_cell_.empty()) {
        take(cell_start_[cellIndex(x0, y, z)], cell_start_[cellIndex(x1, y, z) + 1]);
        continue;
      }
      std::int32_t run = cell_start_[cellIndex(x0, y, z)];
      for (int x = x0; x <= x1; ++x) {
        const std::int64_t c = cellIndex(x, y, z);
        if (nested_of_cell_[c] < 0) continue;
        take(run, cell_start_[c]);
        if (std::find(s.crowded.begin(), s.crowded.end(), nested_of_cell_[c]) == s.crowded.end())
          s.crowded.push_back(nested_of_cell_[c]);
        run = cell_start_[c + 1];
      }
      take(run, cell_start_[cellIndex(x1, y, z) + 1]);
    }
}

float GridSearch::coveredRadius(const float* query, const int cell[3], int reach) const {
  float covered = kInfinity;
  for (int a = 0; a < 3; ++a) {
    if (cell[a] - reach > 0) covered = std::min(covered, query[a] - (origin_[a] + cell_size_ * float(cell[a] - reach)));
    if (cell[a] + reach < dims_[a] - 1)
      covered = std::min(covered, origin_[a] + cell_size_ * float(cell[a] + reach + 1) - query[a]);
  }
  return covered == kInfinity ? kInfinity : std::max(covered - margin_, 0.f);
}

void GridSearch::distances(const float* query, Scratch& s) const {
  s.dist2.resize(s.ids.size());
  squaredDistances(query, s.x.data(), s.y.data(), s.z.data(), s.ids.size(), s.dist2.data());
  // A crowded cell's candidates: its own grid's k nearest (those that can be among the answer), or
  // every position within the radius, as keys of this grid.
  s.nested_keys.clear();
  for (const std::int32_t n : s.crowded) {
    const GridSearch& nested = *nested_[n];
    if (s.wanted_k > 0)
      nested.nearestWith(query, s.wanted_k, s.inner(), s.nested_ids, s.nested_dist2);
    else
      nested.withinRadius(query, s.wanted_radius, 0, s.nested_ids, s.nested_dist2);
    for (std::size_t j = 0; j < s.nested_ids.size(); ++j)
      s.nested_keys.push_back(distanceKey(s.nested_dist2[j], nested_ids_[n][s.nested_ids[j]]));
  }
}

std::size_t GridSearch::keysBelow(float limit2, Scratch& s) const {
  s.keys.resize(s.ids.size() + kKeysSlack + s.nested_keys.size());
  std::size_t count = detail::keysBelow(s.dist2.data(), s.ids.data(), s.ids.size(), limit2, s.keys.data());
  for (const std::uint64_t k : s.nested_keys)
    if (keyDist2(k) < limit2) s.keys[count++] = k;
  return count;
}

bool GridSearch::selectNearest(const float* query, std::size_t k, float covered, Scratch& s, std::int32_t* out_ids,
                               float* out_dist2) const {
  s.wanted_k = k;
  distances(query, s);
  const float covered2 = covered == kInfinity ? kInfinity : covered * covered;
  if (!member_ids_.empty()) {
    if (!selectAmongSlots(k, covered2, s)) return false;
    for (std::size_t j = 0; j < k; ++j) {
      out_ids[j] = keyId(s.sorted[j]);
      out_dist2[j] = keyDist2(s.sorted[j]);
    }
    s.hint2 = kHintGrowth * out_dist2[k - 1];
    return true;
  }
  // The previous query of the cell found its k-th neighbour at about the same distance: a limit
  // a little beyond it leaves few keys to sort, and is proof enough where it holds k of them.
  // Where the limit holds too few, a wider one (on a surface the keys within a limit grow with
  // its square) costs one more pass over the block, less than ranking all its keys.
  std::size_t count = 0;
  for (float limit2 = s.hint2; limit2 > 0 && limit2 < covered2; limit2 *= hintRetryGrowth(count, k)) {
    count = keysBelow(limit2, s);
    if (count >= k) break;
  }
  if (count < k) {
    count = keysBelow(covered2, s);  // covered2 infinite: the block holds every point
    if (count < k) return false;
  }
  sortAnswer(count, k, s);
  for (std::size_t j = 0; j < k; ++j) {
    out_ids[j] = keyId(s.sorted[j]);
    out_dist2[j] = keyDist2(s.sorted[j]);
  }
  s.hint2 = kHintGrowth * out_dist2[k - 1];
  return true;
}

void GridSearch::sortAnswer(std::size_t count, std::size_t k, Scratch& s) const {
  s.sorted.resize(k);
  if (!s.grid_places) {
    sortSmallest(s.keys.data(), count, k, s.sorted.data());
    return;
  }
  // Keys that name places order ties by place: they give the answer where no distances tie
  // among it or at its k-th, else the keys are ordered by distance and index.
  if (count <= detail::kRankSortLimit && detail::rankByDistance(s.keys.data(), count, k, s.sorted.data())) return;
  s.by_index.clear();
  for (std::size_t j = 0; j < count; ++j) {
    const std::int32_t place = keyId(s.keys[j]);
    s.by_index.emplace_back(distanceKey(keyDist2(s.keys[j]), ids_[place]), place);
  }
  std::partial_sort(s.by_index.begin(), s.by_index.begin() + std::ptrdiff_t(k), s.by_index.end());
  for (std::size_t j = 0; j < k; ++j) s.sorted[j] = distanceKey(keyDist2(s.by_index[j].first), s.by_index[j].second);
}

bool GridSearch::selectAmongSlots(std::size_t k, float covered2, Scratch& s) const {
  // The slots closer than a limit prove the answer where their points number k or more: first
  // the hint's limit, as selectNearest's, then the block's.
  auto held = [&](std::size_t count) {
    std::size_t points = 0;
    for (std::size_t j = 0; j < count && points < k; ++j) points += multiplicity(keyId(s.keys[j]));
    return points;
  };
  std::size_t count = 0;
  bool proven = false;
  if (s.hint2 > 0 && s.hint2 < covered2) {
    count = keysBelow(s.hint2, s);
    proven = held(count) >= k;
  }
  if (!proven) {
    count = keysBelow(covered2, s);
    if (held(count) < k) return false;
  }
  // The nearest slots until they hold k points: the k-th point's distance.
  const std::size_t wanted = std::min(k, count);
  s.slots.resize(wanted);
  sortSmallest(s.keys.data(), count, wanted, s.slots.data());
  const float kth2 = kthPointDistance2(s.slots.data(), wanted, k);
  const std::size_t members = expandMembers(s, count, kth2, k);
  s.sorted.resize(k);
  sortSmallest(s.member_keys.data(), members, k, s.sorted.data());
  return true;
}

void GridSearch::nearestGrowing(const float* query, std::size_t k, int reach, Scratch& s, std::int32_t* out_ids,
                                float* out_dist2) const {
  const int cell[3] = {coordinate(query[0], 0), coordinate(query[1], 1), coordinate(query[2], 2)};
  for (;; reach = reach < 4 ? reach + 1 : 2 * reach) {
    gather(cell, reach, s);
    if (selectNearest(query, k, coveredRadius(query, cell, reach), s, out_ids, out_dist2)) return;
  }
}

int GridSearch::nearestReach(std::size_t k) const {
  // The block that usually holds a query's k nearest: its cells reach the typical k-th distance
  // (measured for the k the grid was built for, scaled as on a surface). A grid capped in cells
  // (kMaxCellsPerPoint) has cells wider than the k-th distance and needs a smaller block.
  if (!(typical_distance_ > 0) || built_k_ == 0) return kBlockReach;
  const double typical = typical_distance_ * std::sqrt(double(k) / double(built_k_));
  return static_cast<int>(std::clamp(std::ceil(typical / cell_size_), 1.0, double(kBlockReach) + 1));
}

int GridSearch::reachFor(float radius) const {
  const double cells = std::ceil((double(radius) + margin_) / cell_size_);
  return static_cast<int>(std::min<double>(std::max(cells, 1.0), std::max({dims_[0], dims_[1], dims_[2]})));
}

std::size_t GridSearch::selectWithin(const float* query, float radius, float radius2, std::size_t max_neighbors,
                                     Scratch& s) const {
  s.wanted_k = 0;
  s.wanted_radius = radius;
  distances(query, s);
  std::size_t count = keysBelow(radius2, s);
  std::uint64_t* keys = s.keys.data();
  if (!member_ids_.empty()) {
    count = expandMembers(s, count, radius2, max_neighbors > 0 ? max_neighbors : num_points_);
    keys = s.member_keys.data();
  }
  const std::size_t kept = max_neighbors > 0 ? std::min(count, max_neighbors) : count;
  s.sorted.resize(kept);
  if (kept > 0) sortSmallest(keys, count, kept, s.sorted.data());
  return kept;
}

namespace {
// Squared radius as pcl::search::KdTree forms it (in double, then float).
float squared(float radius) { return static_cast<float>(double(radius) * double(radius)); }
}  // namespace

void GridSearch::nearest(const float* query, std::size_t k, std::vector<std::int32_t>& ids,
                         std::vector<float>& dist2) const {
  Scratch s;
  nearestWith(query, k, s, ids, dist2);
}

void GridSearch::nearestWith(const float* query, std::size_t k, Scratch& s, std::vector<std::int32_t>& ids,
                             std::vector<float>& dist2) const {
  const std::size_t count = finite3(query) ? std::min(k, size()) : 0;
  ids.resize(count);
  dist2.resize(count);
  if (count == 0) return;
  nearestGrowing(query, count, kBlockReach, s, ids.data(), dist2.data());
}

void GridSearch::withinRadius(const float* query, float radius, std::size_t max_neighbors,
                              std::vector<std::int32_t>& ids, std::vector<float>& dist2) const {
  ids.clear();
  dist2.clear();
  if (!finite3(query) || !(radius > 0) || size() == 0) return;
  Scratch s;
  const int cell[3] = {coordinate(query[0], 0), coordinate(query[1], 1), coordinate(query[2], 2)};
  gather(cell, reachFor(radius), s);
  const std::size_t kept = selectWithin(query, radius, squared(radius), max_neighbors, s);
  for (std::size_t j = 0; j < kept; ++j) {
    ids.push_back(keyId(s.sorted[j]));
    dist2.push_back(keyDist2(s.sorted[j]));
  }
}

template <typename Answer>
void GridSearch::forEachQueryCell(const float* queries, std::size_t num_queries, int threads, int reach,
                                  Answer answer) const {
  // Queries grouped by their cell, each cell's in query order: a cell's queries share one
  // gathered block. A counting sort over the cells where the queries are many; a few (a
  // receptive field's hops over a large surface) are sorted instead, for a cost that does not
  // grow with the grid.
  const std::size_t cells = cell_start_.size() - 1;
  std::vector<std::pair<std::int64_t, std::int32_t>> by_cell;  // (cell, query)
  by_cell.reserve(num_queries);
  for (std::size_t q = 0; q < num_queries; ++q) {
    const float* p = queries + 3 * q;
    if (finite3(p))
      by_cell.emplace_back(cellIndex(coordinate(p[0], 0), coordinate(p[1], 1), coordinate(p[2], 2)),
                           static_cast<std::int32_t>(q));
  }
  if (by_cell.size() * 16 < cells) {
    std::sort(by_cell.begin(), by_cell.end());
  } else {
    std::vector<std::int64_t> cell_of(by_cell.size());
    for (std::size_t t = 0; t < by_cell.size(); ++t) cell_of[t] = by_cell[t].first;
    std::vector<std::int32_t> start, order;
    detail::groupByKey(cell_of, cells, start, order);
    std::vector<std::pair<std::int64_t, std::int32_t>> grouped(by_cell.size());
    for (std::size_t t = 0; t < order.size(); ++t) grouped[t] = by_cell[std::size_t(order[t])];
    by_cell.swap(grouped);
  }
  // A cell's queries in runs of at most kQueriesPerTask, so that a crowded cell (coincident
  // points) is answered by every thread, each run gathering the block once.
  std::vector<std::size_t> task_first;
  for (std::size_t b = 0; b < by_cell.size(); ++b)
    if (b == 0 || by_cell[b].first != by_cell[b - 1].first || b - task_first.back() == kQueriesPerTask)
      task_first.push_back(b);
  const std::int64_t tasks = static_cast<std::int64_t>(task_first.size());
  task_first.push_back(by_cell.size());
#pragma omp parallel num_threads(detail::resolveThreads(threads))
  {
    Scratch s;
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t o = 0; o < tasks; ++o) {
      const std::int64_t c = by_cell[task_first[o]].first;
      int cell[3];
      cellCoordinates(c, cell);
      gather(cell, reach, s);
      for (std::size_t b = task_first[o]; b < task_first[o + 1]; ++b) answer(by_cell[b].second, cell, s);
    }
  }
}

std::vector<std::uint8_t> GridSearch::answerInsideCrowdedCells(const float* queries, std::size_t num_queries,
                                                               std::size_t k, int threads,
                                                               const NearestVisitor& visit) const {
  if (nested_.empty()) return {};
  std::vector<std::uint8_t> answered(num_queries, 0);
  std::vector<std::vector<std::int32_t>> inside(nested_.size());
  for (std::size_t q = 0; q < num_queries; ++q) {
    const float* p = queries + 3 * q;
    if (!finite3(p)) continue;
    const std::int32_t n = nested_of_cell_[cellIndex(coordinate(p[0], 0), coordinate(p[1], 1), coordinate(p[2], 2))];
    if (n >= 0) inside[n].push_back(static_cast<std::int32_t>(q));
  }
  for (std::size_t n = 0; n < nested_.size(); ++n) {
    const GridSearch& nested = *nested_[n];
    if (inside[n].empty() || nested.size() < k) continue;
    std::vector<float> positions(3 * inside[n].size());
    for (std::size_t r = 0; r < inside[n].size(); ++r)
      std::copy_n(queries + 3 * std::size_t(inside[n][r]), 3, positions.begin() + 3 * r);
    // The cell's k nearest positions of each query, in a batch; they are the query's answer where
    // they lie closer than the cell's faces (nothing outside can come as near).
    const Neighborhoods rows = nested.nearest(positions.data(), inside[n].size(), k, threads);
    const float* slots = nested_points_[n].data();
    const std::vector<std::int32_t>& first_ids = nested_ids_[n];
#pragma omp parallel num_threads(detail::resolveThreads(threads))
    {
      Scratch s;  // the slot keys of a query (s.keys), their members and the answer
      s.sorted.resize(k);
      std::vector<std::int32_t> out(k);
#pragma omp for schedule(dynamic, 256)
      for (std::int64_t r = 0; r < static_cast<std::int64_t>(inside[n].size()); ++r) {
        const float* p = positions.data() + 3 * r;
        std::vector<std::uint64_t>& keys = s.keys;
        keys.clear();
        for (const std::int32_t* j = rows.begin(r); j != rows.begin(r) + rows.size(r); ++j) {
          const float* o = slots + 3 * std::size_t(*j);
          const float ex = o[0] - p[0], ey = o[1] - p[1], ez = o[2] - p[2];
          keys.push_back(distanceKey(ex * ex + ey * ey + ez * ez, first_ids[*j]));
        }
        const float kth2 = kthPointDistance2(keys.data(), keys.size(), k);
        const float covered = nestedCovered(p, n);
        if (!(covered == kInfinity || kth2 < covered * covered)) continue;
        if (member_ids_.empty()) {
          for (std::size_t j = 0; j < k; ++j) out[j] = keyId(keys[j]);
        } else {  // the slots' first members, in order of distance then index
          const std::size_t members = expandMembers(s, keys.size(), kth2, k);
          sortSmallest(s.member_keys.data(), members, k, s.sorted.data());
          for (std::size_t j = 0; j < k; ++j) out[j] = keyId(s.sorted[j]);
        }
        visit(inside[n][r], out.data(), k);
        answered[inside[n][r]] = 1;
      }
    }
  }
  return answered;
}

Neighborhoods GridSearch::nearest(const float* queries, std::size_t num_queries, std::size_t k, int threads) const {
  const std::size_t per_query = std::min(k, size());
  Neighborhoods result;
  result.offsets.resize(num_queries + 1);
  for (std::size_t q = 0; q < num_queries; ++q)
    result.offsets[q + 1] = result.offsets[q] + (finite3(queries + 3 * q) ? std::int64_t(per_query) : 0);
  result.indices.resize(std::size_t(result.offsets.back()));
  visitNearest(
      queries, num_queries, k,
      [&](std::int32_t q, const std::int32_t* ids, std::size_t count) {
        std::copy_n(ids, count, result.indices.data() + result.offsets[q]);
      },
      threads);
  return result;
}

void GridSearch::visitNearest(const float* queries, std::size_t num_queries, std::size_t k, const NearestVisitor& visit,
                              int threads) const {
  const std::size_t per_query = std::min(k, size());
  if (per_query == 0) return;
  const int reach = nearestReach(per_query);
  const std::vector<std::uint8_t> answered = answerInsideCrowdedCells(queries, num_queries, per_query, threads, visit);
  forEachQueryCell(queries, num_queries, threads, reach, [&](std::int32_t q, const int cell[3], Scratch& s) {
    if (!answered.empty() && answered[q]) return;
    const float* p = queries + 3 * std::size_t(q);
    // A query at the position of the cell's previous one (coincident points) has its answer.
    if (s.last_query >= 0 && std::memcmp(p, queries + 3 * std::size_t(s.last_query), 3 * sizeof(float)) == 0) {
      visit(q, s.answer_ids.data(), per_query);
      return;
    }
    s.answer_ids.resize(per_query);
    s.answer_dist2.resize(per_query);
    if (!selectNearest(p, per_query, coveredRadius(p, cell, reach), s, s.answer_ids.data(), s.answer_dist2.data())) {
      Scratch own;  // the shared block stays gathered for the cell's next query
      nearestGrowing(p, per_query, reach + 1, own, s.answer_ids.data(), s.answer_dist2.data());
    }
    visit(q, s.answer_ids.data(), per_query);
    s.last_query = q;
  });
}

bool GridSearch::visitOwnNearestPositions(std::size_t k, const PositionVisitor& visit, int threads) const {
  if (!member_ids_.empty() || !nested_.empty()) return false;
  const std::size_t per_query = std::min(k, size());
  if (per_query == 0) return true;
  const int reach = nearestReach(per_query);
  // The queries are the grid's points in cell order: each cell's (in runs, as forEachQueryCell's)
  // share one gathered block, with no grouping of queries first.
  std::vector<std::int64_t> task_cell;
  std::vector<std::int32_t> task_first;
  for (std::size_t c = 0; c + 1 < cell_start_.size(); ++c)
    for (std::int32_t b = cell_start_[c]; b < cell_start_[c + 1]; b += std::int32_t(kQueriesPerTask)) {
      task_cell.push_back(static_cast<std::int64_t>(c));
      task_first.push_back(b);
    }
  const std::int64_t tasks = static_cast<std::int64_t>(task_cell.size());
#pragma omp parallel num_threads(detail::resolveThreads(threads))
  {
    Scratch s, own;
    s.grid_places = own.grid_places = true;
    std::vector<std::int32_t> places(per_query);
    std::vector<float> dist2(per_query), rows(3 * per_query);
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t t = 0; t < tasks; ++t) {
      const std::int64_t c = task_cell[t];
      int cell[3];
      cellCoordinates(c, cell);
      // The cells come in order, side by side: the last cell's k-th distance is a fair first
      // limit for the next (a hint only: any limit gives the same answer).
      const float hint2 = s.hint2;
      gather(cell, reach, s);
      s.hint2 = hint2;
      const std::int32_t last = std::min(cell_start_[c + 1], task_first[t] + std::int32_t(kQueriesPerTask));
      for (std::int32_t g = task_first[t]; g < last; ++g) {
        const float p[3] = {x_[g], y_[g], z_[g]};
        if (!selectNearest(p, per_query, coveredRadius(p, cell, reach), s, places.data(), dist2.data()))
          nearestGrowing(p, per_query, reach + 1, own, places.data(), dist2.data());
        for (std::size_t j = 0; j < per_query; ++j) {
          rows[3 * j] = x_[places[j]];
          rows[3 * j + 1] = y_[places[j]];
          rows[3 * j + 2] = z_[places[j]];
        }
        visit(p, rows.data(), per_query);
      }
    }
  }
  return true;
}

Neighborhoods GridSearch::withinRadius(const float* queries, std::size_t num_queries, float radius,
                                       std::size_t max_neighbors, int threads) const {
  std::vector<std::vector<std::int32_t>> rows(num_queries);
  if (radius > 0 && size() > 0) {
    const float radius2 = squared(radius);
    forEachQueryCell(queries, num_queries, threads, reachFor(radius), [&](std::int32_t q, const int*, Scratch& s) {
      const std::size_t kept = selectWithin(queries + 3 * std::size_t(q), radius, radius2, max_neighbors, s);
      rows[q].resize(kept);
      for (std::size_t j = 0; j < kept; ++j) rows[q][j] = keyId(s.sorted[j]);
    });
  }
  return Neighborhoods::fromRows(rows);
}

Neighborhoods nearestNeighborGraph(const float* points, std::size_t num_points, std::size_t k, int threads) {
  return GridSearch::forNearest(points, num_points, k, threads).nearest(points, num_points, k, threads);
}

}  // namespace pcl_dise
