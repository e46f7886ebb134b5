#include "viewer/scene.h"

#include <cmath>
#include <iostream>
#include <limits>
#include <stdexcept>

#include <pcl/common/centroid.h>
#include <pcl/common/common.h>
#include <pcl/features/normal_3d.h>

#include "orientation_command.h"
#include "pcl_dise/core/angle_error.h"
#include "pcl_dise/core/viewpoint.h"
#include "pcl_dise/feature/normal_pipeline.h"

namespace pcl_dise {
namespace viewer {

const std::map<std::string, ColorBy>& colorModes() {
  static const std::map<std::string, ColorBy> modes = {{"normal", ColorBy::kNormal},
                                                       {"error", ColorBy::kError},
                                                       {"weights", ColorBy::kWeights},
                                                       {"curvature", ColorBy::kCurvature},
                                                       {"bound", ColorBy::kBound}};
  return modes;
}

std::string modeName(ColorBy mode) {
  for (const auto& [name, m] : colorModes())
    if (m == mode) return name;
  return "?";
}

Scene::Scene(const SceneOptions& options) : settings_(options.settings) {
  settings_.validate();
  local_ = io::readCloud(options.input);
  cloud_ = local_.cloud;  // the local frame is what the viewer shows
  for (std::size_t i = 0; i < cloud_->size(); ++i)
    if (pcl::isFinite((*cloud_)[i])) finite_.push_back(static_cast<pcl::index_t>(i));
  if (finite_.size() < 3) throw std::runtime_error("'" + options.input + "' has fewer than 3 finite points");
  if (!options.ground_truth.empty()) {
    truth_ = io::readNormals(options.ground_truth);
    if (truth_->size() != cloud_->size())
      throw std::runtime_error("'" + options.ground_truth + "' has " + std::to_string(truth_->size()) +
                               " normals for " + std::to_string(cloud_->size()) + " points");
  }
  tree_.setInputCloud(cloud_, std::make_shared<pcl::Indices>(finite_));
  Eigen::Vector4f lo, hi;
  pcl::getMinMax3D(*cloud_, finite_, lo, hi);
  diagonal_ = (hi - lo).head<3>().norm();
  low_ = lo.head<3>(), high_ = hi.head<3>();
  // The model once for every iteration count shown.
  if (settings_.iterations > 0) model_ = std::make_shared<const Model>(loadModel(settings_.modelPath()));
}

bool Scene::hasSensorPose() const {
  if (isAerialSurvey()) return false;
  const bool default_pose = local_.viewpoint == std::array<double, 3>{0, 0, 0} &&
                            cloud_->sensor_orientation_.coeffs().isApprox(Eigen::Quaternionf::Identity().coeffs());
  return cloud_->height > 1 || !default_pose;
}

const Estimate& Scene::estimate(int iteration) {
  auto& slot = cache_[iteration];
  if (!slot) slot = iteration == 0 ? computePca() : computeDise(iteration);
  return *slot;
}

std::size_t Scene::centralPoint() const {
  Eigen::Vector4f centroid;
  pcl::compute3DCentroid(*cloud_, finite_, centroid);
  pcl::Indices found(1);
  std::vector<float> distances(1);
  const pcl::PointXYZ c(centroid.x(), centroid.y(), centroid.z());
  tree_.nearestKSearch(c, 1, found, distances);
  return static_cast<std::size_t>(found[0]);
}

std::unique_ptr<Estimate> Scene::computePca() {
  auto e = std::make_unique<Estimate>();
  const int k = settings_.neighbors();
  pcl::NormalEstimation<pcl::PointXYZ, pcl::Normal> pca;
  pca.setInputCloud(cloud_);
  pca.setKSearch(k + 1);  // the same k + 1 points as DISE's k
  pca.compute(e->normals);
  orientPca(e->normals);
  e->bounds.assign(e->normals.size(), std::numeric_limits<float>::quiet_NaN());  // calibrated for DISE only
  // PCA weighs its neighbourhood uniformly.
  e->weights = [this, k](std::size_t index, pcl::Indices& ids, std::vector<float>& w) {
    std::vector<float> distances;
    if (!pcl::isFinite((*cloud_)[index]) || tree_.nearestKSearch((*cloud_)[index], k + 1, ids, distances) <= 0)
      return false;
    w.assign(ids.size(), 1.f / float(ids.size()));
    return true;
  };
  return e;
}

std::unique_ptr<Estimate> Scene::computeDise(int iterations) {
  auto e = std::make_unique<Estimate>();
  NormalSettings settings = settings_;
  settings.iterations = iterations;
  auto pipeline = std::make_shared<NormalPipeline>(settings, model_);
  std::cout << tools::orientationText(settings, pipeline->compute(cloud_, e->normals, local_.offset));
  pipeline->estimator().computeErrorBounds(e->normals, e->bounds);
  e->weights = [pipeline](std::size_t index, pcl::Indices& ids, std::vector<float>& w) {
    return pipeline->estimator().getKernelWeights(index, ids, w);
  };
  return e;
}

// PCL's PCA faces its viewpoint (the sensor origin); the other orientations as DISE gets them,
// so that the two compare (none keeps PCL's sign).
void Scene::orientPca(Normals& normals) const {
  if (settings_.orientation == Orientation::kUp) {
    const float unused[3] = {0, 0, 0};
    for (auto& n : normals)
      if (std::isfinite(n.normal_x)) signNormal(NormalSign::kUp, unused, unused, n.normal);
  }
  if (!orientsWholeCloud(settings_.orientation)) return;
  NormalSettings settings = settings_;
  settings.iterations = 0;
  std::cout << tools::orientationText(settings, NormalPipeline(settings).orient(cloud_, normals, local_.offset));
}

std::vector<Rgb> colorPoints(const Scene& scene, const Estimate& e, ColorBy mode, std::size_t pick, double max_error) {
  const auto& finite = scene.finitePoints();
  std::vector<Rgb> colors(finite.size(), kMissingColor);
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
      if (it != weight_of.end()) colors[i] = weightColor(it->second, max_weight);
    }
    return colors;
  }
  if (mode == ColorBy::kError && !scene.truth())
    throw std::invalid_argument("colorPoints: the error colouring needs the scene's truth");
  for (std::size_t i = 0; i < finite.size(); ++i) {
    const pcl::Normal& n = e.normals[finite[i]];
    switch (mode) {
      case ColorBy::kNormal: colors[i] = normalColor(n.normal); break;
      case ColorBy::kCurvature: colors[i] = curvatureColor(n.curvature, 1.f / 3.f); break;
      case ColorBy::kError:
        colors[i] = errorColor(static_cast<float>(unorientedAngleDegrees(n.normal, (*scene.truth())[finite[i]].normal)),
                               float(max_error));
        break;
      case ColorBy::kBound: {
        const float bound = e.bounds[finite[i]];
        if (std::isfinite(bound)) colors[i] = errorColor(bound, float(max_error));
        break;
      }
      case ColorBy::kWeights: break;
    }
  }
  return colors;
}

double rmseDegrees(const Scene& scene, const Estimate& e) {
  if (!scene.truth()) throw std::invalid_argument("rmseDegrees: the scene has no truth");
  double sum = 0;
  for (const pcl::index_t i : scene.finitePoints()) {
    const double a = angleErrorDegrees(e.normals[i].normal, (*scene.truth())[i].normal);
    sum += a * a;
  }
  return scene.finitePoints().empty() ? 0.0 : std::sqrt(sum / double(scene.finitePoints().size()));
}

}  // namespace viewer
}  // namespace pcl_dise
