// dise_normals: DISE surface normals for a point cloud file.
#include <csignal>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "normals_command.h"
#include "orientation_command.h"
#include "progress_display.h"
#include "run_report.h"

namespace {

using namespace pcl_dise::tools;

// What a run in memory did: the summary on stdout and --report.
void printInMemoryRun(const Options& o, const pcl_dise::jobs::NormalsFileReport& r) {
  const pcl_dise::NormalSettings s = o.settings();
  const int k = s.neighbors();
  std::cout << "dise_normals: " << r.points << " points from " << o.input << "\n"
            << (r.offset != std::array<double, 3>{0, 0, 0}
                    ? "  coordinates relative to (" + offsetText(r.offset) +
                          ") (float keeps their precision; written back in double)\n"
                    : std::string())
            << "  neighbourhood: "
            << (k > 0 ? "k = " + std::to_string(k) + " (+ the point itself)"
                      : "radius " + std::to_string(s.radius) +
                            (s.max_neighbors ? ", at most " + std::to_string(s.max_neighbors) : ""))
            << "\n  iterations: " << s.iterations << ", backend: " << pcl_dise::toString(s.backend)
            << (s.precision != pcl_dise::Precision::Float ? ", precision " + pcl_dise::toString(s.precision) + " (" +
                                                                pcl_dise::nativeInstructionSet(s.precision) + ")"
                                                          : std::string())
            << (s.iterations > 0 ? ", model: " + r.model_path : std::string()) << "\n"
            << "  " << (r.points - r.without_normal) << " normals, " << r.without_normal
            << " points without a normal (NaN)\n"
            << orientationText(s, r.outcome) << "  time: " << r.estimation_seconds << " s (search + estimation";
  if (r.outcome.oriented)
    std::cout << " " << r.estimation_seconds - r.outcome.orientation_seconds << " s, orientation "
              << r.outcome.orientation_seconds << " s";
  std::cout << ")\n  wrote " << o.output << "\n";
  nlohmann::json json = normalsReport(o, r.points, r.without_normal, r.offset);
  if (r.indices > 0) json["indices"] = r.indices;
  json["seconds"] = {{"startup", r.startup_seconds},       {"reading", r.reading_seconds},
                     {"estimation", r.estimation_seconds}, {"orientation", r.outcome.orientation_seconds},
                     {"writing", r.writing_seconds},       {"total", r.total_seconds}};
  pcl_dise::tools::writeRunReport(o.report, "dise_normals", json);
}

// In memory or in tiles, as the job decides (jobs/normals_file.h).
int run(const Options& o) {
  pcl_dise::tools::ProgressDisplay display("dise_normals", o.quiet);
  const pcl_dise::jobs::NormalsFileJob job = o.job(display.callback());
  pcl_dise::jobs::Collective one_process;
  const pcl_dise::jobs::NormalsFileReport report = runJob(job, one_process);
  display.finish();
  if (report.cancelled) {
    std::cerr << "dise_normals: stopped (Ctrl-C); no output written\n";
    return 130;
  }
  if (report.in_tiles)
    printTiledRun(o, report, one_process, "dise_normals");
  else
    printInMemoryRun(o, report);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Estimates surface normals with DISE (Deep Iterative Surface Normal Estimation).\n"
      "Input: .pcd, .ply, .las, .laz or .xyz. Output by extension: .pcd/.ply (points + normals +\n"
      "curvature), .las/.laz (LAS 1.4, normals and curvature as extra bytes) or .normals (nx ny nz per input point,\n"
      "nan where none)."};
  Options o;
  addNormalsOptions(app, o);
  CLI11_PARSE(app, argc, argv);
  std::signal(SIGXFSZ, SIG_IGN);  // a file-size limit then fails the write with a message, as a full disk does
  try {
    o.check();
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "dise_normals: error: " << e.what() << "\n";
    return 1;
  }
}
