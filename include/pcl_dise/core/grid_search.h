#pragma once
// Exact nearest-neighbour search on a uniform grid: the default neighbourhood search of the
// feature, the trainer and the edge-scale statistic. Queries are answered cell by cell: every
// query of a cell shares one gathered block of candidate points, so the work is a few hundred
// vectorised distances and one selection per query instead of a tree descent.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "pcl_dise/core/neighborhoods.h"

namespace pcl_dise {

/** Exact k-nearest and radius search on a uniform grid: every query of a cell shares one gathered
 *  block of cells, answered with vectorised distances (docs/cpp_api.md, "Search"). */
class GridSearch {
 public:
  /** Indexes `points` (num_points x 3 row-major, copied) for k-nearest-neighbour queries: the cell
   *  size follows the distance to the k-th neighbour measured on a sample of the points, so that a
   *  block of 5 x 5 x 5 cells usually holds every query's k neighbours (any k is answered
   *  exactly; others cost more). Built on `threads` OpenMP threads (<= 0: all). Throws
   *  std::invalid_argument for a non-finite coordinate. */
  static GridSearch forNearest(const float* points, std::size_t num_points, std::size_t k, int threads = 0);
  /** The same for radius queries: cells of half the radius. */
  static GridSearch forRadius(const float* points, std::size_t num_points, float radius, int threads = 0);

  std::size_t size() const { return num_points_; }  ///< points indexed
  float cellSize() const { return cell_size_; }     ///< the grid's cell side
  /// Grids of their own that groups of crowded cells side by side are answered by (near-coincident
  /// points, a blob far denser than the rest: cells holding more than 32 times the mean of the
  /// occupied cells).
  std::size_t nestedCells() const { return nested_.size(); }

  /** For each query (num_queries x 3 row-major), its min(k, size()) nearest points, nearest first,
   *  ties in distance by smaller index: the same lists as a brute-force search. A query with a
   *  non-finite coordinate gets an empty list. Runs on `threads` OpenMP threads (<= 0: all). */
  Neighborhoods nearest(const float* queries, std::size_t num_queries, std::size_t k, int threads = 0) const;
  /** One query's list as nearest() gives it: query index, its ids (valid during the call only)
   *  and their number. */
  using NearestVisitor = std::function<void(std::int32_t query, const std::int32_t* ids, std::size_t count)>;
  /** \brief nearest()'s lists handed to `visit` as they are found instead of kept: for a statistic
   *  over every point's neighbours, read while the block they came from is in cache.
   *  \param[in] queries num_queries x 3 row-major
   *  \param[in] num_queries the number of queries
   *  \param[in] k neighbours per query (min(k, size()) given)
   *  \param[in] visit called once per query with a finite position, in no particular order, from
   *    up to detail::resolveThreads(threads) OpenMP threads at once (omp_get_thread_num() tells
   *    them apart)
   *  \param[in] threads OpenMP threads (<= 0: all) */
  void visitNearest(const float* queries, std::size_t num_queries, std::size_t k, const NearestVisitor& visit,
                    int threads = 0) const;
  /** One indexed point's neighbours as positions: the point (3 floats), its neighbours' rows
   *  (count x 3 row-major, nearest first; valid during the call only) and their number. */
  using PositionVisitor = std::function<void(const float* point, const float* neighbors, std::size_t count)>;
  /** \brief Every indexed point's min(k, size()) nearest (itself included, the lists of
   *  nearest()) handed to `visit` as positions read from the grid's own copy: for a statistic over
   *  every point's neighbours that reads only positions (the edge scale). The queries are the
   *  grid's points in cell order, so no grouping precedes the search and the positions read lie
   *  in the block just searched.
   *  \param[in] k neighbours per point (min(k, size()) given)
   *  \param[in] visit called once per indexed point, in no particular order, from up to
   *    detail::resolveThreads(threads) OpenMP threads at once (omp_get_thread_num() tells them apart)
   *  \param[in] threads OpenMP threads (<= 0: all)
   *  \return false, visiting nothing, where points coincide or crowd a cell (their slots and
   *    nested grids answer by index only): visitNearest answers those grids */
  bool visitOwnNearestPositions(std::size_t k, const PositionVisitor& visit, int threads = 0) const;
  /** For each query, the points closer than `radius` (squared distance < radius^2, as
   *  pcl::search::KdTree), ordered as nearest(), cut to the first max_neighbors (0: all). */
  Neighborhoods withinRadius(const float* queries, std::size_t num_queries, float radius, std::size_t max_neighbors = 0,
                             int threads = 0) const;

  /** One query: its neighbours' indices and squared distances, ordered as above. */
  void nearest(const float* query, std::size_t k, std::vector<std::int32_t>& ids, std::vector<float>& dist2) const;
  /** One radius query: its neighbours' indices and squared distances, ordered as above. */
  void withinRadius(const float* query, float radius, std::size_t max_neighbors, std::vector<std::int32_t>& ids,
                    std::vector<float>& dist2) const;

 private:
  struct Scratch;
  GridSearch(const float* points, std::size_t num_points, float cell_size, int threads);
  std::int64_t cellIndex(int x, int y, int z) const;
  void cellCoordinates(std::int64_t c, int cell[3]) const;  ///< cellIndex's inverse
  int coordinate(float x, int axis) const;
  /// The points of the cells within `reach` cells of `cell` on each axis, into scratch.
  void gather(const int cell[3], int reach, Scratch& scratch) const;
  /// Distance from `query` to the nearest face of that block with points beyond it (infinity where
  /// the block spans the grid): every point closer than this lies in the block.
  float coveredRadius(const float* query, const int cell[3], int reach) const;
  void distances(const float* query, Scratch& scratch) const;
  std::size_t keysBelow(float limit2, Scratch& scratch) const;
  /// One query against the gathered block; false where the block cannot prove the answer.
  bool selectNearest(const float* query, std::size_t k, float covered, Scratch& scratch, std::int32_t* out_ids,
                     float* out_dist2) const;
  /// Grows the block around the query's cell from `reach` until it proves the answer.
  void nearestGrowing(const float* query, std::size_t k, int reach, Scratch& scratch, std::int32_t* out_ids,
                      float* out_dist2) const;
  std::size_t selectWithin(const float* query, float radius, float radius2, std::size_t max_neighbors,
                           Scratch& scratch) const;
  int reachFor(float radius) const;
  int nearestReach(std::size_t k) const;  ///< the block reach batched k-nearest queries start from
  /// nearest() of one query with a scratch of the caller's (a nested grid asked query by query).
  void nearestWith(const float* query, std::size_t k, Scratch& scratch, std::vector<std::int32_t>& ids,
                   std::vector<float>& dist2) const;
  /// Batched k nearest of the queries inside crowded cells, from those cells' own grids, where
  /// that answer is proven (nearer than the cell's faces): visited, and flagged.
  std::vector<std::uint8_t> answerInsideCrowdedCells(const float* queries, std::size_t num_queries, std::size_t k,
                                                     int threads, const NearestVisitor& visit) const;
  /// How far from `query` every point lies in nested grid n's cells (0 where they are no box).
  float nestedCovered(const float* query, std::size_t n) const;
  /// The positions a cell holds beyond which it is crowded (nestCrowdedCells).
  std::int32_t crowdedLimit() const;
  static GridSearch nearestGrid(const float* points, std::size_t num_points, std::size_t k, int depth, int threads);
  static GridSearch radiusGrid(const float* points, std::size_t num_points, float radius, int depth, int threads);
  /// Gives each group of crowded cells side by side (far more positions than the cloud's mean) a
  /// grid of its own, for the same k or radius, that the queries ask instead of scanning the cells
  /// (near-coincident points).
  void nestCrowdedCells(std::size_t k, float radius, int depth, int threads);
  /// Coincident points become one slot each (their members listed in index order), so that a
  /// query costs what it costs among distinct points however many points share a position.
  void collapseCoincident(int threads);
  /// Whether two points of cell c share a position (by_x: scratch).
  bool cellHasCoincident(std::size_t c, std::vector<std::pair<float, std::int32_t>>& by_x) const;
  /// selectNearest where points coincide: the k nearest points among the gathered slots, into
  /// scratch.sorted; false where the block cannot prove them.
  bool selectAmongSlots(std::size_t k, float covered2, Scratch& scratch) const;
  /// Members (as keys) of the slots among s.keys[0, count) within limit2, at most per_slot each.
  std::size_t expandMembers(Scratch& scratch, std::size_t count, float limit2, std::size_t per_slot) const;
  std::size_t multiplicity(std::int32_t first_id) const;
  /// The k-th point's squared distance over slot keys sorted nearest first: where they hold k points.
  float kthPointDistance2(const std::uint64_t* slot_keys, std::size_t count,
                          std::size_t k) const;  ///< points of the slot whose smallest index this is
  /// The k nearest of s.keys[0, count) into s.sorted, by distance then index (keys naming
  /// places too).
  void sortAnswer(std::size_t count, std::size_t k, Scratch& scratch) const;
  template <typename Answer>
  void forEachQueryCell(const float* queries, std::size_t num_queries, int threads, int reach, Answer answer) const;

  float origin_[3] = {0, 0, 0};
  float cell_size_ = 1.f;
  float margin_ = 0.f;  ///< rounding allowance of a point's cell
  int dims_[3] = {1, 1, 1};
  std::vector<std::int32_t> cell_start_;  ///< cells + 1: the points of cell c are [cell_start_[c], cell_start_[c+1])
  std::vector<std::int32_t> ids_;         ///< original index of each point (slot: its smallest), in cell order
  std::vector<float> x_, y_, z_;          ///< coordinates in cell order
  std::size_t num_points_ = 0;
  double typical_distance_ = 0;  ///< forNearest: the typical distance to the built_k_-th neighbour
  std::size_t built_k_ = 0;
  /// Where points coincide (else empty): slot s's members are member_ids_[member_start_[s] ..
  /// member_start_[s + 1]), ascending; slot_of_first_ maps a slot's smallest index to the slot.
  std::vector<std::int32_t> member_start_, member_ids_, slot_of_first_;
  /// Crowded cells (else empty): per cell the index of its own grid in nested_, or -1; that grid
  /// holds the cell's positions, nested_ids_ the smallest index of each (this grid's slot keys).
  std::vector<std::int32_t> nested_of_cell_;
  std::vector<std::shared_ptr<const GridSearch>> nested_;
  std::vector<std::vector<std::int32_t>> nested_ids_;
  std::vector<std::vector<float>> nested_points_;  ///< per nested grid: its positions, x 3
  /// The cells of a nested grid's group: their box, and whether the group fills it.
  struct NestedBox {
    int lo[3], hi[3];
    bool whole;
  };
  std::vector<NestedBox> nested_boxes_;
};

/** Every point's k nearest points, itself included, nearest first: a cloud's k-NN graph in the
 *  forward pass's format. points: num_points x 3 row-major, finite. */
Neighborhoods nearestNeighborGraph(const float* points, std::size_t num_points, std::size_t k, int threads = 0);

}  // namespace pcl_dise
