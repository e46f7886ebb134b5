#pragma once
// Normals for a cloud file, written to another: the one job dise_normals, dise_normals_mpi and
// Python's estimate_normals_file share. It decides, in one place, whether the cloud runs in memory
// (NormalPipeline) or in tiles (estimateNormalsOutOfCore), and reports what it did.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pcl_dise/core/normal_settings.h"
#include "pcl_dise/core/progress.h"
#include "pcl_dise/feature/normal_pipeline.h"
#include "pcl_dise/jobs/out_of_core_normals.h"

namespace pcl_dise {
namespace jobs {

/** What to estimate and how. */
struct NormalsFileJob {
  std::string input;        ///< .pcd, .ply, .las, .laz or .xyz
  std::string output;       ///< by extension (io::writeNormals)
  NormalSettings settings;  ///< the neighbourhood, model, backend, orientation, ...
  /// > 0: the most memory to use, in MB; a cloud whose in-memory run would need more runs in
  /// tiles sized to it. 0: in memory.
  double max_memory_mb = 0;
  std::size_t tile_points = 0;  ///< > 0: tiles of at most this many points, whatever the memory
  bool always_tiles = false;    ///< tiles even where the cloud fits (several processes share them)
  std::string scratch;          ///< the tiles' scratch folder ("": the output's)
  /// Only these points' normals (0-based; in memory only): their receptive field is estimated,
  /// the others are written without a normal. Empty: every point.
  std::vector<std::int64_t> indices;
  ProgressCallback progress;  ///< told each stage; answering false stops the job (no output left)
  /// Writes each normal's error bound (degrees; the model's calibration, core/error_bound.h) as
  /// the value error_bound (PCD, PLY) or NormalErrorBound (LAS, LAZ); text outputs hold none.
  bool error_bound = false;
};

/** What the job did. */
struct NormalsFileReport {
  bool in_tiles = false;                  ///< whether it ran in tiles (runsInTiles)
  bool cancelled = false;                 ///< stopped by the progress callback: no output written
  std::uint64_t points = 0;               ///< points read
  std::uint64_t without_normal = 0;       ///< points written without a normal (NaN)
  std::uint64_t indices = 0;              ///< the points asked for by NormalsFileJob::indices (0: every point)
  std::array<double, 3> offset{0, 0, 0};  ///< subtracted in double before the coordinates became floats
  std::string model_path;                 ///< the model file read ("" with iterations 0)
  NormalsOutcome outcome;                 ///< in memory: the orientation's counts and time
  OutOfCoreReport tiles;                  ///< in tiles: the tiles' report
  double startup_seconds = 0;             ///< the model read and, for a device, its context
  double reading_seconds = 0;             ///< in memory: reading the input
  double estimation_seconds = 0;          ///< in memory: the search, the estimation and the orientation
  double writing_seconds = 0;             ///< in memory: writing the output
  double total_seconds = 0;               ///< the whole job, start-up included
};

/** \brief Whether the job runs in tiles: always_tiles, tile_points, or a budget the cloud in
 *  memory would exceed (the input's points are counted, not read).
 *  \param[in] job the job */
bool runsInTiles(const NormalsFileJob& job);

/** \brief The orientation a run of `input` gets where none is asked for: the viewpoint where one
 *  is given, else "up" for a format whose clouds are surveys seen from above (LAS and LAZ: no
 *  sensor pose, the sensor above; io::FormatTraits::surveyed_from_above), else the viewpoint (the
 *  file's, or the origin).
 *  \param[in] input the input cloud's path (its extension decides; an unknown one: the viewpoint)
 *  \param[in] viewpoint_given whether a viewpoint is given */
Orientation defaultOrientationFor(const std::string& input, bool viewpoint_given);

/** \brief Checks the job's settings (NormalSettings::validate) and memory budget, as
 *  estimateNormalsFile does before it reads a byte.
 *  \param[in] job the job
 *  \throws OptionsError or FileError (a model file that cannot be opened) */
void checkJob(const NormalsFileJob& job);

/** \brief Runs the job.
 *  \param[in] job what to estimate
 *  \param[in] processes the processes sharing its tiles (Collective; one for a single process)
 *  \return what it did (cancelled: nothing written)
 *  \throws OptionsError for settings that cannot run (as NormalSettings::validate says, a backend
 *  this build or machine lacks, indices in tiles or with a whole-cloud orientation, settings that
 *  need the cloud in memory where it runs in tiles: needsCloudInMemory), FileError for files,
 *  std::runtime_error for other failures */
NormalsFileReport estimateNormalsFile(const NormalsFileJob& job, Collective& processes);

}  // namespace jobs
}  // namespace pcl_dise
