#pragma once
// Where dise_viewer's camera starts, as plain geometry (the window applies it): a cloud with a
// sensor pose from the sensor's position looking at the scene, the depth camera's -y up, with the
// narrowest field of view that holds the scene (as pcl_viewer shows a scan); an aerial survey (LAS,
// LAZ) from above its south edge, 60 degrees down; any other cloud from a three-quarter view, z
// up. The last two then fit the box (the window's resetCamera).
#include <Eigen/Core>

#include "viewer/scene.h"

namespace pcl_dise {
namespace viewer {

/** A starting camera. */
struct CameraFraming {
  enum class Kind { kSensorPose, kAerialSurvey, kBoundingBox } kind = Kind::kBoundingBox;
  Eigen::Vector3f position{0, 0, 0}, focal_point{0, 0, 0}, up{0, 0, 1};
  float field_of_view = 0;            ///< radians, kSensorPose only (the others fit the box)
  float near_clip = 0, far_clip = 0;  ///< kSensorPose only
  /** "sensor pose", "aerial survey, from above at an angle" or "bounding box, three-quarter view". */
  const char* name() const;
};

/** The scene's starting camera for a viewport of width / height `aspect`. */
CameraFraming frameScene(const Scene& scene, float aspect);

}  // namespace viewer
}  // namespace pcl_dise
