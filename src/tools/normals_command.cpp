#include "normals_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "pcl_dise/core/model.h"
#include "pcl_dise/io/file_format.h"
#include "pcl_dise/io/point_stream.h"
#include "progress_display.h"
#include "run_report.h"

namespace pcl_dise {
namespace tools {

using namespace io;  // the files, tiles and their options these tools run

NormalSettings Options::settings() const {
  NormalSettings s;
  s.orientation = jobs::defaultOrientationFor(input, has("viewpoint"));
  applyTo(s);
  return s;
}

void Options::check() const {
  jobs::NormalsFileJob job;
  job.settings = settings();
  job.output = output;
  job.max_memory_mb = max_memory;
  job.error_bound = error_bound;
  jobs::checkJob(job);
}

std::vector<std::int64_t> readIndices(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw FileError("cannot read the indices file '" + path + "'");
  std::vector<std::int64_t> indices;
  std::string word;
  while (in >> word) {
    std::size_t used = 0;
    long long value = -1;
    try {
      value = std::stoll(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != word.size() || value < 0)
      throw OptionsError("'" + path + "': index " + std::to_string(indices.size() + 1) + " is '" + word +
                         "', not a point index (0 or more)");
    indices.push_back(value);
  }
  if (indices.empty()) throw OptionsError("'" + path + "' holds no point index");  // not "every point"
  return indices;
}

void addNormalsOptions(CLI::App& app, Options& o) {
  app.add_option("input", o.input, "input cloud (" + formatExtensions(false) + ")")->required();
  app.add_option("output", o.output, "output file (" + formatExtensions(true) + ")")->required();
  addEstimatorOptions(app, o, kFileSurface);
  app.add_option("--max-memory", o.max_memory,
                 "memory budget in MB: a cloud that does not fit is read, computed and written tile by tile, "
                 "with the same normals (0: in memory)");
  app.add_option("--tile-points", o.tile_points,
                 "tiles of at most this many points, whatever the memory (0: from --max-memory)");
  app.add_option("--scratch", o.scratch, "folder for the tiles' scratch files (default: the output's)");
  app.add_flag("--error", o.error_bound,
               "also write each normal's error bound, the angle (degrees) it lies within with the probability "
               "the model's calibration states (90% for the shipped models): a float field error_bound in .pcd and "
               ".ply, an extra byte "
               "NormalErrorBound in .las and .laz");
  app.add_flag("--quiet", o.quiet, "no progress lines (stderr)");
  app.add_option("--report", o.report, "also write the summary as JSON to this file");
  app.add_option("--indices", o.indices,
                 "only the points listed in this file (0-based indices separated by whitespace; their receptive "
                 "field is estimated, the same normals as for the whole cloud); the others are written without one");
}

nlohmann::json normalsReport(const Options& o, std::uint64_t points, std::uint64_t missing,
                             const std::array<double, 3>& offset) {
  const NormalSettings settings = o.settings();
  nlohmann::json s = settingsReport(settings);
  s["max_memory_mb"] = o.max_memory;
  s["tile_points"] = o.tile_points;
  s["error_bound"] = o.error_bound;
  nlohmann::json report;
  report["input"] = o.input;
  report["output"] = o.output;
  report["settings"] = s;
  report["model"] = settings.iterations > 0 ? settings.modelPath() : "";
  report["points"] = points;
  report["normals"] = points - missing;
  report["without_normal"] = missing;
  report["offset"] = offset;
  return report;
}

std::string offsetText(const std::array<double, 3>& offset) {
  std::ostringstream text;
  text.precision(15);
  text << offset[0] << ", " << offset[1] << ", " << offset[2];
  return text.str();
}

jobs::NormalsFileJob Options::job(const ProgressCallback& progress) const {
  jobs::NormalsFileJob job;
  job.input = input;
  job.output = output;
  job.settings = settings();
  job.max_memory_mb = max_memory;
  job.tile_points = tile_points;
  job.scratch = scratch;
  job.error_bound = error_bound;
  if (!indices.empty()) job.indices = readIndices(indices);
  job.progress = progress;
  return job;
}

void printTiledRun(const Options& o, const jobs::NormalsFileReport& r, const jobs::Collective& processes,
                   const std::string& tool) {
  if (processes.rank() != 0) return;
  const jobs::OutOfCoreReport& report = r.tiles;
  const NormalSettings job_settings = o.settings();
  std::cout << tool << ": " << report.points << " points from " << o.input << ", in tiles"
            << (processes.size() > 1 ? " on " + std::to_string(processes.size()) + " processes" : std::string()) << "\n"
            << (report.offset != std::array<double, 3>{0, 0, 0}
                    ? "  coordinates relative to (" + offsetText(report.offset) + ")\n"
                    : std::string())
            << "  " << report.tiles.tiles << " tiles" << (processes.size() > 1 ? " on rank 0" : "") << " of at most "
            << report.tile_points << " points, the largest with its halo " << report.tiles.largest_load << " points"
            << "; halos grown again " << report.tiles.halo_growths << " times"
            << (report.tiles.split_parts > 0 ? ", tiles halved " + std::to_string(report.tiles.split_parts) +
                                                   " times (a halo outgrew the budget)"
                                             : std::string())
            << "\n"
            << "  iterations: " << job_settings.iterations
            << (job_settings.iterations > 0 ? ", model: " + r.model_path : std::string()) << "\n"
            << "  " << (report.points - report.missing) << " normals, " << report.missing
            << " points without a normal (NaN)\n"
            << "  time: " << r.total_seconds << " s (reading, tiling, search, estimation, writing)\n"
            << "  wrote " << o.output << "\n";
  nlohmann::json json = normalsReport(o, report.points, report.missing, report.offset);
  json["processes"] = processes.size();
  json["tiles"] = report.tiles.tiles;
  json["tile_points"] = report.tile_points;
  json["largest_tile_load"] = report.tiles.largest_load;
  json["seconds"] = {{"startup", r.startup_seconds}, {"total", r.total_seconds}};
  tools::writeRunReport(o.report, tool, json);
}

jobs::NormalsFileReport runJob(const jobs::NormalsFileJob& job, jobs::Collective& processes) {
  try {
    return jobs::estimateNormalsFile(job, processes);
  } catch (const OptionsError& e) {
    if (!jobs::runsInTiles(job)) throw;
    throw OptionsError(std::string(e.what()) + ": raise --max-memory or leave out --tile-points");
  }
}

int runTiled(const Options& o, jobs::Collective& processes, const std::string& tool) {
  // From the start, so that Ctrl-C at any moment stops the run cleanly.
  tools::ProgressDisplay display(tool, o.quiet || processes.rank() != 0);
  jobs::NormalsFileJob job = o.job(display.callback());
  job.always_tiles = true;
  const jobs::NormalsFileReport report = runJob(job, processes);
  display.finish();
  if (report.cancelled) {
    std::cerr << tool << ": stopped (Ctrl-C); no output written\n";
    return 130;
  }
  printTiledRun(o, report, processes, tool);
  return 0;
}

}  // namespace tools
}  // namespace pcl_dise
