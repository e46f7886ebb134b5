#pragma once
// dise_viewer's window (PCL's visualizer, VTK): the scene's points coloured, their normals as
// lines, DISE beside or instead of PCA, a colour bar, the keys and the picking; a screenshot.
#include <memory>
#include <string>

#include <pcl/visualization/common/common.h>

#include "viewer/scene.h"

namespace pcl_dise {
namespace viewer {

/** How the window starts. */
struct WindowOptions {
  ColorBy color_by = ColorBy::kNormal;
  int iterations = 4;         ///< the scene's DISE iterations (the last one shown by ']')
  int iteration = -1;         ///< the first iteration shown (-1: the last)
  bool pca = false;           ///< start with PCA instead of DISE
  bool side_by_side = false;  ///< PCA on the left, DISE on the right
  bool no_normals = false;    ///< no normal lines
  double scale = 0;           ///< the lines' length (0: 1.5% of the diagonal)
  long pick = -1;             ///< the point whose kernel weights are shown (-1: the most central)
  int every = 0;              ///< a line for every N-th point (0: about 2,000 lines)
  int width = 1024, height = 768;
  double max_error = 30;  ///< degrees at the top of the error colouring
};

/** The window on a scene; it starts framed by framing.h. */
class ViewerWindow {
 public:
  ViewerWindow(Scene& scene, const WindowOptions& options);
  ~ViewerWindow();
  ViewerWindow(const ViewerWindow&) = delete;
  ViewerWindow& operator=(const ViewerWindow&) = delete;

  /** Runs the window until it is closed. */
  void spin();
  /** Renders one picture of width x height into a .png (headless: under xvfb-run -a). */
  void screenshot(const std::string& path);
  /** The camera (position, focal point, up) as framed. */
  pcl::visualization::Camera camera();
  /** Normal lines drawn per method: every every()-th point with a normal. */
  int every() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace viewer
}  // namespace pcl_dise
