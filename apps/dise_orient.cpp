// dise_orient: orients the normals of a point cloud consistently (outward on closed shapes),
// whichever estimator made them.
#include <chrono>
#include <csignal>
#include <iostream>

#include <CLI/CLI.hpp>

#include "estimator_options.h"
#include "orientation_command.h"
#include "pcl_dise/io/cloud_io.h"
#include "progress_display.h"
#include "run_report.h"

namespace {

using namespace pcl_dise::io;
using namespace pcl_dise::tools;

struct Arguments {
  std::string input, normals, output, report;
  EstimatorOptions orientation;       // the orientation's settings given
  pcl_dise::NormalSettings settings;  // the orientation's: iterations 0, no model
  bool closed = false, quiet = false;
};

int run(const Arguments& a) {
  const auto begin = std::chrono::steady_clock::now();
  pcl_dise::tools::ProgressDisplay display("dise_orient", a.quiet);
  display.show("reading", 0.0);
  const LocalCloud local = readCloud(a.input);
  pcl::PointCloud<pcl::Normal>::Ptr normals = readNormals(a.normals);
  display.show("orientation", 0.5);
  const auto start = std::chrono::steady_clock::now();
  const pcl_dise::NormalPipeline pipeline(a.settings);
  const pcl_dise::NormalsOutcome outcome = pipeline.orient(local.cloud, *normals, local.offset);
  const std::string text = orientationText(a.settings, outcome);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  display.show("writing", 1.0);
  writeNormals(a.output, local, *normals, {{PointValue::kOrientationConfidence, outcome.confidence}});
  display.finish();
  std::cout << "dise_orient: " << local.cloud->size() << " points from " << a.input << ", normals from " << a.normals
            << "\n"
            << text << "  time: " << seconds << " s (orientation)\n"
            << "  wrote " << a.output << "\n";
  nlohmann::json report;
  report["input"] = a.input;
  report["normals"] = a.normals;
  report["output"] = a.output;
  report["points"] = local.cloud->size();
  report["settings"] = settingsReport(a.settings);
  report["settings"]["closed"] = a.closed;
  report["seconds"] = {{"orientation", seconds},
                       {"total", std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count()}};
  pcl_dise::tools::writeRunReport(a.report, "dise_orient", report);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Orients normals consistently along a minimum spanning tree (closed shapes face outward, open\n"
      "surfaces their seed's side): each connected part is seeded at --orient-seed, else at the point nearest\n"
      "--viewpoint (or a PCD VIEWPOINT other than the origin), else at its topmost point facing +z.\n"
      "Input: a cloud (.pcd, .ply, .las, .laz, .xyz) and its normals (.normals: nx ny nz per point, nan where\n"
      "none). Output by extension, as dise_normals writes it (curvature NaN)."};
  Arguments a;
  app.add_option("input", a.input, "cloud (.pcd, .ply, .las, .laz, .xyz)")->required();
  app.add_option("normals", a.normals, "its normals (.normals)")->required();
  app.add_option("output", a.output, "output file (.pcd, .ply, .las, .laz, .normals)")->required();
  addSettingOptions(app, a.orientation, {"orient_neighbors", "viewpoint", "orient_seed", "threads"});
  app.add_flag("--closed", a.closed,
               "the cloud samples closed shapes: after the tree, each point takes the side an outside grid "
               "shows it (holds under heavy noise; ray parity where walls are too thin for the grid); not for "
               "scans or other open surfaces");
  app.add_flag("--quiet", a.quiet, "no progress lines (stderr)");
  app.add_option("--report", a.report, "also write the summary as JSON to this file");
  CLI11_PARSE(app, argc, argv);
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    a.orientation.applyTo(a.settings);
    a.settings.iterations = 0;
    a.settings.orientation = a.closed ? pcl_dise::Orientation::kClosed : pcl_dise::Orientation::kTree;
    return run(a);
  } catch (const std::exception& e) {
    std::cerr << "dise_orient: error: " << e.what() << "\n";
    return 1;
  }
}
