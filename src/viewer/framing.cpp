#include "viewer/framing.h"

#include <algorithm>
#include <cmath>

namespace pcl_dise {
namespace viewer {

const char* CameraFraming::name() const {
  switch (kind) {
    case Kind::kSensorPose: return "sensor pose";
    case Kind::kAerialSurvey: return "aerial survey, from above at an angle";
    default: return "bounding box, three-quarter view";
  }
}

CameraFraming frameScene(const Scene& scene, float aspect) {
  CameraFraming f;
  const Eigen::Vector3f centre = 0.5f * (scene.low() + scene.high());
  const float reach = std::max(scene.diagonal(), 1e-6f);
  f.focal_point = centre;
  if (scene.hasSensorPose()) {
    f.kind = CameraFraming::Kind::kSensorPose;
    f.position = scene.cloud().sensor_origin_.head<3>();
    const Eigen::Vector3f look = (centre - f.position).normalized();
    f.up = Eigen::Vector3f(0, -1, 0);
    if (std::abs(look.dot(f.up)) > 0.95f) f.up = Eigen::Vector3f(0, 0, 1);
    // The narrowest field of view that holds the scene (vertical; the aspect for the width).
    const Eigen::Vector3f right = look.cross(f.up).normalized(), true_up = right.cross(look);
    float tan_half = 0;
    const auto& finite = scene.finitePoints();
    for (std::size_t i = 0; i < finite.size(); i += std::max<std::size_t>(1, finite.size() / 20000)) {
      const Eigen::Vector3f to = scene.cloud()[finite[i]].getVector3fMap() - f.position;
      const float depth = to.dot(look);
      if (depth <= 0) continue;
      tan_half = std::max({tan_half, std::abs(to.dot(true_up)) / depth, std::abs(to.dot(right)) / depth / aspect});
    }
    f.field_of_view = std::clamp(2.f * std::atan(1.05f * tan_half), 0.2f, 2.5f);
    const float farthest = (f.position - centre).norm() + reach;
    f.near_clip = 1e-3f * farthest, f.far_clip = 2 * farthest;
    return f;
  }
  f.kind = scene.isAerialSurvey() ? CameraFraming::Kind::kAerialSurvey : CameraFraming::Kind::kBoundingBox;
  const Eigen::Vector3f direction =
      scene.isAerialSurvey() ? Eigen::Vector3f(0.f, -0.5f, 0.866f) : Eigen::Vector3f(1.f, -1.2f, 0.9f).normalized();
  f.position = centre + reach * direction;
  f.up = Eigen::Vector3f(0, 0, 1);
  return f;
}

}  // namespace viewer
}  // namespace pcl_dise
