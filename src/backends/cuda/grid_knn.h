#pragma once
// k nearest neighbours and radius search on a uniform grid, for the GPU: the points sorted by cell,
// and within a cell by position, so that coincident points lie together; a k-NN query scans rings
// of cells around its own until the k-th distance found is inside the covered ball, a radius query
// the cells its ball touches. Coincident points are one distance: once one of them is too far or
// loses its tie, the query skips the rest, so that a position held by many points (zeros written
// for invalid pixels, duplicate returns) costs what one point costs. The queries run in the CUDA kernels
// (one thread per query, grid_knn.cu) and, with the host build of the grid below, on the CPU in
// the tests. Plain C++ where nvcc is absent.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pcl_dise/core/eigen3x3.h"  // PCL_DISE_HOST_DEVICE
#include "pcl_dise/core/grid_margin.h"

namespace pcl_dise {
namespace cuda {

/** The grid's geometry: cell c = (x + dims[0] * (y + dims[1] * z)) covers
 *  origin + cell_size * [x, x+1) x [y, y+1) x [z, z+1); points outside clamp to the border cells. */
struct GridShape {
  float origin[3] = {0, 0, 0};
  float cell_size = 1.f;
  int dims[3] = {1, 1, 1};
  float margin = 0.f;  ///< how far rounding can carry a point across a cell face (core/grid_margin.h)

  std::int64_t numCells() const { return std::int64_t(dims[0]) * dims[1] * dims[2]; }

  PCL_DISE_HOST_DEVICE int coordinate(float x, int axis) const {
    const float cell = std::floor((x - origin[axis]) / cell_size);
    return cell < 0.f ? 0 : (cell >= float(dims[axis]) ? dims[axis] - 1 : int(cell));
  }

  PCL_DISE_HOST_DEVICE std::int64_t cellOf(const float* p) const {
    return coordinate(p[0], 0) +
           std::int64_t(dims[0]) * (coordinate(p[1], 1) + std::int64_t(dims[1]) * coordinate(p[2], 2));
  }
};

/** The box the grid's cells cover: per axis, from the 0.1% to the 99.9% quantile of the points
 *  (of a sample of at most 65,536 of them), so that a few far outliers, which clamp to the border
 *  cells, do not stretch the cells over the whole cloud; every point where there are fewer than
 *  1,000. lo, hi: 3 each. */
inline void gridBoxFor(const float* points, std::size_t m, float* lo, float* hi) {
  const std::size_t stride = std::max<std::size_t>(1, m / 65536);
  std::vector<float> axis;
  axis.reserve(m / stride + 1);
  for (int a = 0; a < 3; ++a) {
    axis.clear();
    for (std::size_t i = 0; i < m; i += stride) axis.push_back(points[3 * i + a]);
    const std::size_t cut = axis.size() >= 1000 ? axis.size() / 1000 : 0;
    std::nth_element(axis.begin(), axis.begin() + cut, axis.end());
    lo[a] = axis[cut];
    std::nth_element(axis.begin(), axis.end() - 1 - cut, axis.end());
    hi[a] = *(axis.end() - 1 - cut);
  }
}

/** About `cells` cells over the box lo .. hi (3 each). */
inline GridShape gridShapeForBox(const float* lo, const float* hi, std::int64_t target_cells) {
  GridShape g;
  const double extent[3] = {double(hi[0]) - lo[0], double(hi[1]) - lo[1], double(hi[2]) - lo[2]};
  const double largest = std::max({extent[0], extent[1], extent[2]});
  const double target = double(std::max<std::int64_t>(target_cells, 1));
  // Cells of side h: prod(extent / h + 1) ~ target, found by bisection on h.
  double h_lo = largest > 0 ? largest * 1e-7 : 1.0, h_hi = largest > 0 ? largest : 1.0;
  for (int step = 0; step < 60; ++step) {
    const double h = std::sqrt(h_lo * h_hi);
    double cells = 1;
    for (double e : extent) cells *= std::floor(e / h) + 1;
    (cells > target ? h_lo : h_hi) = h;
  }
  g.cell_size = static_cast<float>(h_hi);
  for (int a = 0; a < 3; ++a) {
    g.origin[a] = lo[a];
    g.dims[a] = static_cast<int>(std::floor(extent[a] / h_hi)) + 1;
  }
  double largest_coordinate = 0;  // of the box's corners: a point beyond them clamps to a border cell
  for (int a = 0; a < 3; ++a)
    largest_coordinate = std::max({largest_coordinate, std::fabs(double(lo[a])), std::fabs(double(hi[a]))});
  g.margin = gridRoundingMargin(g.cell_size, std::max({g.dims[0], g.dims[1], g.dims[2]}), largest_coordinate);
  return g;
}

/** About one cell per point over gridBoxFor's box of points (M x 3, finite), at most max_cells
 *  cells: surfaces then hold tens of points per occupied cell, volumes about one. */
inline GridShape gridShapeFor(const float* points, std::size_t m, std::int64_t max_cells = std::int64_t(1) << 28) {
  if (m == 0) return GridShape();
  float lo[3], hi[3];
  gridBoxFor(points, m, lo, hi);
  return gridShapeForBox(lo, hi, std::min<std::int64_t>(std::int64_t(m), max_cells));
}

/** Whether point a comes before point b within a cell: by x, then y, then z (3 floats each). */
PCL_DISE_HOST_DEVICE bool positionBefore(const float* a, const float* b) {
  if (a[0] != b[0]) return a[0] < b[0];
  if (a[1] != b[1]) return a[1] < b[1];
  return a[2] < b[2];
}

/** Whether two points (3 floats each) are at one position (coincident points share a cell). */
PCL_DISE_HOST_DEVICE bool samePosition(const float* a, const float* b) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/** A grid of its own over the points of one crowded cell (near-coincident points, a blob far
 *  denser than the rest), so that a query there reads the points near it, not all of them. Its
 *  cell c holds the entries first + cell_start[c] .. first + cell_start[c + 1] of the outer
 *  grid's sorted arrays, cell_start being GridView::nested_cell_start + cell_start_at. */
struct NestedGrid {
  GridShape shape;
  std::int32_t first = 0;
  std::int64_t cell_start_at = 0;
};

/** Cells holding more points than this get a nested grid: 32 times the mean of the occupied
 *  cells, at least 1,024 (a surface's cells hold tens). */
inline std::int64_t crowdedCellLimit(std::size_t points, std::int64_t occupied_cells) {
  const double mean = occupied_cells > 0 ? double(points) / double(occupied_cells) : 0.0;
  return std::max<std::int64_t>(1024, static_cast<std::int64_t>(32 * mean));
}

/** The cells of a crowded cell's nested grid: about one per 4 of its points. A blob is a volume,
 *  where 4 points per cell keep a query's 65 nearest within two rings (one per point needs three:
 *  on blobs of 90% of 200k points, within 1e-5, Gaussian or flat, 1.2 to 1.6 times the time of
 *  distinct points against 1.5 to 2.1). */
inline std::int64_t nestedCellsFor(std::int32_t points) { return std::max<std::int64_t>(1, points / 4); }

/** A built grid (device or host arrays). cell_start: numCells + 1 entries, the points of cell c
 *  are sorted_ids[cell_start[c] .. cell_start[c+1]), ordered by position and, at one position,
 *  by id (a crowded cell's by its nested cells first); sorted_points: M x 3 in that order;
 *  run_end[p]: one past the last entry at entry p's position; nested_of_cell: per cell, its
 *  NestedGrid in `nested` or -1 (nullptr: no cell is crowded). */
struct GridView {
  GridShape shape;
  const std::int32_t* cell_start;
  const std::int32_t* sorted_ids;
  const float* sorted_points;
  const std::int32_t* run_end;
  const std::int32_t* nested_of_cell = nullptr;
  const NestedGrid* nested = nullptr;
  const std::int32_t* nested_cell_start = nullptr;
};

/** Whether (d, id) stays out of a full list of `capacity` entries: it is farther than the last,
 *  or as far with a larger id. The rest of its position's run (the same d, larger ids) stays out too. */
PCL_DISE_HOST_DEVICE bool staysOut(const std::int32_t* ids, const float* dist2, int found, int capacity, float d,
                                   std::int32_t id) {
  return found == capacity && (d > dist2[capacity - 1] || (d == dist2[capacity - 1] && id > ids[capacity - 1]));
}

/** |b - a|^2 in float, each product and sum rounded as written (no fused multiply-add), as the
 *  CPU's GridSearch forms it: ties and radius limits fall alike on both. */
PCL_DISE_HOST_DEVICE float squaredDistance(const float* a, const float* b) {
#if defined(__CUDA_ARCH__)
  const float ex = __fsub_rn(b[0], a[0]), ey = __fsub_rn(b[1], a[1]), ez = __fsub_rn(b[2], a[2]);
  return __fadd_rn(__fadd_rn(__fmul_rn(ex, ex), __fmul_rn(ey, ey)), __fmul_rn(ez, ez));
#else
  const float ex = b[0] - a[0], ey = b[1] - a[1], ez = b[2] - a[2];
  return ex * ex + ey * ey + ez * ez;
#endif
}

/** Puts (d, id) into the list ids / dist2 of `found` entries sorted by distance, ties by smaller
 *  id, keeping at most `capacity`; returns the new count. */
PCL_DISE_HOST_DEVICE int insertNearest(std::int32_t* ids, float* dist2, int found, int capacity, float d,
                                       std::int32_t id) {
  if (staysOut(ids, dist2, found, capacity, d, id)) return found;
  int slot = found < capacity ? found++ : capacity - 1;
  while (slot > 0 && (dist2[slot - 1] > d || (dist2[slot - 1] == d && ids[slot - 1] > id))) {
    dist2[slot] = dist2[slot - 1];
    ids[slot] = ids[slot - 1];
    --slot;
  }
  dist2[slot] = d;
  ids[slot] = id;
  return found;
}

/** Entries first .. last of the sorted arrays into the list of the k nearest (found so far:
 *  `found`); a run of coincident points is skipped once one of them stays out. Returns the count. */
PCL_DISE_HOST_DEVICE int scanNearest(const GridView& grid, std::int32_t first, std::int32_t last, const float* query,
                                     int k, std::int32_t* ids, float* dist2, int found) {
  for (std::int32_t p = first; p < last;) {
    const float d = squaredDistance(query, grid.sorted_points + 3 * std::int64_t(p));
    if (staysOut(ids, dist2, found, k, d, grid.sorted_ids[p])) {
      p = grid.run_end[p];
      continue;
    }
    found = insertNearest(ids, dist2, found, k, d, grid.sorted_ids[p]);
    ++p;
  }
  return found;
}

/** The rings of cells of `s` around the query, each cell handed to visit(cell, found) (which
 *  returns the new count), until the k-th distance found lies inside the ball the rings cover. */
template <typename Visit>
PCL_DISE_HOST_DEVICE int nearestByRings(const GridShape& s, const float* query, int k, const float* dist2, int found,
                                        Visit visit) {
  const int cx = s.coordinate(query[0], 0), cy = s.coordinate(query[1], 1), cz = s.coordinate(query[2], 2);
  // The ball around the query that rings 0..r cover: the distance to its own cell's nearest face
  // plus r cells. A query outside the grid's box covers nothing beyond its rings.
  float to_face = 3.4e38f;
  for (int a = 0; a < 3; ++a) {
    const int c = a == 0 ? cx : (a == 1 ? cy : cz);
    const float lower = query[a] - (s.origin[a] + s.cell_size * float(c));
    const float upper = s.origin[a] + s.cell_size * float(c + 1) - query[a];
    to_face = std::fmin(to_face, std::fmin(lower, upper));
  }
  to_face = std::fmax(to_face, 0.f);
  const int max_ring = std::max(std::max(s.dims[0], s.dims[1]), s.dims[2]);
  for (int r = 0; r <= max_ring; ++r) {
    for (int dz = -r; dz <= r; ++dz) {
      const int z = cz + dz;
      if (z < 0 || z >= s.dims[2]) continue;
      for (int dy = -r; dy <= r; ++dy) {
        const int y = cy + dy;
        if (y < 0 || y >= s.dims[1]) continue;
        const bool inner = dz != r && dz != -r && dy != r && dy != -r;  // only x = +-r is on the ring
        for (int dx = -r; dx <= r; dx += inner && r > 0 ? 2 * r : 1) {
          const int x = cx + dx;
          if (x < 0 || x >= s.dims[0]) continue;
          found = visit(x + std::int64_t(s.dims[0]) * (y + std::int64_t(s.dims[1]) * z), found);
        }
      }
    }
    // The ball rings 0..r cover, less what rounding may have moved across their faces (the CPU's rule).
    const float covered = std::fmax(to_face + s.cell_size * float(r) - s.margin, 0.f);
    if (found == k && dist2[k - 1] < covered * covered) break;
  }
  return found;
}

/** The k nearest points of `query` (3 floats), nearest first, into ids / dist2 (k entries each);
 *  returns how many were found (fewer than k only where the grid holds fewer points). Ties in
 *  distance keep the smaller id first. A crowded cell is searched by rings of its nested grid,
 *  into the same list, until nothing left in it can come nearer. */
PCL_DISE_HOST_DEVICE int nearestInGrid(const GridView& grid, const float* query, int k, std::int32_t* ids,
                                       float* dist2) {
  if (k <= 0) return 0;
  return nearestByRings(grid.shape, query, k, dist2, 0, [&](std::int64_t cell, int found) {
    const std::int32_t nested = grid.nested_of_cell ? grid.nested_of_cell[cell] : -1;
    if (nested < 0)
      return scanNearest(grid, grid.cell_start[cell], grid.cell_start[cell + 1], query, k, ids, dist2, found);
    const NestedGrid& n = grid.nested[nested];
    const std::int32_t* starts = grid.nested_cell_start + n.cell_start_at;
    return nearestByRings(n.shape, query, k, dist2, found, [&](std::int64_t c, int f) {
      return scanNearest(grid, n.first + starts[c], n.first + starts[c + 1], query, k, ids, dist2, f);
    });
  });
}

/** Each cell of `s` that a ball of the radius around the query can reach, handed to visit(cell),
 *  with room for the rounding of the distances and of the query's coordinates. */
template <typename Visit>
PCL_DISE_HOST_DEVICE void cellsWithin(const GridShape& s, const float* query, float radius, Visit visit) {
  int lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    const float reach = radius * 1.0001f + std::fabs(query[a]) * 1e-6f;
    lo[a] = s.coordinate(query[a] - reach, a);
    hi[a] = s.coordinate(query[a] + reach, a);
  }
  for (int z = lo[2]; z <= hi[2]; ++z)
    for (int y = lo[1]; y <= hi[1]; ++y)
      for (int x = lo[0]; x <= hi[0]; ++x) visit(x + std::int64_t(s.dims[0]) * (y + std::int64_t(s.dims[1]) * z));
}

/** The points of the grid closer than the radius to `query` (3 floats): squared distance <
 *  radius2, as pcl::search::KdTree and the CPU's GridSearch decide. Returns how many there are;
 *  the nearest min(count, capacity) of them, nearest first (ties: smaller id), go to ids / dist2
 *  (capacity entries each; capacity 0 only counts). radius: the radius whose square (formed in
 *  double, then float) is radius2; it bounds the cells visited. */
PCL_DISE_HOST_DEVICE int withinRadiusInGrid(const GridView& grid, const float* query, float radius, float radius2,
                                            int capacity, std::int32_t* ids, float* dist2) {
  int count = 0, kept = 0;
  auto scan = [&](std::int32_t first, std::int32_t last) {
    for (std::int32_t p = first; p < last;) {
      const float d = squaredDistance(query, grid.sorted_points + 3 * std::int64_t(p));
      const std::int32_t run_end = grid.run_end[p];
      if (d < radius2) {
        count += run_end - p;
        for (; capacity > 0 && p < run_end && !staysOut(ids, dist2, kept, capacity, d, grid.sorted_ids[p]); ++p)
          kept = insertNearest(ids, dist2, kept, capacity, d, grid.sorted_ids[p]);
      }
      p = run_end;
    }
  };
  cellsWithin(grid.shape, query, radius, [&](std::int64_t cell) {
    const std::int32_t nested = grid.nested_of_cell ? grid.nested_of_cell[cell] : -1;
    if (nested < 0) return scan(grid.cell_start[cell], grid.cell_start[cell + 1]);
    const NestedGrid& n = grid.nested[nested];
    const std::int32_t* starts = grid.nested_cell_start + n.cell_start_at;
    cellsWithin(n.shape, query, radius, [&](std::int64_t c) { scan(n.first + starts[c], n.first + starts[c + 1]); });
  });
  return count;
}

/** The grid built on the host (what grid_knn.cu builds on the device), for the tests: the same
 *  cells, runs and nested grids (the order within a cell may differ; the answers do not). */
struct HostGrid {
  GridShape shape;
  std::vector<std::int32_t> cell_start, sorted_ids, run_end, nested_of_cell, nested_cell_start;
  std::vector<float> sorted_points;
  std::vector<NestedGrid> nested;

  HostGrid(const float* points, std::size_t m) : shape(gridShapeFor(points, m)) {
    std::vector<std::int64_t> cell(m);
    cell_start.assign(static_cast<std::size_t>(shape.numCells()) + 1, 0);
    for (std::size_t i = 0; i < m; ++i) ++cell_start[(cell[i] = shape.cellOf(points + 3 * i)) + 1];
    std::int64_t occupied = 0;
    for (std::size_t c = 1; c < cell_start.size(); ++c) occupied += cell_start[c] > 0;
    for (std::size_t c = 1; c < cell_start.size(); ++c) cell_start[c] += cell_start[c - 1];
    sorted_ids.resize(m);
    std::vector<std::int32_t> next(cell_start.begin(), cell_start.end() - 1);
    for (std::size_t i = 0; i < m; ++i) sorted_ids[next[cell[i]]++] = static_cast<std::int32_t>(i);
    for (std::size_t c = 0; c + 1 < cell_start.size(); ++c)  // ids ascend within a cell: stable keeps them so
      std::stable_sort(sorted_ids.begin() + cell_start[c], sorted_ids.begin() + cell_start[c + 1],
                       [&](std::int32_t a, std::int32_t b) {
                         return positionBefore(points + 3 * std::size_t(a), points + 3 * std::size_t(b));
                       });
    sorted_points.resize(3 * m);
    for (std::size_t p = 0; p < m; ++p)
      std::copy_n(points + 3 * std::size_t(sorted_ids[p]), 3, sorted_points.data() + 3 * p);
    const std::int64_t limit = crowdedCellLimit(m, occupied);
    for (std::size_t c = 0; c + 1 < cell_start.size(); ++c)
      if (cell_start[c + 1] - cell_start[c] > limit) nestCell(points, c);
    run_end.resize(m);
    for (std::size_t p = m; p-- > 0;) {
      const bool last = p + 1 == m || !samePosition(&sorted_points[3 * p], &sorted_points[3 * p + 3]);
      run_end[p] = last ? static_cast<std::int32_t>(p + 1) : run_end[p + 1];
    }
  }

  GridView view() const {
    return {shape,
            cell_start.data(),
            sorted_ids.data(),
            sorted_points.data(),
            run_end.data(),
            nested.empty() ? nullptr : nested_of_cell.data(),
            nested.data(),
            nested_cell_start.data()};
  }

 private:
  // Cell c's entries, already by position, bucketed by the cells of a grid over them.
  void nestCell(const float* points, std::size_t c) {
    const std::int32_t first = cell_start[c], count = cell_start[c + 1] - first;
    if (nested_of_cell.empty()) nested_of_cell.assign(cell_start.size() - 1, -1);
    NestedGrid n;
    n.shape = gridShapeFor(&sorted_points[3 * std::size_t(first)], std::size_t(count), nestedCellsFor(count));
    n.first = first;
    n.cell_start_at = static_cast<std::int64_t>(nested_cell_start.size());
    std::vector<std::int32_t> starts(static_cast<std::size_t>(n.shape.numCells()) + 1, 0), sub(count);
    for (std::int32_t e = 0; e < count; ++e)
      ++starts[(sub[e] = std::int32_t(n.shape.cellOf(points + 3 * std::size_t(sorted_ids[first + e])))) + 1];
    for (std::size_t q = 1; q < starts.size(); ++q) starts[q] += starts[q - 1];
    std::vector<std::int32_t> next(starts.begin(), starts.end() - 1), ids(count);
    for (std::int32_t e = 0; e < count; ++e) ids[next[sub[e]]++] = sorted_ids[first + e];  // stable: by position still
    std::copy(ids.begin(), ids.end(), sorted_ids.begin() + first);
    for (std::int32_t e = 0; e < count; ++e)
      std::copy_n(points + 3 * std::size_t(sorted_ids[first + e]), 3, &sorted_points[3 * std::size_t(first + e)]);
    nested_cell_start.insert(nested_cell_start.end(), starts.begin(), starts.end());
    nested_of_cell[c] = static_cast<std::int32_t>(nested.size());
    nested.push_back(n);
  }
};

}  // namespace cuda
}  // namespace pcl_dise
