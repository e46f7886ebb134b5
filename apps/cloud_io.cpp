#include "cloud_io.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <pcl/common/io.h>
#include <pcl/io/pcd_io.h>
#include <pcl/io/ply_io.h>

#include "io/pcd_reader.h"
#include "io/ply_reader.h"
#include "pcl_dise/text_io.h"

namespace pcl_dise {
namespace io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw std::runtime_error("'" + path + "': " + problem);
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

pcl::PointCloud<pcl::PointXYZ>::Ptr readCloud(const std::string& path) {
  const std::string ext = extension(path);
  auto cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
  if (ext == ".xyz") {
    for (const auto& row : readTextTriples(path)) cloud->push_back(pcl::PointXYZ(row[0], row[1], row[2]));
    cloud->is_dense = std::all_of(cloud->begin(), cloud->end(), [](const pcl::PointXYZ& p) {
      return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
    });
    return cloud;
  }
  // Our own readers: PCL 1.13's crash on malformed files (../shared/data/bad_inputs, fuzzing).
  std::vector<std::array<double, 3>> xyz;
  if (ext == ".pcd") {
    PcdCloud pcd = readPcd(path);
    xyz = std::move(pcd.xyz);
    cloud->width = pcd.width;
    cloud->height = pcd.height;
    cloud->sensor_origin_ = Eigen::Vector4f(pcd.viewpoint[0], pcd.viewpoint[1], pcd.viewpoint[2], 0.f);
    cloud->sensor_orientation_ =
        Eigen::Quaternionf(pcd.viewpoint[3], pcd.viewpoint[4], pcd.viewpoint[5], pcd.viewpoint[6]);
  } else if (ext == ".ply") {
    xyz = readPly(path).vertices;
  } else {
    fail(path, "unknown extension '" + ext + "' (expected .pcd, .ply or .xyz)");
  }
  cloud->points.resize(xyz.size());
  for (std::size_t i = 0; i < xyz.size(); ++i)
    cloud->points[i] =
        pcl::PointXYZ(static_cast<float>(xyz[i][0]), static_cast<float>(xyz[i][1]), static_cast<float>(xyz[i][2]));
  if (ext == ".ply") {
    cloud->width = static_cast<std::uint32_t>(xyz.size());
    cloud->height = 1;
  }
  cloud->is_dense = std::all_of(cloud->begin(), cloud->end(), [](const pcl::PointXYZ& p) {
    return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
  });
  return cloud;
}

pcl::PointCloud<pcl::Normal>::Ptr readNormals(const std::string& path) {
  auto normals = pcl::make_shared<pcl::PointCloud<pcl::Normal>>();
  for (const auto& row : readTextTriples(path)) normals->push_back(pcl::Normal(row[0], row[1], row[2]));
  return normals;
}

void writeNormals(const std::string& path, const pcl::PointCloud<pcl::PointXYZ>& points,
                  const pcl::PointCloud<pcl::Normal>& normals) {
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
  if (ext != ".pcd" && ext != ".ply")
    fail(path, "unknown output extension '" + ext + "' (expected .pcd, .ply or .normals)");
  pcl::PointCloud<pcl::PointNormal> merged;
  pcl::concatenateFields(points, normals, merged);
  const int status =
      ext == ".pcd" ? pcl::io::savePCDFileBinary(path, merged) : pcl::io::savePLYFileBinary(path, merged);
  if (status < 0) fail(path, "cannot be written");
}

}  // namespace io
}  // namespace pcl_dise
