#include "cloud_io.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <pcl/PCLPointCloud2.h>
#include <pcl/common/io.h>
#include <pcl/conversions.h>
#include <pcl/io/pcd_io.h>
#include <pcl/io/ply_io.h>

#include "pcl_dise/text_io.h"

namespace pcl_dise {
namespace io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw std::runtime_error("'" + path + "': " + problem);
}

bool hasXyz(const pcl::PCLPointCloud2& blob) {
  int found = 0;
  for (const auto& f : blob.fields) found += (f.name == "x") + (f.name == "y") + (f.name == "z");
  return found == 3;
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
  if (ext != ".pcd" && ext != ".ply") fail(path, "unknown extension '" + ext + "' (expected .pcd, .ply or .xyz)");
  if (!std::ifstream(path).good()) fail(path, "cannot be opened");
  pcl::PCLPointCloud2 blob;
  const int status = ext == ".pcd" ? pcl::io::loadPCDFile(path, blob) : pcl::io::loadPLYFile(path, blob);
  if (status < 0) fail(path, "is not a readable " + ext.substr(1) + " file");
  if (!hasXyz(blob)) fail(path, "has no x, y and z fields");
  pcl::fromPCLPointCloud2(blob, *cloud);
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
    fail(path, "cannot write " + std::to_string(normals.size()) + " normals for " + std::to_string(points.size()) + " points");
  const std::string ext = extension(path);
  if (ext == ".normals") {
    std::ofstream out(path);
    if (!out) fail(path, "cannot be written");
    out.precision(7);
    for (const auto& n : normals) out << n.normal_x << ' ' << n.normal_y << ' ' << n.normal_z << '\n';
    if (!out) fail(path, "could not be written completely");
    return;
  }
  if (ext != ".pcd" && ext != ".ply") fail(path, "unknown output extension '" + ext + "' (expected .pcd, .ply or .normals)");
  pcl::PointCloud<pcl::PointNormal> merged;
  pcl::concatenateFields(points, normals, merged);
  const int status = ext == ".pcd" ? pcl::io::savePCDFileBinary(path, merged) : pcl::io::savePLYFileBinary(path, merged);
  if (status < 0) fail(path, "cannot be written");
}

}  // namespace io
}  // namespace pcl_dise
