#include "viewer/viewer_window.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <vector>

#include <pcl/visualization/pcl_visualizer.h>
#include <vtkLookupTable.h>
#include <vtkRenderer.h>
#include <vtkRendererCollection.h>
#include <vtkScalarBarActor.h>
#include <vtkTextProperty.h>

#include "viewer/framing.h"

namespace pcl_dise {
namespace viewer {
namespace {

// Normal lines drawn by default: about this many, so that they stay readable.
constexpr std::size_t kNormalLines = 2000;

const char* kHelp =
    "dise_viewer keys\n"
    "  ] / [     next / previous iteration (0 = PCA)\n"
    "  m         next colouring: normal, error (needs --normals), weights, curvature, bound\n"
    "  t         toggle DISE / PCA (single view)\n"
    "  n         show / hide the normals\n"
    "  . / ,     longer / shorter normals\n"
    "  shift+click  pick the point whose kernel weights are shown\n"
    "  h         this help (pcl_viewer's keys work too: r resets the camera, q quits)";

}  // namespace

class ViewerWindow::Impl {
 public:
  Impl(Scene& scene, const WindowOptions& o)
      : scene_(scene),
        o_(o),
        mode_(o.color_by),
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

  // The starting camera of framing.h: the sensor's view with its field of view and clipping, or a
  // direction from which the box is then fitted.
  void frame() {
    const CameraFraming f = frameScene(scene_, (o_.side_by_side ? 0.5f : 1.f) * float(o_.width) / float(o_.height));
    viewer_->setCameraPosition(f.position.x(), f.position.y(), f.position.z(), f.focal_point.x(), f.focal_point.y(),
                               f.focal_point.z(), f.up.x(), f.up.y(), f.up.z());
    if (f.kind == CameraFraming::Kind::kSensorPose) {
      viewer_->setCameraFieldOfView(f.field_of_view);
      viewer_->setCameraClipDistances(f.near_clip, f.far_clip);
    } else {
      viewer_->resetCamera();  // keeps the direction, fits the box
    }
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
    if (mode_ != ColorBy::kError && mode_ != ColorBy::kCurvature && mode_ != ColorBy::kBound) return;
    const bool error = mode_ != ColorBy::kCurvature;  // the bound is on the error's scale
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
      bar->SetTitle(mode_ == ColorBy::kError ? "error (deg)" : mode_ == ColorBy::kBound ? "bound (deg)" : "curvature");
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
    const std::vector<Rgb> colors = colorPoints(scene_, e, mode_, pick_, o_.max_error);
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
        auto next = ColorBy((int(mode_) + 1) % 5);
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
  const WindowOptions o_;
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

ViewerWindow::ViewerWindow(Scene& scene, const WindowOptions& options) : impl_(new Impl(scene, options)) {}
ViewerWindow::~ViewerWindow() = default;
void ViewerWindow::spin() { impl_->spin(); }
void ViewerWindow::screenshot(const std::string& path) { impl_->screenshot(path); }
pcl::visualization::Camera ViewerWindow::camera() { return impl_->camera(); }
int ViewerWindow::every() const { return impl_->every(); }

}  // namespace viewer
}  // namespace pcl_dise
