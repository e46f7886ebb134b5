#include "pcl_dise/core/tiled_forward.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "pcl_dise/core/distinct_positions.h"
#include "pcl_dise/core/edge_scale.h"
#include "pcl_dise/core/grid_search.h"

namespace pcl_dise {

namespace {

// A halo too shallow grows at least this much; a measured margin gets this much slack.
constexpr double kLeastHaloGrowth = 1.2;
constexpr double kMarginSlack = 1.05;
// Tiles whose typical reaches differ by less than this factor share what their halos needed.
constexpr double kLikeSpacing = 1.25;
constexpr std::size_t kRadiusSamples = 256;
// A part of a tile is halved while its halo outgrows the budget, down to parts of this many points.
constexpr std::size_t kSmallestPart = 64;
// Distances are compared in float: a point outside the loaded region is provably farther than
// a neighbour when the region's room exceeds the neighbour's distance by more than float rounding.
constexpr double kRoundingAllowance = 1e-5;

// One neighbourhood rule, as the tile applies it to its load.
struct NeighborhoodRule {
  std::size_t neighbors;  // k + 1 (radius == 0)
  float radius;
  std::size_t max_neighbors;

  Neighborhoods graph(const float* points, std::size_t n, int threads) const {
    if (radius <= 0) return nearestNeighborGraph(points, n, neighbors, threads);
    return GridSearch::forRadius(points, n, radius, threads).withinRadius(points, n, radius, max_neighbors, threads);
  }
};

// The load with each position once, as the feature makes its nodes in memory: the first loaded
// point at a position (the lowest global index: a load ascends by it) stands for its twins, which
// leave the load; the tile's own twins go to own_twins. Twins lie in one tile and one part, and a
// region holds all of them or none.
void keepOnePositionEach(TileLoad& load) {
  const std::vector<std::int32_t> first =
      firstAtSamePosition(load.positions.data(), load.global.size(), 3 * sizeof(float));
  std::vector<std::int32_t> kept(first.size(), -1);
  std::size_t count = 0;
  for (std::size_t i = 0; i < first.size(); ++i)
    if (static_cast<std::size_t>(first[i]) == i) kept[i] = static_cast<std::int32_t>(count++);
  if (count == first.size()) return;
  std::vector<std::int32_t> core;
  for (const std::int32_t i : load.core) {
    if (kept[i] >= 0)
      core.push_back(kept[i]);
    else
      load.own_twins.emplace_back(load.global[i], kept[first[i]]);
  }
  for (std::size_t i = 0; i < first.size(); ++i) {
    if (kept[i] < 0) continue;
    load.global[kept[i]] = load.global[i];
    std::copy_n(load.positions.begin() + 3 * i, 3, load.positions.begin() + 3 * std::size_t(kept[i]));
  }
  load.global.resize(count);
  load.positions.resize(3 * count);
  load.core.swap(core);
}

// The squared distance a loaded point's neighbourhood reaches: to its last neighbour, or the
// whole radius for radius search.
double reach2(const TileLoad& load, const Neighborhoods& graph, const NeighborhoodRule& rule, std::size_t i) {
  if (rule.radius > 0 || graph.size(i) == 0) return double(rule.radius) * rule.radius;
  const float* p = load.positions.data() + 3 * i;
  const float* q = load.positions.data() + 3 * std::size_t(graph.begin(i)[graph.size(i) - 1]);
  double sum = 0;
  for (int a = 0; a < 3; ++a) sum += (double(q[a]) - p[a]) * (double(q[a]) - p[a]);
  return sum;
}

// Where a loaded point's neighbourhood is surely the whole cloud's: the ball that holds it lies
// inside the loaded region, faces beyond the cloud's own bounds aside (no points there).
std::vector<std::uint8_t> completeNeighborhoods(const TileLoad& load, const Neighborhoods& graph,
                                                const NeighborhoodRule& rule, const Box& bounds) {
  std::vector<std::uint8_t> complete(load.global.size());
  for (std::size_t i = 0; i < complete.size(); ++i) {
    const float* p = load.positions.data() + 3 * i;
    double room = std::numeric_limits<double>::infinity();
    for (int a = 0; a < 3; ++a) {
      if (load.region.lo[a] > bounds.lo[a]) room = std::min(room, p[a] - load.region.lo[a]);
      if (load.region.hi[a] < bounds.hi[a]) room = std::min(room, load.region.hi[a] - p[a]);
    }
    complete[i] = room > 0 && room * room > reach2(load, graph, rule, i) * (1 + kRoundingAllowance) + 1e-30;
  }
  return complete;
}

// Calls visit(i, hop) for every loaded point within `hops` neighbourhood hops of the tile's own
// points, hop by hop, until visit returns false; returns whether every call returned true.
template <typename Visit>
bool visitWithinHops(const TileLoad& load, const Neighborhoods& graph, int hops, Visit visit) {
  std::vector<std::uint8_t> seen(load.global.size(), 0);
  std::vector<std::int32_t> frontier = load.core, next;
  for (std::int32_t i : frontier) seen[i] = 1;
  for (int hop = 0; hop <= hops && !frontier.empty(); ++hop) {
    next.clear();
    for (std::int32_t i : frontier) {
      if (!visit(i, hop)) return false;
      if (hop == hops) continue;
      for (const std::int32_t* j = graph.begin(i); j != graph.begin(i) + graph.size(i); ++j)
        if (!seen[*j]) {
          seen[*j] = 1;
          next.push_back(*j);
        }
    }
    frontier.swap(next);
  }
  return true;
}

// Per loaded point, the last iteration the tile's own points read from it: L - hops for points
// within L hops, 0 (iteration 0, their PCA normal) beyond.
std::vector<std::uint8_t> lastIterations(const TileLoad& load, const Neighborhoods& graph, int iterations) {
  std::vector<std::uint8_t> last(load.global.size(), 0);
  visitWithinHops(load, graph, iterations, [&](std::int32_t i, int hop) {
    last[i] = static_cast<std::uint8_t>(iterations - hop);
    return true;
  });
  return last;
}

// What one pass over the points within `hops` hops of the tile's own points tells of a load's halo.
struct HaloCheck {
  // Every such point has a complete neighbourhood: the tile's own results are the whole cloud's.
  bool proves = true;
  // The margin around the part's box their neighbourhoods need: the largest, over those points
  // and the box's faces inside the cloud's bounds, of the point's reach plus how far it lies
  // beyond the face. Exact on a load that proves the part; on one that does not, an estimate (its
  // neighbourhoods are the load's, not the cloud's).
  double needed = 0;
};

HaloCheck checkHalo(const TileLoad& load, const Neighborhoods& graph, const NeighborhoodRule& rule, const Box& box,
                    const Box& bounds, int hops) {
  const std::vector<std::uint8_t> complete = completeNeighborhoods(load, graph, rule, bounds);
  HaloCheck check;
  visitWithinHops(load, graph, hops, [&](std::int32_t i, int) {
    check.proves = check.proves && complete[i] != 0;
    const float* p = load.positions.data() + 3 * std::size_t(i);
    const double reach = std::sqrt(reach2(load, graph, rule, std::size_t(i)));
    for (int a = 0; a < 3; ++a) {
      if (box.lo[a] > bounds.lo[a]) check.needed = std::max(check.needed, reach + (box.lo[a] - p[a]));
      if (box.hi[a] < bounds.hi[a]) check.needed = std::max(check.needed, reach + (p[a] - box.hi[a]));
    }
    return true;
  });
  return check;
}

// The typical reach of a tile's neighbourhoods: the radius, or the distance to the k-th neighbour
// that 95% of kRadiusSamples of the tile's own points stay within.
double typicalReach(const TileLoad& own, const NeighborhoodRule& rule) {
  if (rule.radius > 0) return rule.radius;
  std::vector<float> positions;
  for (std::int32_t i : own.core)
    positions.insert(positions.end(), own.positions.begin() + 3 * i, own.positions.begin() + 3 * i + 3);
  const std::size_t n = own.core.size();
  const GridSearch search = GridSearch::forNearest(positions.data(), n, rule.neighbors);
  std::vector<std::int32_t> ids;
  std::vector<float> dist2;
  std::vector<double> reach;
  const std::size_t samples = std::min(n, kRadiusSamples);
  for (std::size_t s = 0; s < samples; ++s) {
    search.nearest(positions.data() + 3 * (s * n / samples), rule.neighbors, ids, dist2);
    if (!dist2.empty()) reach.push_back(std::sqrt(double(dist2.back())));
  }
  if (reach.empty()) return 0;
  std::sort(reach.begin(), reach.end());
  return reach[reach.size() * 19 / 20];
}

// What the proven halos of a pass needed, in typical reaches of their tiles. A tile's first halo
// is the most that tiles of like spacing (typical reaches within kLikeSpacing of each other)
// needed, and at least hops + 1 reaches. Tiles of unlike spacing do not share: a dense blob's halo
// reaches into the sparse plate beside it and needs many of the blob's own reaches.
class HaloDepths {
 public:
  explicit HaloDepths(int hops) : least_(hops + 1) {}
  double firstMargin(double typical) const {
    double reaches = least_;
    for (const Seen& seen : seen_)
      if (seen.typical <= typical * kLikeSpacing && typical <= seen.typical * kLikeSpacing)
        reaches = std::max(reaches, seen.reaches);
    return reaches * typical;
  }
  void learn(double typical, double needed) {
    if (typical > 0 && needed > 0) seen_.push_back({typical, kMarginSlack * needed / typical});
  }

 private:
  struct Seen {
    double typical, reaches;
  };
  double least_;
  std::vector<Seen> seen_;
};

// The part with a halo that grows until it proves the part: true, with the load, its graph and
// the margin its halo needed; false where the load would hold more than options.max_load points
// first. A halo too shallow grows to what its own neighbourhoods say it needs, and at least by
// kLeastHaloGrowth.
bool provenLoad(const TiledCloud& cloud, const TilePart& part, double margin, const NeighborhoodRule& rule, int hops,
                const TiledForwardOptions& options, TileLoad& load, Neighborhoods& graph, double& needed,
                TiledForwardReport& report) {
  for (;;) {
    load = cloud.load(part, part.box.grown(margin));
    if (options.max_load > 0 && load.global.size() > options.max_load) return false;
    const bool whole_cloud = load.global.size() == cloud.size();
    if (options.iterations > 0) keepOnePositionEach(load);
    graph = rule.graph(load.positions.data(), load.global.size(), options.threads);
    const HaloCheck check = checkHalo(load, graph, rule, part.box, cloud.tiles().bounds(), hops);
    needed = check.needed;
    if (check.proves || whole_cloud) {
      report.largest_load = std::max(report.largest_load, load.global.size());
      return true;
    }
    ++report.halo_growths;
    margin = std::max(margin * kLeastHaloGrowth, kMarginSlack * check.needed);
    if (!(margin > 0)) margin = 1e-6;
  }
}

// Calls work(load, graph) for the tile loaded with a proving halo `hops` deep; where that load
// would outgrow options.max_load, for each half of the tile instead, halving again as needed.
// `depths` carries what earlier tiles' halos needed. Returns whether the tile holds points.
template <typename Work>
bool forEachProvenPart(const TiledCloud& cloud, std::size_t tile, const NeighborhoodRule& rule, int hops,
                       const TiledForwardOptions& options, HaloDepths& depths, Neighborhoods& graph,
                       TiledForwardReport& report, Work work) {
  TilePart whole;
  whole.tile = tile;
  whole.box = cloud.tiles().tileBox(tile);
  TileLoad own = cloud.load(whole, whole.box);
  if (own.core.empty()) return false;
  if (options.iterations > 0) keepOnePositionEach(own);
  // From the whole tile's spacing, for its parts too (a small part alone would make its
  // neighbourhoods look wide).
  const double typical = typicalReach(own, rule);
  std::vector<TilePart> pending{whole};
  TileLoad load;
  double needed = 0;
  while (!pending.empty()) {
    const TilePart part = pending.back();
    pending.pop_back();
    std::size_t points = 0;
    for (std::int32_t i : own.core) points += part.holds(own.positions.data() + 3 * std::size_t(i));
    if (points == 0) continue;
    if (provenLoad(cloud, part, depths.firstMargin(typical), rule, hops, options, load, graph, needed, report)) {
      depths.learn(typical, needed);
      work(load, graph);
      continue;
    }
    if (points < kSmallestPart)
      throw std::runtime_error("tiled forward pass: " + std::to_string(points) + " points of tile " +
                               std::to_string(tile) + " need more than " + std::to_string(options.max_load) +
                               " points with their halo, which the memory budget allows");
    ++report.split_parts;
    const std::array<TilePart, 2> half = part.halves();
    pending.push_back(half[1]);
    pending.push_back(half[0]);
  }
  return true;
}

}  // namespace

TiledForwardReport runTiledForward(const Model& model, const TiledCloud& cloud, const TiledForwardOptions& options,
                                   const TiledResultSink& sink, Backend backend) {
  if ((options.radius <= 0 && options.neighbors == 0) || !(options.radius >= 0) || options.tile_points == 0 ||
      options.iterations < 0 || options.iterations > 255)
    throw std::invalid_argument(
        "tiled forward pass: neighbors (or a radius) and tile_points must be positive, iterations in [0, 255]");
  if (options.parts < 1 || options.part < 0 || options.part >= options.parts ||
      (options.parts > 1 && !options.share_terms))
    throw std::invalid_argument("tiled forward pass: part must lie in [0, parts), and parts > 1 needs share_terms");
  auto ours = [&](std::size_t tile) { return tile % std::size_t(options.parts) == std::size_t(options.part); };
  TiledForwardReport report;
  const std::size_t n = cloud.size();
  if (n == 0) return report;
  Neighborhoods graph;

  // First pass: the edge scale's per-point terms, each tile's own points with their 16 nearest.
  const NeighborhoodRule scale_rule{std::min(kEdgeScaleNeighbors, n), 0.f, 0};
  // The local rule reads each point's 17 nearest and theirs: the first 17 of the whole cloud's
  // k-nearest rows, exact within L hops, where a point that runs an iteration finds them.
  const bool local_scales = options.iterations > 0 && edgeScaleRule(model) == EdgeScaleRule::Local;
  if (local_scales && (options.radius > 0 || std::min(options.neighbors, n) < scale_rule.neighbors))
    throw std::invalid_argument("tiled forward pass: a model of the local edge scale runs in tiles with k >= " +
                                std::to_string(kEdgeScaleNeighbors - 1) +
                                " nearest neighbours (a radius search runs it in memory)");
  ExactSum terms, entries;  // entries: the neighbours the terms read (each position counted once)
  HaloDepths scale_depths(0);
  std::size_t our_tiles = 0, done = 0;
  for (std::size_t tile = 0; tile < cloud.tiles().size(); ++tile) our_tiles += ours(tile);
  constexpr double kScalePass = 0.1;  // of the whole: the edge-scale pass is one search per point
  // A tile run in parts tells its share more than once: the whole never goes back.
  double told = 0;
  ProgressCallback monotone;
  if (options.progress)
    monotone = [&](const Progress& p) {
      Progress q = p;
      q.done = told = std::max(told, p.done);
      return options.progress(q);
    };
  auto tell = [&](double share, const char* stage, std::size_t step, std::size_t steps) {
    if (monotone && !monotone({share, stage, step, steps})) throw Cancelled();
  };
  for (std::size_t tile = 0; tile < cloud.tiles().size(); ++tile) {
    if (!ours(tile)) continue;
    tell(kScalePass * double(done) / double(our_tiles), "edge scale", done, our_tiles);
    ++done;
    report.tiles += forEachProvenPart(cloud, tile, scale_rule, 0, options, scale_depths, graph, report,
                                      [&](const TileLoad& load, const Neighborhoods& g) {
                                        for (std::int32_t i : load.core) {
                                          terms.add(edgeScaleTerm(load.positions.data(), g, std::size_t(i)));
                                          entries.add(static_cast<double>(g.size(i)));
                                        }
                                      });
  }
  if (options.parts > 1) {
    options.share_terms(terms);
    options.share_terms(entries);
  }
  report.edge_scale = edgeScaleFromSum(terms, static_cast<std::size_t>(entries.value()));

  // Second pass: each tile's forward pass. Iteration L - h at a point h hops out reads iteration
  // L - h - 1 at its neighbours, down to the PCA of the points L hops out: the neighbourhoods of
  // the points within L hops must be the whole cloud's (their neighbours, L + 1 hops out, only
  // need to be loaded).
  const NeighborhoodRule rule{std::min(options.neighbors, n), options.radius, options.max_neighbors};
  ForwardOptions forward;
  forward.iterations = options.iterations;
  forward.threads = options.threads;
  forward.precision = options.precision;
  forward.keep_kernel_weights = false;  // a tile gives normals and curvature only (no copy back from a device)
  HaloDepths depths(options.iterations);
  done = 0;
  for (std::size_t tile = 0; tile < cloud.tiles().size(); ++tile) {
    if (!ours(tile)) continue;
    const double from = kScalePass + (1 - kScalePass) * double(done) / double(our_tiles);
    const double to = kScalePass + (1 - kScalePass) * double(++done) / double(our_tiles);
    tell(from, "tiles", done - 1, our_tiles);
    forward.progress = progressPart(monotone, from, to, "tiles", done - 1, our_tiles);
    forEachProvenPart(cloud, tile, rule, options.iterations, options, depths, graph, report,
                      [&](const TileLoad& load, const Neighborhoods& g) {
                        ForwardInput input;
                        input.points = load.positions.data();
                        input.num_points = load.global.size();
                        input.neighborhoods = &g;
                        input.edge_scale = report.edge_scale;
                        std::vector<float> scales;
                        if (local_scales) {
                          scales = localEdgeScales(load.positions.data(), g, report.edge_scale, options.threads);
                          input.edge_scales = scales.data();
                        }
                        const std::vector<std::uint8_t> last = lastIterations(load, g, options.iterations);
                        input.last_iteration = last.data();
                        const ForwardResult result = runForward(model, input, forward, backend);
                        std::vector<std::size_t> copies(load.global.size(), 1);
                        for (const auto& twin : load.own_twins) ++copies[std::size_t(twin.second)];
                        const float no_normal[3] = {NAN, NAN, NAN};
                        auto give = [&](std::uint64_t global, std::int32_t i) {
                          const bool none = copiesFillTheNeighborhood(copies[std::size_t(i)],
                                                                      options.radius > 0 ? 0 : options.neighbors);
                          sink(global, none ? no_normal : result.normals.data() + 3 * std::size_t(i),
                               none ? NAN : result.curvature[std::size_t(i)]);
                        };
                        for (std::int32_t i : load.core) give(load.global[i], i);
                        for (const auto& [global, i] : load.own_twins) give(global, i);
                      });
  }
  tell(1.0, "tiles", our_tiles, our_tiles);
  return report;
}

TiledForwardReport runTiledForward(const Model& model, const float* points, std::size_t num_points,
                                   const TiledForwardOptions& options, std::vector<float>& normals,
                                   std::vector<float>& curvature, Backend backend) {
  for (std::size_t i = 0; i < 3 * num_points; ++i)
    if (!std::isfinite(points[i]))
      throw std::invalid_argument("tiled forward pass: point " + std::to_string(i / 3) +
                                  " has a non-finite coordinate");
  if (options.tile_points == 0) throw std::invalid_argument("tiled forward pass: tile_points must be positive");
  normals.assign(3 * num_points, std::numeric_limits<float>::quiet_NaN());
  curvature.assign(num_points, std::numeric_limits<float>::quiet_NaN());
  const TiledCloudInMemory cloud(points, num_points, options.tile_points);
  return runTiledForward(
      model, cloud, options,
      [&](std::uint64_t g, const float* normal, float c) {
        std::copy_n(normal, 3, normals.begin() + 3 * g);
        curvature[g] = c;
      },
      backend);
}

}  // namespace pcl_dise
