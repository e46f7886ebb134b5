#pragma once
// The parts of the consistent orientation (orientation_propagation.h's orientNormals): what one
// part hands another, one concept per file. Internal to src/orientation.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "orientation_rules.h"
#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/core/neighborhoods.h"
#include "pcl_dise/orientation/orientation_propagation.h"

namespace pcl_dise {
namespace detail {

// ---- The graph, the spanning tree and its sides (orientation_graph.cpp) ---------------
// The points with a finite position and a finite, non-zero normal, normals scaled to unit length,
// in Morton order (spatial_order.h): the graph's search, its edges and the grids then read points
// that lie together in memory, whatever order the cloud came in.
struct FinitePoints {
  std::vector<std::int64_t> index;  // into the caller's arrays
  std::vector<float> xyz, normal;   // size() x 3
  std::size_t size() const { return index.size(); }
};

FinitePoints finitePoints(const float* points, const float* normals, std::size_t num_points);

// The caller's known neighbourhoods (KnownNeighborhoods) in the finite points' numbering.
class KnownRows {
 public:
  KnownRows(const KnownNeighborhoods* known, const FinitePoints& finite, std::size_t num_points) {
    if (!known || !known->rows) return;
    const Neighborhoods& rows = *known->rows;
    const std::size_t row_count = rows.numNodes();
    if (row_count > 0 && !known->point_of_row)
      throw std::invalid_argument("orientNormals: known neighbourhoods without the points of their rows");
    std::vector<std::int32_t> finite_of_point(num_points, -1);
    for (std::size_t i = 0; i < finite.size(); ++i) finite_of_point[finite.index[i]] = static_cast<std::int32_t>(i);
    finite_of_row_.assign(row_count, -1);
    row_of_finite_.assign(finite.size(), -1);
    for (std::size_t r = 0; r < row_count; ++r) {
      const std::int64_t p = known->point_of_row[r];
      if (p < -1 || p >= static_cast<std::int64_t>(num_points))
        throw std::invalid_argument("orientNormals: known row " + std::to_string(r) + " belongs to point " +
                                    std::to_string(p) + ", outside a cloud of " + std::to_string(num_points));
      if (p < 0) continue;
      finite_of_row_[r] = finite_of_point[p];
      if (finite_of_row_[r] >= 0) row_of_finite_[finite_of_row_[r]] = static_cast<std::int32_t>(r);
    }
    const auto outside = [&](std::int32_t e) { return e < 0 || static_cast<std::size_t>(e) >= row_count; };
    if (std::any_of(rows.indices.begin(), rows.indices.end(), outside))
      throw std::invalid_argument("orientNormals: a known neighbourhood names a row outside its " +
                                  std::to_string(row_count) + " rows");
    // A point oriented here that the rows left out (no row, or an empty one: the estimation left it
    // without a normal, which it has now) may be missing from other rows too: search instead.
    const auto left_out = [&](std::int32_t r) { return r < 0 || rows.size(static_cast<std::size_t>(r)) == 0; };
    if (std::none_of(row_of_finite_.begin(), row_of_finite_.end(), left_out)) rows_ = &rows;
  }

  bool any() const { return rows_ != nullptr; }

  // Finite point i's first `width` neighbours among the finite points into out; false where its row
  // holds fewer (or it has none).
  bool first(std::size_t i, std::size_t width, std::int32_t* out) const {
    if (!rows_ || row_of_finite_[i] < 0) return false;
    const auto r = static_cast<std::size_t>(row_of_finite_[i]);
    std::size_t got = 0;
    for (const std::int32_t *e = rows_->begin(r), *end = e + rows_->size(r); e != end && got < width; ++e) {
      const std::int32_t j = finite_of_row_[static_cast<std::size_t>(*e)];
      if (j >= 0) out[got++] = j;
    }
    return got == width;
  }

 private:
  const Neighborhoods* rows_ = nullptr;
  std::vector<std::int32_t> finite_of_row_;  // -1: a row of no finite point
  std::vector<std::int32_t> row_of_finite_;  // -1: no row
};

// The `width` (<= the finite points) nearest finite points of finite points first .. first+count-1,
// or of listed[first ..] where listed is given, each itself included, nearest first, in rows of
// `width`: read from the known rows where they hold that many, searched for the others (`search`
// made at the first need).
Neighborhoods nearestRows(const FinitePoints& finite, const KnownRows& known, const std::size_t* listed,
                          std::size_t first, std::size_t count, std::size_t width, std::optional<GridSearch>& search,
                          int threads);

void negate(float* v);

struct LocalScale {
  std::vector<float> noise, own_noise, spacing;
};

LocalScale localScale(const FinitePoints& finite, const Neighborhoods& graph, std::size_t stride, int threads);

std::vector<float> layerTolerance(const LocalScale& scale);

// Sort key of each graph edge: cost 1 - |agreement| in kCostLevels steps, edges through a sheet
// after every other; kNoEdge for a point's own entry and for the second copy of an edge both ends
// list (j -> i where i < j lists j too). The agreement is symmetric, so that copy has the same key
// and comes later in the stable sort, where Kruskal would find its ends joined already: leaving it
// out changes no tree and sorts about a third fewer edges.
bool listed(const Neighborhoods& graph, std::size_t stride, std::int32_t i, std::int32_t j);

std::vector<std::uint32_t> edgeKeys(const FinitePoints& finite, const std::vector<float>& tolerance,
                                    const Neighborhoods& graph, std::size_t stride, int threads);

class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n), size_(n, 1) { std::iota(parent_.begin(), parent_.end(), 0); }
  std::int32_t find(std::int32_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  bool join(std::int32_t a, std::int32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    if (size_[a] < size_[b]) std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
    return true;
  }

 private:
  std::vector<std::int32_t> parent_, size_;
};

// The minimum spanning forest (Kruskal) as adjacency lists.
struct Forest {
  Neighborhoods adjacency;
  std::vector<std::int32_t> part;  // a representative point of each point's tree
  std::size_t through_sheet = 0;
};

Forest spanningForest(std::size_t m, const Neighborhoods& graph, std::size_t stride, std::vector<std::uint32_t> keys);

// Breadth-first along each tree from its seed (the user's, else any point of it): a child flips
// where it disagrees with its parent, the seed keeps its normal. confidence[i] (size m): |agreement|
// of the edge that gave point i its sign (1 at a seed). Returns the parts' representatives.
std::vector<std::int32_t> propagate(FinitePoints& finite, const std::vector<float>& tolerance, const Forest& forest,
                                    std::int32_t user_seed, std::vector<float>& confidence, int threads);

// Each part's side, by a vote over its cap: the 1% of its points (at least neighbors + 1) nearest
// the viewpoint, or topmost. Over the surface of a closed shape above any horizontal plane, the
// outward normals sum to an upward vector (the cap and the disc it stands on close a volume), so
// the vote holds where single points mislead: at a sharp apex a face can lean down. With a
// viewpoint, the points nearest it face it. Returns, per representative, whether to flip it.
std::vector<char> flipsByCapVote(const FinitePoints& finite, const Forest& forest, const OrientationOptions& options);

// ---- Smooth patches and the votes that turn them (orientation_patches.cpp) ------------
std::vector<std::int32_t> smoothPatches(const FinitePoints& finite, const Neighborhoods& graph, std::size_t stride,
                                        int threads);

// Votes per smooth patch: points of it that say it faces out, and in.
struct PatchVotes {
  std::vector<std::int32_t> patch;  // each point's patch representative
  Neighborhoods members;            // the points of each patch, by representative
  std::vector<std::int32_t> in, out;
};

// Flips the patches whose votes say they face the wrong way (inwardParts), by at least min_votes
// and a clear vote; the seed point's patch never flips. Returns the points flipped. With
// confidence, a flipped point's is set to half its patch's margin (as for a patch's vote, step 7).
std::size_t flipPatchesByVotes(FinitePoints& finite, const PatchVotes& votes, const std::vector<std::int32_t>& part,
                               std::int32_t user_seed, bool known_viewpoint, std::int32_t min_votes,
                               std::vector<float>* confidence = nullptr);

// What the votes of step 7 on read and write: the points (their normals turned in place), the graph
// (rows of `stride`), each point's part of the spanning forest, the user's seed (-1: none), whether
// a viewpoint was given, the threads, the report and each point's confidence in its side.
struct VoteContext {
  FinitePoints& finite;
  const Neighborhoods& graph;
  std::size_t stride;
  const std::vector<std::int32_t>& part;
  std::int32_t user_seed;
  bool known_viewpoint;
  int threads;
  OrientationReport& report;
  std::vector<float>& confidence;
};

// Turns each point to the side its votes show it (+-2, +-1 or 0 per point: an outside grid's walks,
// or the wall middles); counts in report.undecided the points that neither their own vote nor
// their smooth patch's decides. A point's vote is summed with those of its graph neighbours whose
// normals lie within 60 degrees of its own line (carried over to its sign): their votes start
// elsewhere, which steadies a vote that noise would tip.
void orientByVotes(const VoteContext& context, const std::vector<signed char>& vote);

// ---- Ray parity (parity_votes.cpp) ----------------------------------------------------
// Flips the smooth patches that the rays say point in; counts them in report.parity_flipped and
// sets report.parity_checked where rays were cast. With grid_vote (an outside grid's votes, step
// 7), only the patches it leaves unsure send rays, and the points flipped take their patch's margin
// as confidence.
void flipPatchesByParity(const VoteContext& context, const LocalScale& scale,
                         const std::vector<signed char>* grid_vote = nullptr);

// ---- The outside grid (grid_votes.cpp) ------------------------------------------------
float quantile(std::vector<float> values, float q);

// Each point's outside-grid vote on the grid where most points vote (none where no grid encloses a
// volume with at least kRules.grid_fewest of the points voting: walls thinner than the walks, or a band
// that leaks at every cell tried), its cell and the share of points voting.
struct GridVotes {
  std::vector<signed char> vote;
  float cell = 0.f;
  double voting = 0.;
};

GridVotes outsideVotes(const FinitePoints& finite, const LocalScale& scale, bool nearer_inside, int threads);

// Whether the grid is used: where at least half the points vote; where fewer do (kRules.grid_fewest or
// more) only if ray parity cannot run (step 8), which mends thin clean walls better than such a grid.
// Judged on the tuning set at 100,000 points: the closed shapes unchanged, two thin structures under
// noise 1e-1 (a bent sheet 62% -> 88% facing out, a perforated plate 52% -> 80%) mended.
bool usableGrid(const GridVotes& grid, bool parity_runs);

// ---- Wall middles (wall_middle_votes.cpp) ---------------------------------------------
std::vector<signed char> wallMiddleVotes(const FinitePoints& finite, const KnownRows& known, int threads);

// ---- The winding number (winding_votes.cpp) -------------------------------------------
// Flips the unsure points (not the seed point) whose winding drop says they point in; returns how many.
std::size_t flipUnsureByWinding(FinitePoints& finite, const LocalScale& scale, const KnownRows& known,
                                std::int32_t user_seed, int threads, const std::vector<float>& sure);

}  // namespace detail
}  // namespace pcl_dise
