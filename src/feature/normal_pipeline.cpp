#include "pcl_dise/feature/normal_pipeline.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "pcl_dise/feature/consistent_normal_orientation.h"

namespace pcl_dise {
namespace {

// settings.viewpoint in the cloud's local frame, or where none is given the cloud's sensor origin
// where it is not the coordinate origin (readCloud and Python store float(viewpoint - offset),
// so an unknown viewpoint reads float(-offset)); false where neither is known.
bool knownViewpoint(const NormalSettings& settings, const pcl::PointCloud<pcl::PointXYZ>& cloud,
                    const std::array<double, 3>& offset, float* local) {
  if (settings.viewpoint) {
    for (int c = 0; c < 3; ++c) local[c] = static_cast<float>((*settings.viewpoint)[c] - offset[c]);
    return true;
  }
  bool known = false;
  for (int c = 0; c < 3; ++c) {
    local[c] = cloud.sensor_origin_[c];
    known = known || local[c] != static_cast<float>(-offset[c]);
  }
  return known;
}

}  // namespace

NormalPipeline::NormalPipeline(const NormalSettings& settings, std::shared_ptr<const Model> model)
    : settings_(settings), model_(std::move(model)) {
  settings_.validate(!model_);  // a model given stands for the file
  if (!model_ && settings_.iterations > 0) {
    model_path_ = settings_.modelPath();
    model_ = std::make_shared<const Model>(loadModel(model_path_));
  }
  const int k = settings_.neighbors();
  if (k > 0) {
    estimator_.setKSearch(k);
  } else {
    estimator_.setRadiusSearch(settings_.radius);
    estimator_.setMaxNeighbors(settings_.max_neighbors);
  }
  estimator_.setIterations(settings_.iterations);
  estimator_.setSettleAngle(settings_.settle_degrees);
  estimator_.setPrecision(settings_.precision);
  estimator_.setNumberOfThreads(settings_.threads);
  estimator_.setBackend(settings_.backend);
  estimator_.setNormalSign(normalSignOf(settings_.orientation));
  // The orientation's graph and wall middles are prefixes of the estimation's neighbourhoods.
  estimator_.setStoreNeighborhoods(orientsWholeCloud(settings_.orientation));
  if (model_ && settings_.iterations > 0) estimator_.setModel(model_);
}

NormalsOutcome NormalPipeline::compute(const pcl::PointCloud<pcl::PointXYZ>::ConstPtr& cloud,
                                       pcl::PointCloud<pcl::Normal>& normals, const std::array<double, 3>& offset,
                                       const pcl::IndicesPtr& indices) {
  if (indices && orientsWholeCloud(settings_.orientation))
    throw OptionsError(
        std::string("orientation '") + orientationName(settings_.orientation) +
        "' orients the whole cloud: estimate every point (no indices), or orient by viewpoint, up or none");
  estimator_.setIndices(indices);   // nullptr: every point
  estimator_.setInputCloud(cloud);  // its sensor origin becomes the viewpoint ...
  if (settings_.viewpoint) {        // ... unless one is given
    const std::array<double, 3>& v = *settings_.viewpoint;
    estimator_.setViewPoint(static_cast<float>(v[0] - offset[0]), static_cast<float>(v[1] - offset[1]),
                            static_cast<float>(v[2] - offset[2]));
  }
  estimator_.compute(normals);
  NormalsOutcome outcome;
  if (estimator_.wasCancelled()) {
    outcome.cancelled = true;
    return outcome;
  }
  if (normals.size() != (indices ? indices->size() : cloud->size()))
    throw std::runtime_error("normal estimation failed (see the message above)");
  if (orientsWholeCloud(settings_.orientation)) {
    if (progress_ && !progress_({1.0, "orientation"})) {
      normals.clear();
      outcome.cancelled = true;
      return outcome;
    }
    const auto start = std::chrono::steady_clock::now();
    outcome = orient(cloud, normals, offset, estimator_.getNeighborhoods());
    estimator_.releaseNeighborhoods();
    outcome.orientation_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  for (const pcl::Normal& n : normals) outcome.without_normal += !std::isfinite(n.normal_x);
  return outcome;
}

NormalsOutcome NormalPipeline::orient(const pcl::PointCloud<pcl::PointXYZ>::ConstPtr& cloud,
                                      pcl::PointCloud<pcl::Normal>& normals,
                                      const std::array<double, 3>& offset) const {
  return orient(cloud, normals, offset, KnownNeighborhoods());
}

NormalsOutcome NormalPipeline::orient(const pcl::PointCloud<pcl::PointXYZ>::ConstPtr& cloud,
                                      pcl::PointCloud<pcl::Normal>& normals, const std::array<double, 3>& offset,
                                      const KnownNeighborhoods& known) const {
  if (normals.size() != cloud->size())
    throw std::runtime_error(std::to_string(normals.size()) + " normals for " + std::to_string(cloud->size()) +
                             " points");
  if (settings_.orientation_seed >= static_cast<std::int64_t>(normals.size()))
    throw OptionsError("seed " + std::to_string(settings_.orientation_seed) + " is not a point of a cloud of " +
                       std::to_string(normals.size()));
  pcl::ConsistentNormalOrientation<pcl::PointXYZ, pcl::Normal> orientation;
  orientation.setInputCloud(cloud);
  orientation.setKSearch(settings_.orientation_neighbors);
  orientation.setNumberOfThreads(settings_.threads);
  orientation.setSeedIndex(settings_.orientation_seed);
  orientation.setClosedShapes(settings_.orientation == Orientation::kClosed);
  orientation.setNeighborhoods(known);
  NormalsOutcome outcome;
  float viewpoint[3];
  outcome.seeded_at_viewpoint = knownViewpoint(settings_, *cloud, offset, viewpoint);
  if (outcome.seeded_at_viewpoint) orientation.setViewPoint(viewpoint[0], viewpoint[1], viewpoint[2]);
  if (!orientation.orient(normals)) throw std::runtime_error("orientation failed (see the message above)");
  outcome.oriented = true;
  outcome.orientation = orientation.getReport();
  outcome.confidence = orientation.getConfidence();
  return outcome;
}

}  // namespace pcl_dise
