// dise_viewer: a pcl_viewer-style window on DISE normals. Shows a cloud coloured by normal
// direction, angle error, curvature or a picked point's kernel weights, its normals as lines, DISE
// next to PCA, and steps through the iterations; --screenshot renders one picture and exits.
#include <cmath>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include <pcl/common/common.h>
#include <pcl/features/normal_3d.h>
#include <pcl/kdtree/kdtree_flann.h>
#include <pcl/visualization/pcl_visualizer.h>
#include <vtkLookupTable.h>
#include <vtkRenderer.h>
#include <vtkRendererCollection.h>
#include <vtkScalarBarActor.h>
#include <vtkTextProperty.h>
#include <CLI/CLI.hpp>

#include "orientation_command.h"
#include "pcl_dise/core/angle_error.h"
#include "pcl_dise/core/viewpoint.h"
#include "pcl_dise/feature/normal_pipeline.h"
#include "pcl_dise/io/cloud_io.h"
#include "pcl_dise/io/extension.h"
#include "run_report.h"
#include "viewer/color_maps.h"

namespace {

using pcl_dise::viewer::Rgb;
using Cloud = pcl::PointCloud<pcl::PointXYZ>;
using Normals = pcl::PointCloud<pcl::Normal>;

enum class ColorBy { kNormal, kError, kWeights, kCurvature };
const std::map<std::string, ColorBy> kColorModes = {{"normal", ColorBy::kNormal},
                                                    {"error", ColorBy::kError},
                                                    {"weights", ColorBy::kWeights},
                                                    {"curvature", ColorBy::kCurvature}};

std::string modeName(ColorBy mode) {
  for (const auto& [name, m] : kColorModes)
    if (m == mode) return name;
  return "?";
}

struct Options {
  std::string input, ground_truth, model, color_by = "normal", screenshot, orient, report;
  int k = 64, iterations = 4, iteration = -1, every = 0, width = 1024, height = 768;
  long pick = -1;
  double scale = 0, max_error = 30;
  bool side_by_side = false, pca = false, no_normals = false;
  unsigned threads = 0;
};

// What one method (DISE after a number of iterations, or PCA) gives for the cloud.
struct Estimate {
  Normals normals;  // same size as the cloud, NaN where none
  // Kernel weights of a point's neighbourhood: surface indices and weights.
  std::function<bool(std::size_t, pcl::Indices&, std::vector<float>&)> weights;
};

// The scene's data and the estimates, computed lazily per iteration (each is a full DISE run
// with that many iterations, so that normals, curvature and weights all belong to it).
class Scene {
 public:
  explicit Scene(const Options& o) : o_(o) {
    local_ = pcl_dise::io::readCloud(o.input);
    cloud_ = local_.cloud;  // the local frame is what the viewer shows
    for (std::size_t i = 0; i < cloud_->size(); ++i)
      if (pcl::isFinite((*cloud_)[i])) finite_.push_back(static_cast<pcl::index_t>(i));
    if (finite_.size() < 3) throw std::runtime_error("'" + o.input + "' has fewer than 3 finite points");
    if (!o.ground_truth.empty()) {
      truth_ = pcl_dise::io::readNormals(o.ground_truth);
      if (truth_->size() != cloud_->size())
        throw std::runtime_error("'" + o.ground_truth + "' has " + std::to_string(truth_->size()) + " normals for " +
                                 std::to_string(cloud_->size()) + " points");
    }
    tree_.setInputCloud(cloud_, std::make_shared<pcl::Indices>(finite_));
    Eigen::Vector4f lo, hi;
    pcl::getMinMax3D(*cloud_, finite_, lo, hi);
    diagonal_ = (hi - lo).head<3>().norm();
    low_ = lo.head<3>(), high_ = hi.head<3>();
    settings_.k = o.k;
    settings_.iterations = o.iterations;
    settings_.model = o.model;
    settings_.threads = o.threads;
    settings_.orientation = o.orient.empty() ? pcl_dise::io::defaultOrientationFor(o.input, false)
                                             : pcl_dise::orientationFromName(o.orient);
    // The model once for every iteration count shown.
    if (o.iterations > 0) model_ = pcl_dise::NormalPipeline(settings_).model();
  }

  const Cloud& cloud() const { return *cloud_; }
  const pcl::Indices& finitePoints() const { return finite_; }
  /** Whether the cloud comes with the pose of the sensor that took it: a PCD VIEWPOINT other
   *  than the default, or an organized scan (whose sensor sits at its VIEWPOINT, the origin by
   *  default). A LAS or LAZ file states no pose: its survey's sensor flew above it. */
  bool hasSensorPose() const {
    if (isAerialSurvey()) return false;
    const bool default_pose = local_.viewpoint == std::array<double, 3>{0, 0, 0} &&
                              cloud_->sensor_orientation_.coeffs().isApprox(Eigen::Quaternionf::Identity().coeffs());
    return cloud_->height > 1 || !default_pose;
  }
  /** Whether the cloud is a LiDAR file (LAS, LAZ): a survey seen from above. */
  bool isAerialSurvey() const { return !local_.las_source.empty(); }
  const Eigen::Vector3f& low() const { return low_; }
  const Eigen::Vector3f& high() const { return high_; }
  const Normals* truth() const { return truth_.get(); }
  float diagonal() const { return diagonal_; }

  /** DISE after `iteration` iterations (0: PCA by PCL itself). */
  const Estimate& estimate(int iteration) {
    auto& slot = cache_[iteration];
    if (!slot) slot = iteration == 0 ? computePca() : computeDise(iteration);
    return *slot;
  }

  /** The finite point nearest the centroid: the default pick. */
  std::size_t centralPoint() const {
    Eigen::Vector4f centroid;
    pcl::compute3DCentroid(*cloud_, finite_, centroid);
    pcl::Indices found(1);
    std::vector<float> distances(1);
    pcl::PointXYZ c(centroid.x(), centroid.y(), centroid.z());
    tree_.nearestKSearch(c, 1, found, distances);
    return static_cast<std::size_t>(found[0]);
  }

 private:
  std::unique_ptr<Estimate> computePca() {
    auto e = std::make_unique<Estimate>();
    pcl::NormalEstimation<pcl::PointXYZ, pcl::Normal> pca;
    pca.setInputCloud(cloud_);
    pca.setKSearch(o_.k + 1);  // the same k + 1 points as DISE's k
    pca.compute(e->normals);
    orient(e->normals);
    // PCA weighs its neighbourhood uniformly.
    e->weights = [this](std::size_t index, pcl::Indices& ids, std::vector<float>& w) {
      std::vector<float> distances;
      if (!pcl::isFinite((*cloud_)[index]) || tree_.nearestKSearch((*cloud_)[index], o_.k + 1, ids, distances) <= 0)
        return false;
      w.assign(ids.size(), 1.f / float(ids.size()));
      return true;
    };
    return e;
  }

  std::unique_ptr<Estimate> computeDise(int iterations) {
    auto e = std::make_unique<Estimate>();
    pcl_dise::NormalSettings settings = settings_;
    settings.iterations = iterations;
    auto pipeline = std::make_shared<pcl_dise::NormalPipeline>(settings, model_);
    std::cout << pcl_dise::io::orientationText(settings, pipeline->compute(cloud_, e->normals, local_.offset));
    e->weights = [pipeline](std::size_t index, pcl::Indices& ids, std::vector<float>& w) {
      return pipeline->estimator().getKernelWeights(index, ids, w);
    };
    return e;
  }

  // PCL's PCA faces its viewpoint (the sensor origin); the other orientations as DISE gets them,
  // so that the two compare (none keeps PCL's sign).
  void orient(Normals& normals) const {
    if (settings_.orientation == pcl_dise::Orientation::kUp) {
      const float unused[3] = {0, 0, 0};
      for (auto& n : normals)
        if (std::isfinite(n.normal_x)) pcl_dise::signNormal(pcl_dise::NormalSign::kUp, unused, unused, n.normal);
    }
    if (!pcl_dise::orientsWholeCloud(settings_.orientation)) return;
    pcl_dise::NormalSettings settings = settings_;
    settings.iterations = 0;
    std::cout << pcl_dise::io::orientationText(
        settings, pcl_dise::NormalPipeline(settings).orient(cloud_, normals, local_.offset));
  }

  const Options& o_;
  pcl_dise::io::LocalCloud local_;
  Cloud::Ptr cloud_;
  Normals::Ptr truth_;
  pcl::Indices finite_;
  pcl::KdTreeFLANN<pcl::PointXYZ> tree_;
  float diagonal_ = 1;
  Eigen::Vector3f low_, high_;
  pcl_dise::NormalSettings settings_;
  std::shared_ptr<const pcl_dise::Model> model_;
  std::map<int, std::unique_ptr<Estimate>> cache_;
};

/** Colours of the finite points (in finitePoints() order) under `mode`. */
std::vector<Rgb> colorPoints(Scene& scene, const Estimate& e, ColorBy mode, std::size_t pick, const Options& o) {
  namespace v = pcl_dise::viewer;
  const auto& finite = scene.finitePoints();
  std::vector<Rgb> colors(finite.size(), v::kMissingColor);
  if (mode == ColorBy::kWeights) {
    pcl::Indices ids;
    std::vector<float> weights;
    if (!e.weights(pick, ids, weights)) return colors;
    std::map<pcl::index_t, float> weight_of;
    float max_weight = 0;
    for (std::size_t j = 0; j < ids.size(); ++j) {
      weight_of[ids[j]] += weights[j];
      max_weight = std::max(max_weight, weight_of[ids[j]]);
    }
    for (std::size_t i = 0; i < finite.size(); ++i) {
      const auto it = weight_of.find(finite[i]);
      if (it != weight_of.end()) colors[i] = v::weightColor(it->second, max_weight);
    }
    return colors;
  }
  for (std::size_t i = 0; i < finite.size(); ++i) {
    const pcl::Normal& n = e.normals[finite[i]];
    switch (mode) {
      case ColorBy::kNormal: colors[i] = v::normalColor(n.normal); break;
      case ColorBy::kCurvature: colors[i] = v::curvatureColor(n.curvature, 1.f / 3.f); break;
      case ColorBy::kError:
        colors[i] = v::errorColor(
            static_cast<float>(pcl_dise::unorientedAngleDegrees(n.normal, (*scene.truth())[finite[i]].normal)),
            float(o.max_error));
        break;
      case ColorBy::kWeights: break;
    }
  }
  return colors;
}

// Normal lines drawn by default: about this many, so that they stay readable.
constexpr std::size_t kNormalLines = 2000;

const char* kHelp =
    "dise_viewer keys\n"
    "  ] / [     next / previous iteration (0 = PCA)\n"
    "  m         next colouring: normal, error (needs --normals), weights, curvature\n"
    "  t         toggle DISE / PCA (single view)\n"
    "  n         show / hide the normals\n"
    "  . / ,     longer / shorter normals\n"
    "  shift+click  pick the point whose kernel weights are shown\n"
    "  h         this help (pcl_viewer's keys work too: r resets the camera, q quits)";

// RMSE (degrees) of the unoriented angle between an estimate's normals and the ground truth over
// the finite points (a missing normal counts 90 degrees, as in dise_eval).
double rmseDegrees(Scene& scene, const Estimate& e) {
  double sum = 0;
  for (const pcl::index_t i : scene.finitePoints()) {
    const double a = pcl_dise::angleErrorDegrees(e.normals[i].normal, (*scene.truth())[i].normal);
    sum += a * a;
  }
  return scene.finitePoints().empty() ? 0.0 : std::sqrt(sum / scene.finitePoints().size());
}

class Viewer {
 public:
  Viewer(Scene& scene, const Options& o)
      : scene_(scene),
        o_(o),
        mode_(kColorModes.at(o.color_by)),
        iteration_(o.iteration < 0 ? o.iterations : o.iteration),
        show_pca_(o.pca),
        show_normals_(!o.no_normals),
        scale_(o.scale > 0 ? o.scale : 0.015 * scene.diagonal()),
        pick_(o.pick >= 0 ? static_cast<std::size_t>(o.pick) : scene.centralPoint()),
        every_(o.every > 0 ? o.every : std::max(1, static_cast<int>(scene.finitePoints().size() / kNormalLines))),
        viewer_(std::make_shared<pcl::visualization::PCLVisualizer>("dise_viewer")) {
    viewer_->setSize(o.width, o.height);
    if (o.side_by_side) {
      viewer_->createViewPort(0, 0, 0.5, 1, viewports_[0]);
      viewer_->createViewPort(0.5, 0, 1, 1, viewports_[1]);
    }
    for (int viewport : viewports_) viewer_->setBackgroundColor(1, 1, 1, viewport);
    viewer_->registerKeyboardCallback([this](const pcl::visualization::KeyboardEvent& e) { onKey(e); });
    viewer_->registerPointPickingCallback([this](const pcl::visualization::PointPickingEvent& e) { onPick(e); });
    redraw();
    frame();
  }

  void spin() { viewer_->spin(); }

  /** The camera (position, focal point, up) after framing: for --report. */
  pcl::visualization::Camera camera() {
    std::vector<pcl::visualization::Camera> cameras;
    viewer_->getCameras(cameras);
    return cameras.front();
  }

  /** Normal lines drawn per method: every `every_`-th point with a normal. */
  int every() const { return every_; }

  // A cloud with a sensor pose opens from the sensor's position (its VIEWPOINT), looking at the
  // scene with the depth-camera convention's up (-y), as pcl_viewer shows a scan; an aerial survey
  // (LAS, LAZ) from above the south edge, 60 degrees down, the whole tile in view; any other cloud
  // fits its bounding box from a three-quarter view, z up.
  void frame() {
    const Eigen::Vector3f centre = 0.5f * (scene_.low() + scene_.high());
    const float reach = std::max(scene_.diagonal(), 1e-6f);
    if (scene_.hasSensorPose()) {
      const Eigen::Vector3f position = scene_.cloud().sensor_origin_.head<3>();
      const Eigen::Vector3f look = (centre - position).normalized();
      Eigen::Vector3f up(0, -1, 0);
      if (std::abs(look.dot(up)) > 0.95f) up = Eigen::Vector3f(0, 0, 1);
      viewer_->setCameraPosition(position.x(), position.y(), position.z(), centre.x(), centre.y(), centre.z(), up.x(),
                                 up.y(), up.z());
      // The narrowest field of view that holds the scene (vertical, the window's aspect for the width).
      const Eigen::Vector3f right = look.cross(up).normalized(), true_up = right.cross(look);
      const float aspect = (o_.side_by_side ? 0.5f : 1.f) * float(o_.width) / float(o_.height);  // a viewport's
      float tan_half = 0;
      const auto& finite = scene_.finitePoints();
      for (std::size_t i = 0; i < finite.size(); i += std::max<std::size_t>(1, finite.size() / 20000)) {
        const Eigen::Vector3f to = scene_.cloud()[finite[i]].getVector3fMap() - position;
        const float depth = to.dot(look);
        if (depth <= 0) continue;
        tan_half = std::max({tan_half, std::abs(to.dot(true_up)) / depth, std::abs(to.dot(right)) / depth / aspect});
      }
      viewer_->setCameraFieldOfView(std::clamp(2.f * std::atan(1.05f * tan_half), 0.2f, 2.5f));
      const float farthest = (position - centre).norm() + reach;
      viewer_->setCameraClipDistances(1e-3 * farthest, 2 * farthest);
      return;
    }
    const Eigen::Vector3f direction =
        scene_.isAerialSurvey() ? Eigen::Vector3f(0.f, -0.5f, 0.866f) : Eigen::Vector3f(1.f, -1.2f, 0.9f).normalized();
    const Eigen::Vector3f from = centre + reach * direction;
    viewer_->setCameraPosition(from.x(), from.y(), from.z(), centre.x(), centre.y(), centre.z(), 0, 0, 1);
    viewer_->resetCamera();  // keeps the direction, fits the box
  }

  void screenshot(const std::string& path) {
    for (int i = 0; i < 3; ++i) viewer_->spinOnce(1, true);
    viewer_->saveScreenshot(path);
  }

 private:
  void redraw() {
    viewer_->removeAllPointClouds();
    viewer_->removeAllShapes();
    if (o_.side_by_side) {
      drawMethod(true, viewports_[0]);
      drawMethod(false, viewports_[1]);
    } else {
      drawMethod(show_pca_, 0);
    }
    if (help_) viewer_->addText(kHelp, 10, o_.height - 170, 13, 0.1, 0.1, 0.1, "help");
    drawColorBar();
  }

  // Error and curvature colourings get a colour bar with their units, in every viewport.
  void drawColorBar() {
    auto renderers = viewer_->getRendererCollection();
    for (auto& bar : bars_) {
      renderers->InitTraversal();
      while (vtkRenderer* r = renderers->GetNextItem()) r->RemoveActor2D(bar);
    }
    bars_.clear();
    if (mode_ != ColorBy::kError && mode_ != ColorBy::kCurvature) return;
    const bool error = mode_ == ColorBy::kError;
    const float top = error ? static_cast<float>(o_.max_error) : 1.f / 3.f;
    auto table = vtkSmartPointer<vtkLookupTable>::New();
    table->SetNumberOfTableValues(256);
    table->SetRange(0, top);
    for (int i = 0; i < 256; ++i) {
      const float value = top * float(i) / 255.f;
      const Rgb c = error ? pcl_dise::viewer::errorColor(value, top) : pcl_dise::viewer::curvatureColor(value, top);
      table->SetTableValue(i, c.r / 255.0, c.g / 255.0, c.b / 255.0);
    }
    table->Build();
    renderers->InitTraversal();
    int index = 0;
    while (vtkRenderer* r = renderers->GetNextItem()) {
      if (o_.side_by_side && index++ == 0) continue;  // the collection's first renderer is the whole window's
      auto bar = vtkSmartPointer<vtkScalarBarActor>::New();
      bar->SetLookupTable(table);
      bar->SetTitle(error ? "error (deg)" : "curvature");
      bar->SetNumberOfLabels(4);
      bar->SetLabelFormat(error ? "%.0f" : "%.2f");
      bar->SetOrientationToVertical();
      bar->UnconstrainedFontSizeOn();
      bar->GetTitleTextProperty()->SetFontSize(14);
      bar->GetLabelTextProperty()->SetFontSize(13);
      bar->GetPositionCoordinate()->SetValue(0.84, 0.1);
      bar->SetWidth(0.12);
      bar->SetHeight(0.8);
      for (vtkTextProperty* text : {bar->GetTitleTextProperty(), bar->GetLabelTextProperty()}) {
        text->SetColor(0.1, 0.1, 0.1);
        text->ShadowOff();
        text->ItalicOff();
      }
      r->AddActor2D(bar);
      bars_.push_back(bar);
    }
  }

  void drawMethod(bool pca, int viewport) {
    const Estimate& e = scene_.estimate(pca ? 0 : iteration_);
    const std::string tag = (pca ? "pca" : "dise") + std::to_string(viewport);
    const std::vector<Rgb> colors = colorPoints(scene_, e, mode_, pick_, o_);
    pcl::PointCloud<pcl::PointXYZRGB>::Ptr shown(new pcl::PointCloud<pcl::PointXYZRGB>);
    Cloud::Ptr line_points(new Cloud);
    Normals::Ptr line_normals(new Normals);
    const auto& finite = scene_.finitePoints();
    for (std::size_t i = 0; i < finite.size(); ++i) {
      const pcl::PointXYZ& p = scene_.cloud()[finite[i]];
      pcl::PointXYZRGB q(colors[i].r, colors[i].g, colors[i].b);
      q.x = p.x, q.y = p.y, q.z = p.z;
      shown->push_back(q);
      if (pcl::isFinite(e.normals[finite[i]])) {
        line_points->push_back(p);
        line_normals->push_back(e.normals[finite[i]]);
      }
    }
    pcl::visualization::PointCloudColorHandlerRGBField<pcl::PointXYZRGB> rgb(shown);
    viewer_->addPointCloud<pcl::PointXYZRGB>(shown, rgb, tag, viewport);
    viewer_->setPointCloudRenderingProperties(pcl::visualization::PCL_VISUALIZER_POINT_SIZE, 4, tag, viewport);
    if (show_normals_ && !line_points->empty()) {
      viewer_->addPointCloudNormals<pcl::PointXYZ, pcl::Normal>(line_points, line_normals, every_, scale_,
                                                                tag + "_normals", viewport);
      viewer_->setPointCloudRenderingProperties(pcl::visualization::PCL_VISUALIZER_COLOR, 0.2, 0.2, 0.2,
                                                tag + "_normals", viewport);
    }
    if (mode_ == ColorBy::kWeights)
      viewer_->addSphere(scene_.cloud()[pick_], 0.01 * scene_.diagonal(), 0.9, 0.1, 0.6, tag + "_pick", viewport);
    std::ostringstream status;
    status << (pca ? "PCA" : "DISE iteration " + std::to_string(iteration_) + "/" + std::to_string(o_.iterations));
    if (scene_.truth()) status << " (RMSE " << std::fixed << std::setprecision(2) << rmseDegrees(scene_, e) << " deg)";
    status << "  |  " << modeName(mode_) << (mode_ == ColorBy::kWeights ? " of point " + std::to_string(pick_) : "")
           << "  |  h: help";
    viewer_->addText(status.str(), 10, 10, 14, 0.1, 0.1, 0.1, tag + "_status", viewport);
  }

  void onKey(const pcl::visualization::KeyboardEvent& e) {
    if (!e.keyDown()) return;
    switch (e.getKeyCode()) {
      case ']': iteration_ = std::min(iteration_ + 1, o_.iterations); break;
      case '[': iteration_ = std::max(iteration_ - 1, 0); break;
      case 'm': {
        auto next = ColorBy((int(mode_) + 1) % 4);
        if (next == ColorBy::kError && !scene_.truth()) next = ColorBy::kWeights;
        mode_ = next;
        break;
      }
      case 't': show_pca_ = !show_pca_; break;
      case 'n': show_normals_ = !show_normals_; break;
      case '.': scale_ *= 1.5; break;
      case ',': scale_ /= 1.5; break;
      case 'h': help_ = !help_; break;
      default: return;
    }
    redraw();
  }

  void onPick(const pcl::visualization::PointPickingEvent& e) {
    // Picked indices count the shown (finite) points.
    const int shown = e.getPointIndex();
    if (shown < 0 || static_cast<std::size_t>(shown) >= scene_.finitePoints().size()) return;
    pick_ = static_cast<std::size_t>(scene_.finitePoints()[shown]);
    mode_ = ColorBy::kWeights;
    std::cout << "dise_viewer: picked point " << pick_ << "\n";
    redraw();
  }

  Scene& scene_;
  const Options& o_;
  ColorBy mode_;
  int iteration_;
  bool show_pca_, show_normals_, help_ = false;
  double scale_;
  std::size_t pick_;
  int every_;
  int viewports_[2] = {0, 0};
  std::vector<vtkSmartPointer<vtkScalarBarActor>> bars_;
  pcl::visualization::PCLVisualizer::Ptr viewer_;
};

int run(const Options& o) {
  if (o.k < 2 || o.iterations < 0 || o.every < 0 || o.width < 16 || o.height < 16 || o.max_error <= 0)
    throw std::runtime_error(
        "need --k >= 2, --iterations >= 0, --every >= 0, a window of at least 16x16 and --max-error > 0");
  if (o.iteration > o.iterations)
    throw std::runtime_error("--iteration " + std::to_string(o.iteration) + " is beyond --iterations " +
                             std::to_string(o.iterations));
  if (o.color_by == "error" && o.ground_truth.empty())
    throw std::runtime_error("--color-by error needs --normals FILE");
  Scene scene(o);
  if (o.pick >= 0 &&
      (static_cast<std::size_t>(o.pick) >= scene.cloud().size() || !pcl::isFinite(scene.cloud()[o.pick])))
    throw std::runtime_error("--pick " + std::to_string(o.pick) + " is not a finite point of the cloud (" +
                             std::to_string(scene.cloud().size()) + " points)");
  if (scene.truth())
    std::cout << "dise_viewer: angle error (RMSE, degrees) against " << o.ground_truth << ": PCA " << std::fixed
              << std::setprecision(2) << rmseDegrees(scene, scene.estimate(0)) << ", DISE "
              << rmseDegrees(scene, scene.estimate(o.iterations)) << " (" << scene.finitePoints().size()
              << " points)\n";
  Viewer viewer(scene, o);
  if (!o.report.empty()) {
    const pcl::visualization::Camera camera = viewer.camera();
    nlohmann::json report;
    report["input"] = o.input;
    report["points"] = scene.cloud().size();
    report["finite_points"] = scene.finitePoints().size();
    report["normal_lines_every"] = viewer.every();
    report["framing"] = scene.hasSensorPose()    ? "sensor pose"
                        : scene.isAerialSurvey() ? "aerial survey, from above at an angle"
                                                 : "bounding box, three-quarter view";
    report["camera"] = {{"position", {camera.pos[0], camera.pos[1], camera.pos[2]}},
                        {"focal_point", {camera.focal[0], camera.focal[1], camera.focal[2]}},
                        {"up", {camera.view[0], camera.view[1], camera.view[2]}}};
    pcl_dise::tools::writeRunReport(o.report, "dise_viewer", report);
  }
  if (!o.screenshot.empty()) {
    viewer.screenshot(o.screenshot);
    std::cout << "dise_viewer: wrote " << o.screenshot << "\n";
  } else {
    viewer.spin();
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
  app.add_option("--model", o.model, "DISE model (default: the shipped model for --k)");
  app.add_option("--k", o.k, "neighbours (+ the point itself)")->capture_default_str();
  app.add_option("--iterations", o.iterations, "DISE iterations L")->capture_default_str();
  app.add_option("--iteration", o.iteration, "iteration shown first, 0 (PCA) .. L (default L)");
  app.add_option("--color-by", o.color_by, "normal, error, weights or curvature")
      ->check(CLI::IsMember({"normal", "error", "weights", "curvature"}))
      ->capture_default_str();
  app.add_option("--pick", o.pick, "point whose kernel weights --color-by weights shows (default: the most central)");
  app.add_option("--every", o.every, "draw every n-th normal (default: a subset of about 2,000 lines)");
  app.add_option("--scale", o.scale, "length of the normal lines (default: 1.5% of the cloud's diagonal)");
  app.add_flag("--no-normals", o.no_normals, "do not draw the normals as lines");
  app.add_option("--max-error", o.max_error, "angle error (degrees) at the top of the colour map")
      ->capture_default_str();
  app.add_flag("--pca", o.pca, "start with PCA instead of DISE");
  app.add_option("--orient", o.orient,
                 "viewpoint: normals flipped towards the cloud's sensor origin; up: facing +z (aerial LiDAR); "
                 "mst: oriented consistently (outward on closed shapes); closed: mst, then each point takes the "
                 "side an outside grid shows it; none: the plane fit's sign (PCA: PCL's, facing the viewpoint). "
                 "Default: up for .las and .laz, else viewpoint");
  app.add_flag("--side-by-side", o.side_by_side, "PCA on the left, DISE on the right");
  app.add_option("--threads", o.threads, "threads (0: all)");
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
