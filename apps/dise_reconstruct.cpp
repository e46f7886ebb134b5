// dise_reconstruct: a point cloud to a surface mesh: DISE normals, consistent orientation, Poisson
// reconstruction (PCL), trimmed where Poisson adds surface far from the points.
#include <chrono>
#include <csignal>
#include <iostream>

#include <pcl/common/io.h>
#include <pcl/visualization/pcl_visualizer.h>
#include <CLI/CLI.hpp>

#include "estimator_options.h"
#include "normals_command.h"
#include "orientation_command.h"
#include "pcl_dise/core/error_bound.h"
#include "pcl_dise/feature/normal_pipeline.h"
#include "pcl_dise/io/cloud_io.h"
#include "progress_display.h"
#include "run_report.h"
#include "surface/mesh_files.h"
#include "surface/poisson_mesh.h"

namespace {

using namespace pcl_dise::io;
using namespace pcl_dise::tools;
using Clock = std::chrono::steady_clock;

struct Arguments {
  EstimatorOptions estimator;
  std::string input, output, compare_pca, reference, report;
  bool quiet = false;
  bool closed = false;
  pcl_dise::surface::PoissonOptions poisson;
  int width = 1200, height = 600;
};

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The normals' settings, oriented consistently.
pcl_dise::NormalSettings normalSettings(const Arguments& a) {
  pcl_dise::NormalSettings settings;
  a.estimator.applyTo(settings);
  settings.orientation = a.closed ? pcl_dise::Orientation::kClosed : pcl_dise::Orientation::kTree;
  return settings;
}

// Normals by DISE (iterations 0: PCA), oriented consistently, as the points Poisson reads; with
// `weighted`, each normal scaled by its error bound's weight (boundWeights).
pcl::PointCloud<pcl::PointNormal>::Ptr orientedNormals(const LocalCloud& local, const Arguments& a, int iterations,
                                                       pcl_dise::tools::ProgressDisplay& display,
                                                       const std::string& name, bool weighted) {
  pcl_dise::NormalSettings settings = normalSettings(a);
  settings.iterations = iterations;
  pcl_dise::NormalPipeline pipeline(settings);
  const std::string stage = name + " normals", orientation_stage = name + " orientation";
  pipeline.setProgressCallback([&](const pcl_dise::Progress& p) {
    pcl_dise::Progress q = p;
    q.stage = std::string(p.stage) == "orientation" ? orientation_stage.c_str() : stage.c_str();
    return display.callback()(q);
  });
  pcl::PointCloud<pcl::Normal> normals;
  const pcl_dise::NormalsOutcome outcome = pipeline.compute(local.cloud, normals, local.offset);
  if (outcome.cancelled) throw pcl_dise::Cancelled();
  display.finish();
  std::cout << orientationText(settings, outcome);
  if (!weighted) return pcl_dise::surface::pointsWithNormals(*local.cloud, normals);
  std::vector<float> weights;
  if (!pipeline.estimator().computeErrorBounds(normals, weights))
    throw std::runtime_error("--confidence: " + pcl_dise::errorBoundUnavailable(iterations,
                                                                                pipeline.estimator().getModel().get(),
                                                                                pipeline.modelPath()));
  weights = pcl_dise::boundWeights(weights);
  return pcl_dise::surface::pointsWithNormals(*local.cloud, normals, &weights);
}

// `surface`: the points the mesh is measured against (the input, or --reference).
pcl::PolygonMesh reconstruct(const LocalCloud& local, const pcl::PointCloud<pcl::PointXYZ>& surface, const Arguments& a,
                             int iterations, const std::string& name, pcl_dise::tools::ProgressDisplay& display,
                             nlohmann::json& report) {
  const auto start = Clock::now();
  pcl_dise::surface::PoissonOptions poisson = a.poisson;
  poisson.confidence = a.poisson.confidence && iterations > 0;  // PCA has no bound
  const auto points = orientedNormals(local, a, iterations, display, name, poisson.confidence);
  display.show((name + " Poisson").c_str(), 1.0);
  std::size_t diagnostics = 0;
  const pcl::PolygonMesh mesh = pcl_dise::surface::reconstructPoisson(points, poisson, &diagnostics);
  display.show((name + " fit").c_str(), 1.0);
  const pcl_dise::surface::MeshFit fit = pcl_dise::surface::measureFit(mesh, surface, a.poisson.threads);
  display.finish();
  if (diagnostics > 0)
    std::cout << "  " << name << ": PCL's Poisson printed " << diagnostics
              << " diagnostic lines (\"Vertex pair not in list\": iso-surface edges it could not pair, usual on "
                 "noisy clouds), not shown\n";
  report[name] = {{"vertices", fit.vertices},
                  {"faces", fit.faces},
                  {"vertex_to_points", fit.vertex_to_points},
                  {"points_to_vertex", fit.points_to_vertex},
                  {"poisson_diagnostics", diagnostics},
                  {"seconds", secondsSince(start)}};
  std::cout << "  " << name << ": " << fit.vertices << " vertices, " << fit.faces << " faces; mean distance "
            << 100 * fit.vertex_to_points << "% of the diagonal from a vertex to the "
            << (a.reference.empty() ? "input" : "reference") << " points, " << 100 * fit.points_to_vertex
            << "% from such a point to the mesh's vertices; " << secondsSince(start) << " s\n";
  return mesh;
}

// PCA's mesh on the left, DISE's on the right, one picture (headless: under xvfb-run -a).
void renderSideBySide(const pcl::PolygonMesh& pca, const pcl::PolygonMesh& dise, const Arguments& a) {
  pcl::visualization::PCLVisualizer viewer("dise_reconstruct");
  viewer.setSize(a.width, a.height);
  int left = 0, right = 0;
  viewer.createViewPort(0, 0, 0.5, 1, left);
  viewer.createViewPort(0.5, 0, 1, 1, right);
  for (const auto& [mesh, viewport, label] :
       {std::tuple(&pca, left, "PCA normals"), std::tuple(&dise, right, "DISE normals")}) {
    viewer.setBackgroundColor(1, 1, 1, viewport);
    viewer.addPolygonMesh(*mesh, label, viewport);
    // addPolygonMesh keeps a mesh among the clouds: its colour is a cloud's rendering property.
    viewer.setPointCloudRenderingProperties(pcl::visualization::PCL_VISUALIZER_COLOR, 0.75, 0.75, 0.8, label, viewport);
    viewer.addText(std::string(label) + ", " + std::to_string(mesh->polygons.size()) + " faces", 10, 10, 16, 0.1, 0.1,
                   0.1, std::string(label) + "_text", viewport);
  }
  viewer.resetCamera();
  for (int i = 0; i < 3; ++i) viewer.spinOnce(1, true);
  viewer.saveScreenshot(a.compare_pca);
}

int run(const Arguments& a) {
  pcl_dise::surface::checkMeshPath(a.output);
  const auto start = Clock::now();
  const LocalCloud local = readCloud(a.input);
  if (local.cloud->empty()) throw std::runtime_error("'" + a.input + "' holds no points");
  std::cout << "dise_reconstruct: " << local.cloud->size() << " points from " << a.input << "\n";
  pcl_dise::tools::ProgressDisplay display("dise_reconstruct", a.quiet);
  nlohmann::json report;
  const LocalCloud reference = a.reference.empty() ? local : readCloud(a.reference);
  if (reference.offset != local.offset)
    throw std::runtime_error("--reference '" + a.reference + "' lies in another frame than the input (offset " +
                             offsetText(reference.offset) + " against " + offsetText(local.offset) + ")");
  pcl::PolygonMesh mesh;
  try {
    mesh = reconstruct(local, *reference.cloud, a, normalSettings(a).iterations, "DISE", display, report);
    pcl_dise::surface::writeMesh(a.output, mesh);
    if (!a.compare_pca.empty())
      renderSideBySide(reconstruct(local, *reference.cloud, a, 0, "PCA", display, report), mesh, a);
  } catch (const pcl_dise::Cancelled&) {
    display.finish();
    std::cerr << "dise_reconstruct: stopped (Ctrl-C)\n";
    return 130;
  }
  std::cout << "  wrote " << a.output << (a.compare_pca.empty() ? "" : " and " + a.compare_pca) << " ("
            << secondsSince(start) << " s)\n";
  report["input"] = a.input;
  report["output"] = a.output;
  report["points"] = local.cloud->size();
  const pcl_dise::NormalSettings settings = normalSettings(a);
  report["settings"] = settingsReport(settings);
  report["settings"]["depth"] = a.poisson.depth;
  report["settings"]["trim"] = a.poisson.trim;
  report["settings"]["confidence"] = a.poisson.confidence;
  report["model"] = settings.iterations > 0 ? settings.modelPath() : "";
  report["seconds"] = {{"total", secondsSince(start)}};
  pcl_dise::tools::writeRunReport(a.report, "dise_reconstruct", report);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Reconstructs a surface mesh from a point cloud: DISE normals, oriented consistently (outward on\n"
      "closed shapes), Poisson reconstruction (PCL), trimmed where it strays from the points.\n"
      "Input: .pcd, .ply, .las, .laz or .xyz. Output: .ply or .obj."};
  Arguments a;
  app.add_option("input", a.input, "cloud (.pcd, .ply, .las, .laz, .xyz)")->required();
  app.add_option("output", a.output, "mesh (.ply, .obj)")->required();
  addEstimatorOptions(app, a.estimator, pcl_dise::kInMemorySurface, {"orient"});  // --closed says mst or closed
  app.add_flag("--closed", a.closed,
               "the cloud samples closed shapes: after the orientation's tree, each point takes the side an "
               "outside grid shows it (ray parity where walls are too thin for it); not for scans");
  app.add_option("--depth", a.poisson.depth, "Poisson octree depth (detail; time and memory grow 4x to 8x a level)")
      ->check(CLI::Range(1, 14))
      ->capture_default_str();
  app.add_option("--trim", a.poisson.trim,
                 "drop mesh vertices farther than this fraction of the bounding-box diagonal from every point")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--confidence", a.poisson.confidence,
               "weight each normal in Poisson by its error bound (inverse variance, the bounds under the "
               "median counted as the median; the model's calibration, docs/models.md#error-bounds); "
               "the PCA mesh of --compare-pca is unweighted");
  app.add_option("--compare-pca", a.compare_pca,
                 "also reconstruct from PCA normals and render both side by side into this .png "
                 "(headless: run under xvfb-run -a)");
  app.add_option("--reference", a.reference,
                 "measure the mesh against this cloud (the true surface, e.g. a clean sample) instead of the input");
  app.add_option("--width", a.width, "picture width")->capture_default_str();
  app.add_option("--height", a.height, "picture height")->capture_default_str();
  app.add_flag("--quiet", a.quiet, "no progress lines (stderr)");
  app.add_option("--report", a.report, "also write the summary as JSON to this file");
  CLI11_PARSE(app, argc, argv);
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    const pcl_dise::NormalSettings settings = normalSettings(a);
    settings.validate();
    const std::string no_bound =
        a.poisson.confidence ? pcl_dise::errorBoundUnavailable(settings.iterations, nullptr, "") : "";
    if (!no_bound.empty()) throw std::runtime_error("--confidence: " + no_bound);
    a.poisson.threads = settings.threads;  // the normals' threads, and Poisson's and the fit's
    return run(a);
  } catch (const std::exception& e) {
    std::cerr << "dise_reconstruct: error: " << e.what() << "\n";
    return 1;
  }
}
