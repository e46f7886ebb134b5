#include "speed_benchmark.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

#include <pcl/features/normal_3d_omp.h>
#include <pcl/io/pcd_io.h>
#include <pcl/search/kdtree.h>

#include "measurement.h"
#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/core/spatial_order.h"
#include "pcl_dise/core/tiled_forward.h"
#include "pcl_dise/feature/normal_pipeline.h"

namespace pcl_dise {
namespace bench {
namespace {

using Clock = std::chrono::steady_clock;
using Cloud = pcl::PointCloud<pcl::PointXYZ>;

// Multiply-adds per edge and iteration after the algebra of the native backend (issue #4's count:
// layer1 256+512, layer2 512+512, layer3 512+512, kernel 1,024+192+64).
constexpr double kMultiplyAddsPerEdge = 4096;

using Options = SpeedBenchmarkOptions;

// A smooth closed surface with sharp-ish detail: a sphere with bumps, n points, deterministic.
Cloud::Ptr syntheticCloud(long n) {
  auto cloud = pcl::make_shared<Cloud>();
  cloud->resize(n);
  std::mt19937 rng(7);
  std::normal_distribution<float> g;
  for (long i = 0; i < n; ++i) {
    float p[3] = {g(rng), g(rng), g(rng)};
    const float r = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    const float bump = 1.f + 0.1f * std::sin(6 * p[0] / r) * std::cos(5 * p[1] / r);
    (*cloud)[i] = pcl::PointXYZ(p[0] / r * bump, p[1] / r * bump, p[2] / r * bump);
  }
  return cloud;
}

// dise_normals_mpi as a whole process under `mpirun -np ranks` (each rank threads / ranks threads), in
// tiles of n/8 as the tiled row, reading the cloud from and writing the normals to a scratch folder:
// the seconds of the whole run, the peak resident memory of the largest process.
Measurement mpiRun(const Options& o, long n, unsigned threads, const std::string& model_path) {
  return inChild([&] {
    const auto self = std::filesystem::read_symlink("/proc/self/exe");
    const auto mpi_tool = self.parent_path() / "dise_normals_mpi";
    if (!std::filesystem::exists(mpi_tool)) throw std::runtime_error(mpi_tool.string() + " not built (needs MPI)");
    const auto dir = std::filesystem::temp_directory_path() / ("dise_bench_mpi." + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string cloud = (dir / "cloud.pcd").string();
    if (pcl::io::savePCDFileBinary(cloud, *syntheticCloud(n)) != 0) throw std::runtime_error("cannot write " + cloud);
    std::ostringstream command;
    command << "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np " << o.mpi_ranks
            << " --oversubscribe " << mpi_tool << ' ' << cloud << ' ' << (dir / "out.ply") << " --k " << o.k
            << " --iterations " << o.iterations << " --model " << model_path << " --threads "
            << std::max(1u, threads / unsigned(o.mpi_ranks)) << " --tile-points " << std::max(1L, n / 8) << " > "
            << (dir / "log") << " 2>&1";
    const double seconds = bestOf(o.repeat, [&] {
      if (std::system(command.str().c_str()) != 0)
        throw std::runtime_error("mpirun failed: " + command.str() + " (log in " + (dir / "log").string() + ")");
    });
    std::filesystem::remove_all(dir);
    return seconds;
  });
}

void printRow(const std::string& size, const std::string& what, const Measurement& m, double pca_seconds) {
  std::cout << "| " << size << " | " << what << " | ";
  if (!m.error.empty()) {
    std::cout << "failed: " << m.error << " | | |\n";
    return;
  }
  std::cout << std::fixed << std::setprecision(3) << m.seconds << " | " << std::setprecision(2)
            << m.seconds / pca_seconds << "x | " << std::setprecision(0) << m.peak_mb << " |\n";
}

}  // namespace

int runSpeedBenchmark(const SpeedBenchmarkOptions& o) {
  if (!o.write_cloud.empty()) {
    if (o.sizes.empty() || pcl::io::savePCDFileBinary(o.write_cloud, *syntheticCloud(o.sizes.front())) != 0)
      throw std::runtime_error("cannot write " + o.write_cloud);
    return 0;
  }
  if (o.k < 2 || o.iterations < 1 || o.repeat < 1)
    throw std::runtime_error("need --k >= 2, --iterations >= 1, --repeat >= 1");
  const unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<pcl_dise::Backend> backends;
  for (const auto& name : o.backends) backends.push_back(pcl_dise::backendFromString(name));
  if (backends.empty())
    for (auto b : {pcl_dise::Backend::Native, pcl_dise::Backend::Torch, pcl_dise::Backend::Cuda})
      if (pcl_dise::backendAvailable(b)) backends.push_back(b);
  const std::string model_path = pcl_dise::modelPathOrDefault(o.model, o.k);
  auto model = std::make_shared<const pcl_dise::Model>(pcl_dise::loadModel(model_path));

  const std::string isa = pcl_dise::nativeInstructionSet();
  const double peak = inChild([&] { return fmaPeakGflops(isa, threads); }).seconds;
  std::cout << "dise_bench: k = " << o.k << ", L = " << o.iterations << ", " << threads << " threads, best of "
            << o.repeat << "; FMA peak " << std::setprecision(1) << std::fixed << peak << " GFLOP/s (" << isa
            << ", single precision, the instruction set of the native backend's network)\n\n";
  std::cout << "| points | what | seconds | / PCA | peak MB |\n|---|---|---|---|---|\n";
  for (long n : o.sizes) {
    const std::string size = std::to_string(n);
    const Measurement search = inChild([&] {
      const auto cloud = syntheticCloud(n);
      return bestOf(o.repeat, [&] {
        pcl::search::KdTree<pcl::PointXYZ> tree;
        tree.setInputCloud(cloud);
        std::vector<pcl::Indices> ids(n);
        std::vector<std::vector<float>> d2(n);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256)
        for (long i = 0; i < n; ++i) tree.nearestKSearch((*cloud)[i], o.k + 1, ids[i], d2[i]);
      });
    });
    // The same k + 1 neighbours of every point, visited along a Morton curve as the feature does
    // with a user's search method, and by the grid search, the feature's default.
    const Measurement search_morton = inChild([&] {
      const auto cloud = syntheticCloud(n);
      return bestOf(o.repeat, [&] {
        pcl::search::KdTree<pcl::PointXYZ> tree;
        tree.setInputCloud(cloud);
        std::vector<float> points;
        for (const auto& p : *cloud) points.insert(points.end(), {p.x, p.y, p.z});
        const std::vector<std::int32_t> order = pcl_dise::mortonOrder(points.data(), n);
        std::vector<pcl::Indices> ids(n);
        std::vector<std::vector<float>> d2(n);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256)
        for (long t = 0; t < n; ++t) tree.nearestKSearch((*cloud)[order[t]], o.k + 1, ids[order[t]], d2[order[t]]);
      });
    });
    const Measurement search_grid = inChild([&] {
      const auto cloud = syntheticCloud(n);
      return bestOf(o.repeat, [&] {
        std::vector<float> points;
        for (const auto& p : *cloud) points.insert(points.end(), {p.x, p.y, p.z});
        const pcl_dise::Neighborhoods found = pcl_dise::nearestNeighborGraph(points.data(), n, o.k + 1, threads);
        if (found.numEdges() != std::size_t(n) * (o.k + 1)) throw std::runtime_error("grid search failed");
      });
    });
    const Measurement pca = inChild([&] {
      const auto cloud = syntheticCloud(n);
      return bestOf(o.repeat, [&] {
        pcl::NormalEstimationOMP<pcl::PointXYZ, pcl::Normal> ne(threads);
        ne.setInputCloud(cloud);
        ne.setKSearch(o.k + 1);
        pcl::PointCloud<pcl::Normal> normals;
        ne.compute(normals);
      });
    });
    printRow(size, "kNN search (pcl::search::KdTree, k+1)", search, pca.seconds);
    printRow(size, "kNN search (pcl::search::KdTree, k+1, Morton order)", search_morton, pca.seconds);
    printRow(size, "kNN search (pcl_dise::GridSearch, k+1; the default)", search_grid, pca.seconds);
    printRow(size, "PCA (pcl::NormalEstimationOMP)", pca, pca.seconds);
    for (auto backend : backends) {
      auto dise_run = [&](int iterations, double settle, pcl_dise::Precision precision) {
        return inChild([&] {
          const auto cloud = syntheticCloud(n);
          pcl_dise::NormalSettings settings;
          settings.k = o.k;
          settings.iterations = iterations;
          settings.settle_degrees = settle;
          settings.threads = threads;
          settings.backend = backend;
          settings.precision = precision;
          return bestOf(o.repeat, [&] {
            pcl_dise::NormalPipeline pipeline(settings, model);
            pcl::PointCloud<pcl::Normal> normals;
            pipeline.compute(cloud, normals);
          });
        });
      };
      const std::string name = "DISE " + pcl_dise::toString(backend);
      const Measurement iteration0 = dise_run(0, 0, pcl_dise::Precision::Float);
      // The native backend in bfloat16 too, where the processor has it (--precision bf16).
      std::vector<pcl_dise::Precision> precisions{pcl_dise::Precision::Float};
      if (backend == pcl_dise::Backend::Native && pcl_dise::bfloat16Available())
        precisions.push_back(pcl_dise::Precision::Bf16);
      for (const pcl_dise::Precision precision : precisions) {
        const std::string label = name + (precision == pcl_dise::Precision::Bf16 ? " bf16" : "");
        const Measurement full = dise_run(o.iterations, 0, precision);
        printRow(size, label + ", end to end", full, pca.seconds);
        if (backend == pcl_dise::Backend::Native && precision == pcl_dise::Precision::Float) {
          // The same forward pass in tiles of an eighth of the cloud, each with its proved halo
          // (tiled_forward.h; what dise_normals --max-memory runs, here without the disk).
          const Measurement tiled = inChild([&] {
            const auto cloud = syntheticCloud(n);
            std::vector<float> points;
            for (const auto& p : *cloud) points.insert(points.end(), {p.x, p.y, p.z});
            return bestOf(o.repeat, [&] {
              pcl_dise::TiledForwardOptions tiles;
              tiles.neighbors = static_cast<std::size_t>(o.k) + 1;
              tiles.iterations = o.iterations;
              tiles.threads = static_cast<int>(threads);
              tiles.tile_points = std::max<std::size_t>(1, n / 8);
              std::vector<float> normals, curvature;
              pcl_dise::runTiledForward(*model, points.data(), n, tiles, normals, curvature);
            });
          });
          printRow(size, name + ", in tiles of n/8 with halos (exact)", tiled, pca.seconds);
          if (o.mpi_ranks > 0)
            printRow(size,
                     "dise_normals_mpi, " + std::to_string(o.mpi_ranks) +
                         " ranks, tiles of n/8, whole process with reading and writing",
                     mpiRun(o, n, threads, model_path), pca.seconds);
        }
        if (backend == pcl_dise::Backend::Native && o.settle > 0) {
          std::ostringstream adaptive;
          adaptive << label << ", adaptive (settle " << o.settle << " deg), end to end";
          printRow(size, adaptive.str(), dise_run(o.iterations, o.settle, precision), pca.seconds);
        }
        if (full.error.empty() && iteration0.error.empty()) {
          // The network part: the L iterations beyond search + iteration 0. Its rate counts
          // multiply-adds against the float FMA peak (bfloat16's pair products can pass it).
          const double network = full.seconds - iteration0.seconds;
          const double gflops = double(n) * (o.k + 1) * o.iterations * kMultiplyAddsPerEdge * 2 / network / 1e9;
          std::cout << "| " << size << " | " << label << ", network part (" << o.iterations << " iterations) | "
                    << std::setprecision(3) << network << " | " << std::setprecision(1) << gflops
                    << " GFLOP/s = " << std::setprecision(0) << 100 * gflops / peak << "% of float FMA peak | |\n";
        }
      }
    }
  }
  return 0;
}

}  // namespace bench
}  // namespace pcl_dise
