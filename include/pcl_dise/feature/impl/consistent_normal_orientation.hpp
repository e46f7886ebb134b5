#pragma once
// Implementation of pcl::ConsistentNormalOrientation: the cloud and its normals into arrays,
// pcl_dise::orientNormals, the signs back.
#include <exception>
#include <vector>

#include <pcl/console/print.h>

#include "pcl_dise/feature/consistent_normal_orientation.h"

namespace pcl {

template <typename PointT, typename NormalT>
bool ConsistentNormalOrientation<PointT, NormalT>::orient(PointCloud<NormalT>& normals) {
  report_ = {};
  confidence_.clear();
  if (!input_) {
    PCL_ERROR("[pcl::%s::orient] No input cloud given.\n", getClassName().c_str());
    return false;
  }
  if (normals.size() != input_->size()) {
    PCL_ERROR("[pcl::%s::orient] %zu normals for %zu points.\n", getClassName().c_str(), normals.size(),
              input_->size());
    return false;
  }
  pcl_dise::OrientationOptions options = options_;
  if (use_sensor_origin_) {
    const Eigen::Vector4f& origin = input_->sensor_origin_;
    options.has_viewpoint = !origin.head<3>().isZero();
    options.viewpoint = {origin[0], origin[1], origin[2]};
  }
  const std::size_t n = input_->size();
  std::vector<float> xyz(3 * n), direction(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const PointT& p = (*input_)[i];
    const NormalT& q = normals[i];
    xyz[3 * i] = p.x, xyz[3 * i + 1] = p.y, xyz[3 * i + 2] = p.z;
    direction[3 * i] = q.normal_x, direction[3 * i + 1] = q.normal_y, direction[3 * i + 2] = q.normal_z;
  }
  try {
    confidence_.resize(n);
    report_ = pcl_dise::orientNormals(xyz.data(), direction.data(), n, options, confidence_.data(), &known_);
  } catch (const std::exception& e) {
    PCL_ERROR("[pcl::%s::orient] %s\n", getClassName().c_str(), e.what());
    return false;
  }
  for (std::size_t i = 0; i < n; ++i) {
    NormalT& q = normals[i];
    q.normal_x = direction[3 * i], q.normal_y = direction[3 * i + 1], q.normal_z = direction[3 * i + 2];
  }
  return true;
}

}  // namespace pcl

#define PCL_INSTANTIATE_ConsistentNormalOrientation(T, NT) \
  template class PCL_EXPORTS pcl::ConsistentNormalOrientation<T, NT>;
