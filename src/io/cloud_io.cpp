#include "pcl_dise/io/cloud_io.h"
#include "file_access.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "pcl_dise/io/file_format.h"
#include "pcl_dise/io/las_format.h"
#include "pcl_dise/io/normals_writer.h"
#include "pcl_dise/io/text_io.h"

namespace pcl_dise {
namespace io {
namespace {

using detail::fail;

// The offset of local_frame.h for the finite points (their bounds in OpenMP threads).
std::array<double, 3> finiteOffset(const std::vector<std::array<double, 3>>& xyz) {
  FiniteBounds bounds;
#pragma omp parallel
  {
    FiniteBounds mine;
#pragma omp for nowait
    for (std::size_t i = 0; i < xyz.size(); ++i) mine.add(xyz[i]);
#pragma omp critical
    bounds.merge(mine);
  }
  return io::localOffset(bounds.lo, bounds.hi);
}

}  // namespace

LocalCloud readCloud(const std::string& path) {
  const FormatCodec& codec = inputFormat(path);
  // Every format in double; PCD and PLY by readers of our own (PCL 1.13's crash on malformed
  // files: ../shared/data/bad_inputs, fuzzing).
  PointTable table = codec.read(path, false);
  LocalCloud local;
  local.cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
  pcl::PointCloud<pcl::PointXYZ>& cloud = *local.cloud;
  std::vector<std::array<double, 3>>& xyz = table.xyz;
  const std::array<double, 7>& file_viewpoint = table.viewpoint;
  std::array<double, 3>& viewpoint = local.viewpoint;
  viewpoint = {file_viewpoint[0], file_viewpoint[1], file_viewpoint[2]};
  cloud.sensor_orientation_ =
      Eigen::Quaternionf(file_viewpoint[3], file_viewpoint[4], file_viewpoint[5], file_viewpoint[6]);
  if (codec.traits().keeps_records) {
    local.las_source = path;
    local.las_source_bytes = std::move(table.decoded);
  }
  local.offset = finiteOffset(xyz);
  cloud.points.resize(xyz.size());
  bool dense = true;
#pragma omp parallel for reduction(&& : dense)
  for (std::size_t i = 0; i < xyz.size(); ++i) {
    pcl::PointXYZ& p = cloud.points[i];
    const std::array<float, 3> q = localPoint(xyz[i], local.offset);
    p = pcl::PointXYZ(q[0], q[1], q[2]);
    dense = dense && std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
  }
  cloud.sensor_origin_ = Eigen::Vector4f(static_cast<float>(viewpoint[0] - local.offset[0]),
                                         static_cast<float>(viewpoint[1] - local.offset[1]),
                                         static_cast<float>(viewpoint[2] - local.offset[2]), 0.f);
  cloud.width = table.width;
  cloud.height = table.height;
  cloud.is_dense = dense;
  if (local.hasOffset()) local.file_coordinates = std::move(xyz);
  return local;
}

pcl::PointCloud<pcl::Normal>::Ptr readNormals(const std::string& path) {
  auto normals = pcl::make_shared<pcl::PointCloud<pcl::Normal>>();
  for (const auto& row : readTextTriples(path)) normals->push_back(pcl::Normal(row[0], row[1], row[2]));
  return normals;
}

void writeNormals(const std::string& path, const LocalCloud& local, const pcl::PointCloud<pcl::Normal>& normals,
                  const std::vector<PointValueColumn>& values) {
  const pcl::PointCloud<pcl::PointXYZ>& points = *local.cloud;
  if (points.size() != normals.size())
    fail(path, "cannot write " + std::to_string(normals.size()) + " normals for " + std::to_string(points.size()) +
                   " points");
  std::vector<const PointValueColumn*> columns;
  for (const PointValueColumn& column : values) {
    if (column.data.empty()) continue;
    if (column.data.size() != points.size())
      fail(path, "cannot write " + std::to_string(column.data.size()) + " values " + namesOf(column.value).field +
                     " for " + std::to_string(points.size()) + " points");
    columns.push_back(&column);
  }
  auto fileCoordinates = [&](std::size_t i) -> std::array<double, 3> {
    if (local.hasOffset()) return local.file_coordinates[i];
    return {points[i].x, points[i].y, points[i].z};
  };
  NormalsFileLayout layout;
  layout.points = points.size();
  if (points.height > 1) layout.width = points.width, layout.height = points.height;
  for (int c = 0; c < 3; ++c) layout.viewpoint[c] = double(points.sensor_origin_[c]) + local.offset[c];
  const Eigen::Quaternionf& q = points.sensor_orientation_;
  layout.viewpoint[3] = q.w(), layout.viewpoint[4] = q.x(), layout.viewpoint[5] = q.y(), layout.viewpoint[6] = q.z();
  layout.double_coordinates = local.hasOffset();
  layout.las_source = local.las_source;
  layout.las_source_bytes = local.las_source_bytes;
  for (const PointValueColumn* column : columns) layout.values.push_back(column->value);
  if (layout.las_source.empty()) {  // the scale and offset a LAS output quantises new points with
    FiniteBounds bounds;
    for (std::size_t i = 0; i < points.size(); ++i) bounds.add(fileCoordinates(i));
    chooseQuantization(bounds.lo.data(), bounds.hi.data(), layout.las_scale, layout.las_offset);
  }
  NormalsWriter writer(path, layout);
  std::vector<float> row(columns.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t v = 0; v < columns.size(); ++v) row[v] = columns[v]->data[i];
    writer.add(fileCoordinates(i), normals[i].normal, normals[i].curvature, row.data());
  }
  writer.finish();
}

}  // namespace io
}  // namespace pcl_dise
