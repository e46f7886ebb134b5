#pragma once
// Normals for a cloud file larger than memory, on one machine or several (MPI): the file is read piece by piece
// (point_stream.h) a few times, its points go to scratch files tile by tile (disk_tiled_cloud.h), each tile runs the
// forward pass with a halo that makes it exact (tiled_forward.h), and the output is written in input order
// (normals_writer.h). The results are those of the in-memory path (dise_normals without --max-memory) bit for bit: the
// same offset, centroid, edge scale and neighbourhoods. Plain C++, no PCL. The job of normals_file.h decides
// between this run and the in-memory one; io reads and writes the files.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pcl_dise/core/error_bound.h"
#include "pcl_dise/core/model.h"
#include "pcl_dise/core/normal_settings.h"
#include "pcl_dise/core/tiled_forward.h"
#include "pcl_dise/core/viewpoint.h"

namespace pcl_dise {
namespace jobs {

/** The processes that share one run (MPI ranks; one process by default): rank 0 writes the
 *  output, every rank runs its share of the tiles. */
class Collective {
 public:
  virtual ~Collective() = default;
  virtual int rank() const { return 0; }  ///< this process's rank
  virtual int size() const { return 1; }  ///< processes
  /** The sum over the ranks of each rank's terms, on every rank. */
  virtual void sum(ExactSum& terms) { (void)terms; }
  /** Rank 0's text, on every rank. */
  virtual std::string broadcast(const std::string& text) { return text; }
  virtual void barrier() {}  ///< waits for every rank
};

/** How estimateNormalsOutOfCore runs. */
struct OutOfCoreOptions {
  TiledForwardOptions forward;  ///< neighbourhoods, iterations, threads; tile_points from the budget
  double memory_budget_mb = 0;  ///< the most memory to use (0: tiles of forward.tile_points)
  std::string scratch_folder;   ///< where the tiles go ("": beside the output)
  bool has_viewpoint = false;   ///< flip towards `viewpoint` (file coordinates), else the PCD VIEWPOINT or the origin
  std::array<double, 3> viewpoint{0, 0, 0};         ///< with has_viewpoint: x, y, z in the file's coordinates
  NormalSign sign = NormalSign::kTowardsViewpoint;  ///< how each normal gets its sign (core/viewpoint.h)
  /// Not empty: each normal's error bound by it, written as the value io::PointValue::kErrorBound.
  ErrorCalibration error_bound;
  /// Where each tile's forward pass runs. Backend::Cuda: each tile's iteration 0 and iterations
  /// on the device (its search on the CPU, where its neighbourhoods also prove the halo), so that
  /// a cloud larger than the device's memory runs in tiles that fit it.
  Backend backend = Backend::Native;
  /// The share of the run done on this process (core/progress.h): reading and tiling the input
  /// the first fifth, the tiles up to 0.9, writing the output the rest. false stops the run: it
  /// throws Cancelled and leaves no output file.
  ProgressCallback progress;
};

/** What estimateNormalsOutOfCore did. */
struct OutOfCoreReport {
  std::uint64_t points = 0;               ///< points read
  std::uint64_t missing = 0;              ///< points without a normal (NaN)
  std::array<double, 3> offset{0, 0, 0};  ///< subtracted before the coordinates became floats
  std::size_t tile_points = 0;            ///< the most points a tile held (its halo not counted)
  TiledForwardReport tiles;               ///< the tiled forward pass's report
};

/** \brief Why a run's settings need the cloud in memory, "" where tiles can run them: the
 *  adaptive mode (settle) and the whole-cloud orientations (mst, closed). The tools and Python
 *  ask here.
 *  \param[in] settings the run's settings */
std::string needsCloudInMemory(const NormalSettings& settings);

/** The tiles' options from a run's settings (core/normal_settings.h): neighbourhood, iterations,
 *  threads, backend, viewpoint and sign; the budget, scratch folder and progress left as they are.
 *  Validates the settings (as NormalSettings::validate, the model file not checked: the caller
 *  loads it) and throws OptionsError with needsCloudInMemory's reason where it has one. */
OutOfCoreOptions outOfCoreOptions(const NormalSettings& settings);

/** The bytes a tile needs per loaded point at `neighbors` neighbours per point (measured; see
 *  experiments/BENCHMARKS.md), and the bytes the in-memory path needs per point. */
double bytesPerLoadedPoint(std::size_t neighbors);
double bytesPerPointInMemory(std::size_t neighbors);

/** Reads `input` (.xyz, binary .pcd / .ply, .las), writes `output` (.pcd, .ply, .las, .normals)
 *  with every input point in input order. Throws std::runtime_error with a message: a backend
 *  this build or machine lacks (before reading), unreadable or truncated input, a budget too small for one tile and its
 * halo, a failed write (no output file is left behind then). Shared by the ranks of `processes` (a default Collective
 * is one process): each reads the input, runs its tiles (tile t on rank t % size) and writes their results into a
 * scratch file they share (the scratch folder must be one they all see), and rank 0 writes the output. The output is
 * the one-process output. */
OutOfCoreReport estimateNormalsOutOfCore(const Model& model, const std::string& input, const std::string& output,
                                         const OutOfCoreOptions& options, Collective& processes);

}  // namespace jobs
}  // namespace pcl_dise
