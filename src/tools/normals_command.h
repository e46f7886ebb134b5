#pragma once
// What dise_normals and dise_normals_mpi share: their options, the job they make of them
// (jobs/normals_file.h) and the report of a run in tiles.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "estimator_options.h"
#include "pcl_dise/core/normal_settings.h"
#include "pcl_dise/jobs/normals_file.h"
#include "pcl_dise/jobs/out_of_core_normals.h"

namespace pcl_dise {
namespace tools {

/** The options of dise_normals and dise_normals_mpi: the estimator's and the files'. */
struct Options : EstimatorOptions {
  std::string input, output, scratch;
  double max_memory = 0.0;
  std::size_t tile_points = 0;
  bool error_bound = false;
  bool quiet = false;
  std::string report;  ///< --report: the summary as JSON to this file
  /// --indices: a text file of the points (0-based, whitespace-separated) whose normals are wanted;
  /// only their receptive field is estimated, the others are written without a normal ("": all)
  std::string indices;

  /** The run's settings: the declared defaults, the orientation the input asks for
   *  (jobs::defaultOrientationFor) and the settings given; throws OptionsError for a value that
   *  cannot be read. */
  NormalSettings settings() const;
  /** The job's checks (jobs::checkJob) before anything is read: throws OptionsError or FileError. */
  void check() const;
  /** The job these options ask for (--indices read here), told its progress. */
  jobs::NormalsFileJob job(const ProgressCallback& progress) const;
};

/** Adds the options (input, output, the estimator's, --viewpoint, --orient, --max-memory, ...,
 *  --quiet, --report) to `app`. */
void addNormalsOptions(CLI::App& app, Options& o);

/** "x, y, z" with 15 digits. */
std::string offsetText(const std::array<double, 3>& offset);

/** The point indices of an --indices file (0-based integers separated by whitespace); throws
 *  FileError where it cannot be read, OptionsError for a word that is not an index (naming it)
 *  and for a file that holds none.
 *  The job checks them against the cloud. */
std::vector<std::int64_t> readIndices(const std::string& path);

/** What --report says of every normals run: input, output, settings, model, counts, offset
 *  (the tool adds its timings and its own facts). */
nlohmann::json normalsReport(const Options& o, std::uint64_t points, std::uint64_t missing,
                             const std::array<double, 3>& offset);

/** The job (jobs::estimateNormalsFile); where it runs in tiles, an OptionsError (something only
 *  a cloud in memory can do) says which options to change. */
jobs::NormalsFileReport runJob(const jobs::NormalsFileJob& job, jobs::Collective& processes);

/** What a run in tiles did, on rank 0: the summary on stdout and --report. */
void printTiledRun(const Options& o, const jobs::NormalsFileReport& report, const jobs::Collective& processes,
                   const std::string& tool);

/** The job in tiles over `processes` (dise_normals_mpi); rank 0 shows its progress (tool: the
 *  name it shows) and prints what it did. Returns the exit code (130 after Ctrl-C, no output
 *  left); throws std::runtime_error with a message. */
int runTiled(const Options& o, jobs::Collective& processes, const std::string& tool);

}  // namespace tools
}  // namespace pcl_dise
