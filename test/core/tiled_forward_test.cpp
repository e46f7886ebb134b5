// The tiled forward pass (tiled_forward.h) against the whole cloud's: the same normals and
// curvature bit for bit, on a cloud of uneven density cut into many tiles, for several k and L.
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "pcl_dise/core/edge_scale.h"
#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/core/model.h"
#include "pcl_dise/core/tiled_forward.h"
#include "pcl_dise/io/disk_tiled_cloud.h"

namespace {

using namespace pcl_dise;

// A sphere, a dense blob on it and a sparse plate beside it: density varies by 20 across tiles.
std::vector<float> unevenCloud(std::size_t n) {
  std::mt19937 rng(3);
  std::normal_distribution<float> g;
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> p;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 5 == 4) {  // the plate
      p.insert(p.end(), {3.f + 2.f * u(rng), 2.f * u(rng), 0.01f * u(rng)});
      continue;
    }
    float v[3] = {g(rng), g(rng), g(rng)};
    const float r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    const float scale = i % 5 == 3 ? 0.1f : 1.f;  // the blob: a small patch near (0, 0, 1)
    if (scale < 1.f) {
      v[0] *= scale;
      v[1] *= scale;
      v[2] = std::fabs(v[2]) + 5.f;
    }
    const float len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    p.insert(p.end(), {v[0] / (scale < 1.f ? len : r), v[1] / (scale < 1.f ? len : r), v[2] / (scale < 1.f ? len : r)});
  }
  return p;
}

// A wavy sheet of n points over [0, side]^2 (points x 3), the same shape at every side.
std::vector<float> wavySheet(std::size_t n, unsigned seed, float side) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, side);
  std::vector<float> points;
  for (std::size_t i = 0; i < n; ++i) {
    const float x = u(rng), y = u(rng);
    points.insert(points.end(), {x, y, 0.05f * side * std::sin(6.f * x / side) * std::cos(5.f * y / side)});
  }
  return points;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The forward pass on the whole cloud (points x 3) over `graph`.
ForwardResult wholeCloud(const Model& model, const std::vector<float>& points, const Neighborhoods& graph,
                         int iterations, Precision precision = Precision::Float) {
  ForwardInput input;
  input.points = points.data();
  input.num_points = points.size() / 3;
  input.neighborhoods = &graph;
  ForwardOptions options;
  options.iterations = iterations;
  options.precision = precision;
  return runForward(model, input, options);
}

// The same over each point's `neighbors` nearest (itself included).
ForwardResult wholeCloudForward(const Model& model, const std::vector<float>& points, std::size_t neighbors,
                                int iterations, Precision precision = Precision::Float) {
  return wholeCloud(model, points, nearestNeighborGraph(points.data(), points.size() / 3, neighbors), iterations,
                    precision);
}

TEST(TiledForward, GivesTheWholeCloudsNormalsBitForBit) {
  const std::vector<float> points = unevenCloud(6000);
  const std::size_t n = points.size() / 3;
  for (EdgeScaleRule rule : {EdgeScaleRule::Global, EdgeScaleRule::Local}) {
    Model model = randomModel(5);
    setEdgeScaleRule(model, rule);
    for (std::size_t neighbors : {17u, 33u})
      for (int iterations : {0, 2, 4}) {
        SCOPED_TRACE("k + 1 = " + std::to_string(neighbors) + ", L = " + std::to_string(iterations) + ", " +
                     toString(rule) + " edge scale");
        const ForwardResult whole = wholeCloudForward(model, points, neighbors, iterations);

        TiledForwardOptions tiled;
        tiled.neighbors = neighbors;
        tiled.iterations = iterations;
        tiled.tile_points = 700;
        std::vector<float> normals, curvature;
        const TiledForwardReport report = runTiledForward(model, points.data(), n, tiled, normals, curvature);
        EXPECT_GE(report.tiles, 6u);
        // Small neighbourhoods and few iterations reach a few hops: no tile needs the whole cloud.
        if (neighbors == 17 && iterations <= 2) {
          EXPECT_LT(report.largest_load, n);
        }
        EXPECT_EQ(report.edge_scale, edgeScale(points.data(), n));
        EXPECT_TRUE(sameBits(normals, whole.normals));
        EXPECT_TRUE(sameBits(curvature, whole.curvature));
      }
  }
}

TEST(TiledForward, APositionStoredTwiceIsOnePoint) {
  // Every point stored twice, each copy beside the other: with iterations, both copies get the
  // cloud's own normals, bit for bit; PCA (L = 0) counts every stored point, as PCL does.
  const std::vector<float> points = unevenCloud(3000);
  const std::size_t n = points.size() / 3;
  std::vector<float> twice;
  for (std::size_t i = 0; i < n; ++i)
    for (int copy = 0; copy < 2; ++copy) twice.insert(twice.end(), points.begin() + 3 * i, points.begin() + 3 * i + 3);
  for (EdgeScaleRule rule : {EdgeScaleRule::Global, EdgeScaleRule::Local}) {
    Model model = randomModel(6);
    setEdgeScaleRule(model, rule);
    for (int iterations : {0, 2}) {
      SCOPED_TRACE("L = " + std::to_string(iterations) + ", " + toString(rule) + " edge scale");
      TiledForwardOptions tiled;
      tiled.neighbors = 17;
      tiled.iterations = iterations;
      tiled.tile_points = 500;
      std::vector<float> normals, curvature, own_normals, own_curvature;
      const TiledForwardReport report = runTiledForward(model, twice.data(), 2 * n, tiled, normals, curvature);
      EXPECT_GE(report.tiles, 6u);
      if (iterations == 0) {
        const ForwardResult every_point = wholeCloudForward(model, twice, 17, 0);
        EXPECT_TRUE(sameBits(normals, every_point.normals));
        continue;
      }
      const TiledForwardReport own = runTiledForward(model, points.data(), n, tiled, own_normals, own_curvature);
      EXPECT_EQ(report.edge_scale, own.edge_scale);
      for (int copy = 0; copy < 2; ++copy) {
        std::vector<float> copy_normals, copy_curvature;
        for (std::size_t i = 0; i < n; ++i) {
          copy_normals.insert(copy_normals.end(), normals.begin() + 3 * (2 * i + copy),
                              normals.begin() + 3 * (2 * i + copy) + 3);
          copy_curvature.push_back(curvature[2 * i + copy]);
        }
        EXPECT_TRUE(sameBits(copy_normals, own_normals)) << "copy " << copy;
        EXPECT_TRUE(sameBits(copy_curvature, own_curvature)) << "copy " << copy;
      }
    }
  }
}

// A point's local edge scale reads its 17 nearest and theirs: a radius search, or fewer than 16
// neighbours, does not hold them within a tile's halo.
TEST(TiledForward, TheLocalEdgeScaleNeedsSixteenNearestNeighbours) {
  const std::vector<float> points = unevenCloud(2000);
  Model model = randomModel(6);
  setEdgeScaleRule(model, EdgeScaleRule::Local);
  std::vector<float> normals, curvature;
  TiledForwardOptions radius;
  radius.radius = 0.05f;
  radius.tile_points = 700;
  EXPECT_THROW(runTiledForward(model, points.data(), points.size() / 3, radius, normals, curvature),
               std::invalid_argument);
  TiledForwardOptions few;
  few.neighbors = 9;
  few.tile_points = 700;
  EXPECT_THROW(runTiledForward(model, points.data(), points.size() / 3, few, normals, curvature),
               std::invalid_argument);
  few.iterations = 0;  // iteration 0 reads no scale
  EXPECT_NO_THROW(runTiledForward(model, points.data(), points.size() / 3, few, normals, curvature));
}

TEST(TiledForward, GivesTheWholeCloudsBfloat16NormalsBitForBit) {
  // bf16 (where the processor has it; float elsewhere, as in memory) in tiles: the bytes of bf16
  // in memory, which are not float's.
  const std::vector<float> points = unevenCloud(6000);
  const std::size_t n = points.size() / 3;
  const Model model = randomModel(5);
  const ForwardResult whole = wholeCloudForward(model, points, 33, 4, Precision::Bf16);
  TiledForwardOptions tiled;
  tiled.neighbors = 33;
  tiled.tile_points = 700;
  tiled.precision = Precision::Bf16;
  std::vector<float> normals, curvature;
  runTiledForward(model, points.data(), n, tiled, normals, curvature);
  EXPECT_TRUE(sameBits(normals, whole.normals));
  EXPECT_TRUE(sameBits(curvature, whole.curvature));
  if (bfloat16Available()) {
    EXPECT_FALSE(sameBits(normals, wholeCloudForward(model, points, 33, 4).normals)) << "bf16 ran in float";
  }
}

// A halo learns its depth from the tiles before it: on a surface of even density only the first
// tile of each pass (the edge scale's, the forward pass's) should have to grow its halo.
TEST(TiledForward, HalosLearnTheirDepthFromTheTilesBefore) {
  const std::vector<float> points = wavySheet(24000, 8, 4.f);
  const std::size_t n = points.size() / 3;
  const Model model = randomModel(9);
  TiledForwardOptions tiled;
  tiled.neighbors = 33;
  tiled.iterations = 3;
  tiled.tile_points = 3000;
  std::vector<float> normals, curvature;
  const TiledForwardReport report = runTiledForward(model, points.data(), n, tiled, normals, curvature);
  EXPECT_GE(report.tiles, 8u);
  EXPECT_LE(report.halo_growths, 2u);
  EXPECT_TRUE(sameBits(normals, wholeCloudForward(model, points, tiled.neighbors, tiled.iterations).normals));
}

TEST(TiledForward, OneTileAndBadInput) {
  const std::vector<float> points = unevenCloud(500);
  std::vector<float> normals, curvature;
  TiledForwardOptions options;
  options.neighbors = 17;
  options.iterations = 1;
  const TiledForwardReport report = runTiledForward(randomModel(1), points.data(), 500, options, normals, curvature);
  EXPECT_EQ(report.tiles, 1u);
  EXPECT_EQ(normals.size(), 1500u);
  std::vector<float> bad = points;
  bad[7] = NAN;
  EXPECT_THROW(runTiledForward(randomModel(1), bad.data(), 500, options, normals, curvature), std::invalid_argument);
  options.tile_points = 0;
  EXPECT_THROW(runTiledForward(randomModel(1), points.data(), 500, options, normals, curvature), std::invalid_argument);
}

TEST(TiledForward, RadiusNeighborhoodsGiveTheWholeCloudsNormals) {
  const std::vector<float> points = unevenCloud(5000);
  const std::size_t n = points.size() / 3;
  const Model model = randomModel(6);
  const float radius = 0.15f;
  for (std::size_t cap : {0u, 24u}) {
    SCOPED_TRACE("max_neighbors " + std::to_string(cap));
    const Neighborhoods graph =
        GridSearch::forRadius(points.data(), n, radius).withinRadius(points.data(), n, radius, cap);
    const ForwardResult whole = wholeCloud(model, points, graph, 2);
    // The sparse plate holds points with fewer than 3 neighbours, and neighbours of theirs: the
    // rule for a neighbour without a normal holds across tiles too.
    EXPECT_GT(std::count_if(whole.curvature.begin(), whole.curvature.end(), [](float c) { return std::isnan(c); }), 50);
    TiledForwardOptions tiled;
    tiled.radius = radius;
    tiled.max_neighbors = cap;
    tiled.iterations = 2;
    tiled.tile_points = 600;
    std::vector<float> normals, curvature;
    const TiledForwardReport report = runTiledForward(model, points.data(), n, tiled, normals, curvature);
    EXPECT_GE(report.tiles, 8u);
    EXPECT_TRUE(sameBits(normals, whole.normals));
    EXPECT_TRUE(sameBits(curvature, whole.curvature));
  }
}

TEST(TiledForward, OnDiskGivesTheInMemoryNormals) {
  const std::vector<float> points = unevenCloud(4000);
  const std::size_t n = points.size() / 3;
  const Model model = randomModel(7);
  TiledForwardOptions options;
  options.neighbors = 17;
  options.iterations = 2;
  options.tile_points = 500;
  std::vector<float> expected_normals, expected_curvature;
  runTiledForward(model, points.data(), n, options, expected_normals, expected_curvature);

  DensityHistogram histogram(boundsOf(points.data(), n));
  for (std::size_t i = 0; i < n; ++i) histogram.add(points.data() + 3 * i);
  std::string folder;
  std::vector<float> normals(3 * n, NAN), curvature(n, NAN);
  {
    pcl_dise::io::TiledCloudOnDisk cloud(std::filesystem::temp_directory_path().string(),
                                         histogram.tiles(options.tile_points));
    folder = cloud.folder();
    for (std::size_t i = 0; i < n; ++i) cloud.add(i, points.data() + 3 * i);
    cloud.finish();
    EXPECT_EQ(cloud.size(), n);
    std::vector<int> visits(n, 0);
    runTiledForward(model, cloud, options, [&](std::uint64_t g, const float* normal, float c) {
      std::copy_n(normal, 3, normals.begin() + 3 * g);
      curvature[g] = c;
      ++visits[g];
    });
    EXPECT_EQ(std::count(visits.begin(), visits.end(), 1), std::ptrdiff_t(n));  // each point once
  }
  EXPECT_FALSE(std::filesystem::exists(folder));  // the scratch files go with the cloud
  EXPECT_TRUE(sameBits(normals, expected_normals));
  EXPECT_TRUE(sameBits(curvature, expected_curvature));
}

TEST(TiledForward, TilesHoldAtMostTilePoints) {
  const std::vector<float> points = unevenCloud(6000);
  const std::size_t n = points.size() / 3;
  // The blob packs 1,200 points into a few of the 128 x 128 x 128 fine cells: tiles of 800.
  const TiledCloudInMemory cloud(points.data(), n, 800);
  std::size_t total = 0;
  EXPECT_GE(cloud.tiles().size(), 8u);
  EXPECT_LE(cloud.tiles().size(), 30u);  // tiles follow the density: few of them nearly empty
  for (std::size_t tile = 0; tile < cloud.tiles().size(); ++tile) {
    const TileLoad own = cloud.load(tile, cloud.tiles().tileBox(tile));
    EXPECT_LE(own.core.size(), 800u);
    EXPECT_TRUE(std::is_sorted(own.global.begin(), own.global.end()));
    total += own.core.size();
  }
  EXPECT_EQ(total, n);  // every point in exactly one tile
}

TEST(TiledForward, TilesAreAsFewAsTheirSizeAllows) {
  // 9,000 points spread evenly, tiles of at most 1,100: nine tiles of 1,000, not sixteen halved
  // down to 562 (more tiles, more halo).
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> points(3 * 9000);
  for (float& v : points) v = u(rng);
  const TiledCloudInMemory cloud(points.data(), 9000, 1100);
  EXPECT_EQ(cloud.tiles().size(), 9u);
}

TEST(TiledForward, TilesWhoseHaloOutgrowsTheBudgetRunInParts) {
  // A wavy sheet of 20,000 points in tiles of up to 5,000, but at most 5,000 loaded with a halo:
  // each tile runs in halves, each half proving its own halo, and the normals stay the whole
  // cloud's.
  const std::vector<float> points = wavySheet(20000, 11, 1.f);
  const std::size_t n = points.size() / 3;
  const Model model = randomModel(6);
  const ForwardResult whole = wholeCloudForward(model, points, 17, 2);
  TiledForwardOptions options;
  options.neighbors = 17;
  options.iterations = 2;
  options.tile_points = 5000;
  options.max_load = 5000;
  std::vector<float> normals, curvature;
  const TiledForwardReport report = runTiledForward(model, points.data(), n, options, normals, curvature);
  EXPECT_GT(report.split_parts, 0u);
  EXPECT_LE(report.largest_load, options.max_load);
  EXPECT_EQ(report.edge_scale, edgeScale(points.data(), n));
  EXPECT_TRUE(sameBits(normals, whole.normals));
  EXPECT_TRUE(sameBits(curvature, whole.curvature));
}

TEST(TiledForward, AMemoryBudgetTooSmallForATileAndItsHaloIsAnError) {
  const std::vector<float> points = unevenCloud(3000);
  TiledForwardOptions options;
  options.neighbors = 33;
  options.iterations = 4;
  options.tile_points = 300;
  options.max_load = 320;
  std::vector<float> normals, curvature;
  try {
    runTiledForward(randomModel(1), points.data(), 3000, options, normals, curvature);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("memory budget"), std::string::npos) << e.what();
  }
}

TEST(TiledForward, PartsTogetherGiveTheWholeCloudsNormals) {
  // Two processes (here threads) share the tiles; their edge-scale terms are summed as MPI would.
  const std::vector<float> points = unevenCloud(3000);
  const std::size_t n = points.size() / 3;
  const Model model = randomModel(8);
  TiledForwardOptions options;
  options.neighbors = 17;
  options.iterations = 2;
  options.tile_points = 400;
  std::vector<float> expected_normals, expected_curvature;
  runTiledForward(model, points.data(), n, options, expected_normals, expected_curvature);

  const TiledCloudInMemory cloud(points.data(), n, options.tile_points);
  ExactSum::State shared{};
  std::mutex mutex;
  std::condition_variable changed;
  int arrived = 0, generation = 0;
  auto barrier = [&](std::unique_lock<std::mutex>& lock) {
    const int mine = generation;
    if (++arrived == 2) {
      arrived = 0;
      ++generation;
      changed.notify_all();
    } else {
      changed.wait(lock, [&] { return generation != mine; });
    }
  };
  std::vector<float> normals(3 * n, NAN), curvature(n, NAN);
  std::vector<int> visits(n, 0);
  auto part = [&](int p) {
    TiledForwardOptions mine = options;
    mine.part = p;
    mine.parts = 2;
    mine.share_terms = [&, p](ExactSum& sum) {  // MPI_Allreduce of the states with MPI_SUM
      std::unique_lock<std::mutex> lock(mutex);
      const ExactSum::State own = sum.state();
      for (std::size_t i = 0; i < own.size(); ++i) shared[i] += own[i];
      barrier(lock);
      sum = ExactSum::fromState(shared);
      barrier(lock);
      if (p == 0) shared = ExactSum::State{};  // ready for the next sum
      barrier(lock);
    };
    runTiledForward(model, cloud, mine, [&](std::uint64_t g, const float* normal, float c) {
      std::lock_guard<std::mutex> lock(mutex);
      std::copy_n(normal, 3, normals.begin() + 3 * g);
      curvature[g] = c;
      ++visits[g];
    });
  };
  std::thread first(part, 0), second(part, 1);
  first.join();
  second.join();
  EXPECT_EQ(std::count(visits.begin(), visits.end(), 1), std::ptrdiff_t(n));
  EXPECT_TRUE(sameBits(normals, expected_normals));
  EXPECT_TRUE(sameBits(curvature, expected_curvature));
}

}  // namespace

namespace {

// Every Progress a job reports, and a stop after `stop_after` reports (0: never).
struct ProgressLog {
  std::vector<Progress> seen;
  std::size_t stop_after = 0;
  ProgressCallback callback() {
    return [this](const Progress& p) {
      seen.push_back(p);
      return stop_after == 0 || seen.size() < stop_after;
    };
  }
  bool monotoneToOne() const {
    for (std::size_t i = 1; i < seen.size(); ++i)
      if (seen[i].done < seen[i - 1].done) return false;
    return !seen.empty() && seen.back().done == 1.0 && seen.front().done >= 0.0;
  }
};

}  // namespace

TEST(TiledForward, ProgressIsMonotoneEndsAtOneAndStops) {
  const std::vector<float> points = unevenCloud(6000);
  const std::size_t n = points.size() / 3;
  const Model model = randomModel(5);
  TiledForwardOptions tiled;
  tiled.neighbors = 17;
  tiled.iterations = 2;
  tiled.tile_points = 700;
  ProgressLog log;
  tiled.progress = log.callback();
  std::vector<float> normals, curvature, plain_normals;
  const TiledForwardReport report = runTiledForward(model, points.data(), n, tiled, normals, curvature);
  EXPECT_TRUE(log.monotoneToOne());
  EXPECT_EQ(log.seen.back().steps, report.tiles);
  // The callback changes nothing; answering false stops the run with Cancelled.
  TiledForwardOptions plain = tiled;
  plain.progress = nullptr;
  runTiledForward(model, points.data(), n, plain, plain_normals, curvature);
  EXPECT_TRUE(sameBits(normals, plain_normals));
  ProgressLog stopping;
  stopping.stop_after = 3;
  tiled.progress = stopping.callback();
  EXPECT_THROW(runTiledForward(model, points.data(), n, tiled, normals, curvature), Cancelled);
  EXPECT_EQ(stopping.seen.size(), 3u);
}

TEST(Forward, ProgressCountsTheIterationsAndStops) {
  const std::vector<float> points = wavySheet(20000, 2, 1.f);
  const std::size_t n = points.size() / 3;
  const Neighborhoods graph = nearestNeighborGraph(points.data(), n, 17);
  ForwardInput input;
  input.points = points.data();
  input.num_points = n;
  input.neighborhoods = &graph;
  ForwardOptions options;
  options.iterations = 3;
  ProgressLog log;
  options.progress = log.callback();
  const ForwardResult result = runForward(randomModel(2), input, options);
  EXPECT_TRUE(log.monotoneToOne());
  EXPECT_EQ(log.seen.back().step, 3u);
  EXPECT_EQ(log.seen.back().steps, 3u);
  ForwardOptions plain = options;
  plain.progress = nullptr;
  EXPECT_TRUE(sameBits(runForward(randomModel(2), input, plain).normals, result.normals));
  ProgressLog stopping;
  stopping.stop_after = 1;
  options.progress = stopping.callback();
  EXPECT_THROW(runForward(randomModel(2), input, options), Cancelled);
}
