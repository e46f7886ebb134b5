#include "cloud_io.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <pcl/common/io.h>
#include <pcl/io/pcd_io.h>
#include <pcl/io/ply_io.h>
#include <pcl/register_point_struct.h>

#include "io/las_format.h"
#include "io/pcd_reader.h"
#include "io/ply_reader.h"
#include "pcl_dise/text_io.h"

namespace pcl_dise {
namespace io {
// A point with double coordinates and float normal, for writing a georeferenced cloud back.
struct FilePointNormal {
  double x, y, z;
  float normal_x, normal_y, normal_z, curvature;
};
}  // namespace io
}  // namespace pcl_dise

POINT_CLOUD_REGISTER_POINT_STRUCT(pcl_dise::io::FilePointNormal,
                                  (double, x, x)(double, y, y)(double, z, z)(float, normal_x, normal_x)(
                                      float, normal_y, normal_y)(float, normal_z, normal_z)(float, curvature,
                                                                                            curvature))

namespace pcl_dise {
namespace io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw std::runtime_error("'" + path + "': " + problem);
}

// The finite points' bounding-box centre rounded to whole units, where a coordinate is large
// enough for float to lose precision; zero otherwise (the floats are then the file's values).
std::array<double, 3> localOffset(const std::vector<std::array<double, 3>>& xyz) {
  double lo[3], hi[3], largest = 0;
  for (int c = 0; c < 3; ++c) lo[c] = hi[c] = std::numeric_limits<double>::quiet_NaN();
  for (const auto& p : xyz) {
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) continue;
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::isnan(lo[c]) ? p[c] : std::min(lo[c], p[c]);
      hi[c] = std::isnan(hi[c]) ? p[c] : std::max(hi[c], p[c]);
      largest = std::max(largest, std::fabs(p[c]));
    }
  }
  if (largest < kOffsetFromMagnitude) return {0, 0, 0};
  return {std::round(0.5 * (lo[0] + hi[0])), std::round(0.5 * (lo[1] + hi[1])), std::round(0.5 * (lo[2] + hi[2]))};
}

}  // namespace

std::string extension(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

LocalCloud readCloud(const std::string& path) {
  const std::string ext = extension(path);
  LocalCloud local;
  local.cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
  pcl::PointCloud<pcl::PointXYZ>& cloud = *local.cloud;
  // Every format in double; PCD and PLY by readers of our own (PCL 1.13's crash on malformed
  // files: ../shared/data/bad_inputs, fuzzing).
  std::vector<std::array<double, 3>> xyz;
  std::array<double, 3> viewpoint{0, 0, 0};
  if (ext == ".xyz") {
    xyz = readTextTriplesInDouble(path);
  } else if (ext == ".pcd") {
    PcdCloud pcd = readPcd(path);
    xyz = std::move(pcd.xyz);
    cloud.width = pcd.width;
    cloud.height = pcd.height;
    viewpoint = {pcd.viewpoint[0], pcd.viewpoint[1], pcd.viewpoint[2]};
    cloud.sensor_orientation_ =
        Eigen::Quaternionf(pcd.viewpoint[3], pcd.viewpoint[4], pcd.viewpoint[5], pcd.viewpoint[6]);
  } else if (ext == ".ply") {
    xyz = readPly(path).vertices;
  } else if (ext == ".las") {
    LasCloud las = readLas(path);
    xyz = std::move(las.xyz);
    local.las_scale = las.scale;
    local.las_offset = las.offset;
  } else {
    fail(path, "unknown extension '" + ext + "' (expected .pcd, .ply, .las or .xyz)");
  }
  local.offset = localOffset(xyz);
  cloud.points.resize(xyz.size());
  for (std::size_t i = 0; i < xyz.size(); ++i)
    cloud.points[i] =
        pcl::PointXYZ(static_cast<float>(xyz[i][0] - local.offset[0]), static_cast<float>(xyz[i][1] - local.offset[1]),
                      static_cast<float>(xyz[i][2] - local.offset[2]));
  cloud.sensor_origin_ = Eigen::Vector4f(static_cast<float>(viewpoint[0] - local.offset[0]),
                                         static_cast<float>(viewpoint[1] - local.offset[1]),
                                         static_cast<float>(viewpoint[2] - local.offset[2]), 0.f);
  if (ext != ".pcd") {
    cloud.width = static_cast<std::uint32_t>(xyz.size());
    cloud.height = 1;
  }
  cloud.is_dense = std::all_of(cloud.begin(), cloud.end(), [](const pcl::PointXYZ& p) {
    return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
  });
  if (local.hasOffset()) local.file_coordinates = std::move(xyz);
  return local;
}

pcl::PointCloud<pcl::Normal>::Ptr readNormals(const std::string& path) {
  auto normals = pcl::make_shared<pcl::PointCloud<pcl::Normal>>();
  for (const auto& row : readTextTriples(path)) normals->push_back(pcl::Normal(row[0], row[1], row[2]));
  return normals;
}

void writeNormals(const std::string& path, const LocalCloud& local, const pcl::PointCloud<pcl::Normal>& normals) {
  const pcl::PointCloud<pcl::PointXYZ>& points = *local.cloud;
  if (points.size() != normals.size())
    fail(path, "cannot write " + std::to_string(normals.size()) + " normals for " + std::to_string(points.size()) +
                   " points");
  const std::string ext = extension(path);
  if (ext == ".normals") {
    std::ofstream out(path);
    if (!out) fail(path, "cannot be written");
    out.precision(7);
    for (const auto& n : normals) out << n.normal_x << ' ' << n.normal_y << ' ' << n.normal_z << '\n';
    if (!out) fail(path, "could not be written completely");
    return;
  }
  if (ext == ".las") {
    std::vector<std::array<double, 3>> xyz = local.file_coordinates;
    if (!local.hasOffset())
      for (const auto& p : points) xyz.push_back({p.x, p.y, p.z});
    std::vector<NormalWithCurvature> values;
    for (const auto& n : normals) values.push_back({n.normal_x, n.normal_y, n.normal_z, n.curvature});
    std::array<double, 3> scale = local.las_scale, offset = local.las_offset;
    if (scale[0] == 0) chooseQuantization(xyz, scale, offset);
    writeLas(path, xyz, values, scale, offset);
    return;
  }
  if (ext != ".pcd" && ext != ".ply")
    fail(path, "unknown output extension '" + ext + "' (expected .pcd, .ply, .las or .normals)");
  int status;
  if (local.hasOffset()) {
    pcl::PointCloud<FilePointNormal> merged;
    merged.resize(points.size());
    merged.width = points.width;
    merged.height = points.height;
    merged.is_dense = points.is_dense;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const auto& p = local.file_coordinates[i];
      const auto& n = normals[i];
      merged[i] = {p[0], p[1], p[2], n.normal_x, n.normal_y, n.normal_z, n.curvature};
    }
    status = ext == ".pcd" ? pcl::io::savePCDFileBinary(path, merged) : pcl::io::savePLYFileBinary(path, merged);
  } else {
    pcl::PointCloud<pcl::PointNormal> merged;
    pcl::concatenateFields(points, normals, merged);
    status = ext == ".pcd" ? pcl::io::savePCDFileBinary(path, merged) : pcl::io::savePLYFileBinary(path, merged);
  }
  if (status < 0) fail(path, "cannot be written");
}

}  // namespace io
}  // namespace pcl_dise
