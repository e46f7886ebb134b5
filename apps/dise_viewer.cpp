// dise_viewer: a pcl_viewer-style window on DISE normals. Shows a cloud coloured by normal
// direction, angle error, curvature or a picked point's kernel weights, its normals as lines, DISE
// next to PCA, and steps through the iterations; --screenshot renders one picture and exits. The
// scene, the framing and the window are src/viewer's.
#include <iomanip>
#include <iostream>

#include <pcl/common/point_tests.h>
#include <vtkObject.h>
#include <CLI/CLI.hpp>

#include "estimator_options.h"
#include "pcl_dise/jobs/normals_file.h"
#include "run_report.h"
#include "viewer/framing.h"
#include "viewer/scene.h"
#include "viewer/viewer_window.h"

namespace {

namespace v = pcl_dise::viewer;

struct Options {
  pcl_dise::tools::EstimatorOptions estimator;
  std::string input, ground_truth, color_by = "normal", screenshot, report;
  int iteration = -1, every = 0, width = 1024, height = 768;
  long pick = -1;
  double scale = 0, max_error = 30;
  bool side_by_side = false, pca = false, no_normals = false;
};

int run(const Options& o) {
  v::SceneOptions scene_options{o.input, o.ground_truth, {}};
  pcl_dise::NormalSettings& settings = scene_options.settings;
  settings.orientation = pcl_dise::jobs::defaultOrientationFor(o.input, o.estimator.has("viewpoint"));
  o.estimator.applyTo(settings);
  const int iterations = settings.iterations;
  if (iterations < 0 || o.every < 0 || o.width < 16 || o.height < 16 || o.max_error <= 0)
    throw std::runtime_error("need --iterations >= 0, --every >= 0, a window of at least 16x16 and --max-error > 0");
  if (o.iteration > iterations)
    throw std::runtime_error("--iteration " + std::to_string(o.iteration) + " is beyond --iterations " +
                             std::to_string(iterations));
  if (o.color_by == "error" && o.ground_truth.empty())
    throw std::runtime_error("--color-by error needs --normals FILE");
  v::Scene scene(scene_options);
  if (o.pick >= 0 &&
      (static_cast<std::size_t>(o.pick) >= scene.cloud().size() || !pcl::isFinite(scene.cloud()[o.pick])))
    throw std::runtime_error("--pick " + std::to_string(o.pick) + " is not a finite point of the cloud (" +
                             std::to_string(scene.cloud().size()) + " points)");
  if (scene.truth())
    std::cout << "dise_viewer: angle error (RMSE, degrees) against " << o.ground_truth << ": PCA " << std::fixed
              << std::setprecision(2) << v::rmseDegrees(scene, scene.estimate(0)) << ", DISE "
              << v::rmseDegrees(scene, scene.estimate(iterations)) << " (" << scene.finitePoints().size()
              << " points)\n";
  const v::WindowOptions window_options{v::colorModes().at(o.color_by),
                                        iterations,
                                        o.iteration,
                                        o.pca,
                                        o.side_by_side,
                                        o.no_normals,
                                        o.scale,
                                        o.pick,
                                        o.every,
                                        o.width,
                                        o.height,
                                        o.max_error};
  v::ViewerWindow window(scene, window_options);
  if (!o.report.empty()) {
    const pcl::visualization::Camera camera = window.camera();
    nlohmann::json report;
    report["input"] = o.input;
    report["points"] = scene.cloud().size();
    report["finite_points"] = scene.finitePoints().size();
    report["normal_lines_every"] = window.every();
    report["framing"] = v::frameScene(scene, 1.f).name();
    report["camera"] = {{"position", {camera.pos[0], camera.pos[1], camera.pos[2]}},
                        {"focal_point", {camera.focal[0], camera.focal[1], camera.focal[2]}},
                        {"up", {camera.view[0], camera.view[1], camera.view[2]}}};
    pcl_dise::tools::writeRunReport(o.report, "dise_viewer", report);
  }
  if (!o.screenshot.empty()) {
    window.screenshot(o.screenshot);
    std::cout << "dise_viewer: wrote " << o.screenshot << "\n";
  } else {
    window.spin();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  vtkObject::GlobalWarningDisplayOff();  // VTK 9's deprecation notices from PCL's shaders are not the user's concern
  CLI::App app{"Shows DISE normals in a pcl_viewer-style window (press h for the keys)."};
  Options o;
  app.add_option("input", o.input, ".pcd, .ply or .xyz cloud")->required();
  app.add_option("--normals", o.ground_truth, "ground-truth .normals file (for --color-by error)");
  pcl_dise::tools::addEstimatorOptions(app, o.estimator, pcl_dise::kInMemorySurface);
  app.add_option("--iteration", o.iteration, "iteration shown first, 0 (PCA) .. L (default L)");
  app.add_option("--color-by", o.color_by,
                 "normal, error, weights, curvature or bound (each normal's error bound, on the error's scale)")
      ->check(CLI::IsMember({"normal", "error", "weights", "curvature", "bound"}))
      ->capture_default_str();
  app.add_option("--pick", o.pick, "point whose kernel weights --color-by weights shows (default: the most central)");
  app.add_option("--every", o.every, "draw every n-th normal (default: a subset of about 2,000 lines)");
  app.add_option("--scale", o.scale, "length of the normal lines (default: 1.5% of the cloud's diagonal)");
  app.add_flag("--no-normals", o.no_normals, "do not draw the normals as lines");
  app.add_option("--max-error", o.max_error, "angle error (degrees) at the top of the colour map")
      ->capture_default_str();
  app.add_flag("--pca", o.pca, "start with PCA instead of DISE");
  app.add_flag("--side-by-side", o.side_by_side, "PCA on the left, DISE on the right");
  app.add_option("--screenshot", o.screenshot, "render to this .png and exit (headless: run under xvfb-run -a)");
  app.add_option("--width", o.width, "window width")->capture_default_str();
  app.add_option("--height", o.height, "window height")->capture_default_str();
  app.add_option("--report", o.report, "write what is shown (camera, counts) as JSON to this file");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "dise_viewer: error: " << e.what() << "\n";
    return 1;
  }
}
