// dise_normals: DISE surface normals for a point cloud file.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include <CLI/CLI.hpp>

#include "normals_command.h"
#include "orientation_command.h"
#include "pcl_dise/feature/normal_pipeline.h"
#include "pcl_dise/io/cloud_io.h"
#include "progress_display.h"
#include "run_report.h"

namespace {

using namespace pcl_dise::io;
using namespace pcl_dise::tools;

// One normal per point of a cloud of `points`: those of `at_indices` (one per index) at their
// indices, none (NaN) elsewhere.
pcl::PointCloud<pcl::Normal> normalsAtIndices(const pcl::PointCloud<pcl::Normal>& at_indices,
                                              const pcl::Indices& indices, std::size_t points) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  pcl::PointCloud<pcl::Normal> all(static_cast<std::uint32_t>(points), 1, pcl::Normal(nan, nan, nan, nan));
  for (std::size_t r = 0; r < indices.size(); ++r) all[indices[r]] = at_indices[r];
  return all;
}

int run(const Options& o) {
  using Clock = std::chrono::steady_clock;
  if (o.tile_points > 0 || !fitsInMemory(o)) {
    Collective one_process;
    return runTiled(o, one_process, "dise_normals");
  }

  const auto start = Clock::now();
  pcl_dise::tools::ProgressDisplay display("dise_normals", o.quiet);
  const pcl_dise::NormalSettings settings = o.settings();
  pcl_dise::NormalPipeline pipeline(settings);
  // Before a byte is read; a device's context starts here, not in the timed estimation.
  if (settings.iterations > 0) {
    const std::string unavailable = pcl_dise::backendUnavailableMessage(settings.backend);
    if (!unavailable.empty()) throw std::runtime_error(unavailable);
  }
  const double startup_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  display.show("reading", 0.0);
  const pcl_dise::io::LocalCloud local = pcl_dise::io::readCloud(o.input);
  const auto& cloud = local.cloud;
  if (cloud->empty()) throw std::runtime_error("'" + o.input + "' holds no points");
  pcl::IndicesPtr indices;
  if (!o.indices.empty()) {
    const std::vector<std::int64_t> listed = readIndices(o.indices, cloud->size());
    indices.reset(new pcl::Indices(listed.begin(), listed.end()));
  }
  const double read_seconds = std::chrono::duration<double>(Clock::now() - start).count() - startup_seconds;

  pipeline.setProgressCallback(display.callback());
  pipeline.estimator().setStoreKernelWeights(false);  // not written: not kept (nor copied back from a GPU)

  pcl::PointCloud<pcl::Normal> normals;
  const auto compute_start = Clock::now();
  display.show("search", 0.0);
  const pcl_dise::NormalsOutcome outcome = pipeline.compute(cloud, normals, local.offset, indices);
  if (outcome.cancelled) {
    display.finish();
    std::cerr << "dise_normals: stopped (Ctrl-C); no output written\n";
    return 130;
  }
  const std::string orientation = orientationText(settings, outcome);
  const double seconds = std::chrono::duration<double>(Clock::now() - compute_start).count();
  const int k = settings.neighbors();
  display.show("writing", 1.0);
  const auto write_start = Clock::now();
  if (indices) normals = normalsAtIndices(normals, *indices, cloud->size());
  const std::size_t missing =
      indices ? cloud->size() - indices->size() + outcome.without_normal : outcome.without_normal;
  pcl_dise::io::writeNormals(o.output, local, normals, indices ? nullptr : &outcome.confidence);
  const double write_seconds = std::chrono::duration<double>(Clock::now() - write_start).count();
  display.finish();

  std::cout << "dise_normals: " << cloud->size() << " points from " << o.input << "\n"
            << (local.hasOffset() ? "  coordinates relative to (" + offsetText(local.offset) +
                                        ") (float keeps their precision; written back in double)\n"
                                  : std::string())
            << "  neighbourhood: "
            << (k > 0 ? "k = " + std::to_string(k) + " (+ the point itself)"
                      : "radius " + std::to_string(o.radius) +
                            (o.max_neighbors ? ", at most " + std::to_string(o.max_neighbors) : ""))
            << "\n  iterations: " << o.iterations << ", backend: " << o.backend
            << (o.precision != "float"
                    ? ", precision " + o.precision + " (" +
                          pcl_dise::nativeInstructionSet(pcl_dise::precisionFromString(o.precision)) + ")"
                    : std::string())
            << (o.iterations > 0 ? ", model: " + pipeline.modelPath() : std::string()) << "\n"
            << "  " << (cloud->size() - missing) << " normals, " << missing << " points without a normal (NaN)\n"
            << orientation << "  time: " << seconds << " s (search + estimation";
  if (outcome.oriented)
    std::cout << " " << seconds - outcome.orientation_seconds << " s, orientation " << outcome.orientation_seconds
              << " s";
  std::cout << ")\n  wrote " << o.output << "\n";
  nlohmann::json json = normalsReport(o, cloud->size(), missing, local.offset);
  if (indices) json["indices"] = indices->size();
  json["seconds"] = {
      {"startup", startup_seconds}, {"reading", read_seconds},
      {"estimation", seconds},      {"orientation", outcome.orientation_seconds},
      {"writing", write_seconds},   {"total", std::chrono::duration<double>(Clock::now() - start).count()}};
  pcl_dise::tools::writeRunReport(o.report, "dise_normals", json);
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
