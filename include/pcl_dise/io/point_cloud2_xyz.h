#pragma once
// Checked x/y/z extraction from a PointCloud2 blob: pcl::PCLPointCloud2 or ROS's
// sensor_msgs::PointCloud2 (both have the same members and field type codes). A message is a
// description of its bytes written by someone else; every promise it makes (sizes, strides, field
// offsets and types, byte order) is checked against the bytes it holds before one is read, so a
// malformed message is a clear error and never a read out of bounds.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include <pcl/point_cloud.h>
#include <pcl/point_types.h>

namespace pcl_dise {

/** Bytes of one value of a PointField type code (1 INT8 ... 8 FLOAT64, as in PCL and ROS); 0 for an
 *  unknown code. */
inline std::uint32_t pointFieldTypeSize(std::uint8_t datatype) {
  switch (datatype) {
    case 1:
    case 2: return 1;  ///< INT8, UINT8
    case 3:
    case 4: return 2;  ///< INT16, UINT16
    case 5:
    case 6:
    case 7: return 4;  ///< INT32, UINT32, FLOAT32
    case 8: return 8;  ///< FLOAT64
    default: return 0;
  }
}

/** What is wrong with a PointCloud2's layout, or "" where x, y and z can be read from it safely.
 *  Checks, in this order: little-endian data; row_step >= point_step × width; data holds exactly
 *  row_step × height bytes; every field of a known type whose offset + size × count lies within
 *  point_step; x, y and z present, each FLOAT32 or FLOAT64.
 *  cloud [in] a pcl::PCLPointCloud2 or sensor_msgs::PointCloud2. */
template <typename PointCloud2>
std::string pointCloud2Problem(const PointCloud2& cloud) {
  using std::to_string;
  if (cloud.is_bigendian) return "big-endian data is not supported";
  const std::uint64_t width = cloud.width, height = cloud.height, point_step = cloud.point_step;
  if (width * height > 0 && point_step == 0) return "point_step is 0";
  if (std::uint64_t(cloud.row_step) < point_step * width)
    return "row_step " + to_string(cloud.row_step) + " is less than point_step " + to_string(point_step) + " x width " +
           to_string(width);
  if (std::uint64_t(cloud.data.size()) != std::uint64_t(cloud.row_step) * height)
    return "data holds " + to_string(cloud.data.size()) + " bytes where row_step " + to_string(cloud.row_step) +
           " x height " + to_string(height) + " promise " + to_string(std::uint64_t(cloud.row_step) * height);
  for (const auto& field : cloud.fields) {
    const std::uint32_t size = pointFieldTypeSize(field.datatype);
    if (size == 0) return "field '" + field.name + "' has the unknown type " + to_string(int(field.datatype));
    const std::uint64_t end =
        std::uint64_t(field.offset) + std::uint64_t(size) * std::max<std::uint32_t>(field.count, 1);
    if (end > point_step)
      return "field '" + field.name + "' (offset " + to_string(field.offset) + ", " + to_string(end - field.offset) +
             " bytes) reaches past point_step " + to_string(point_step);
  }
  for (const char* axis : {"x", "y", "z"}) {
    const auto field =
        std::find_if(cloud.fields.begin(), cloud.fields.end(), [&](const auto& f) { return f.name == axis; });
    if (field == cloud.fields.end()) return std::string("the cloud has no '") + axis + "' field";
    if (field->datatype != 7 && field->datatype != 8)
      return std::string("field '") + axis + "' is of type " + to_string(int(field->datatype)) +
             ", not FLOAT32 (7) or FLOAT64 (8)";
  }
  return {};
}

/** The points of a PointCloud2 as x/y/z, keeping width and height (an organized cloud stays
 *  organized); FLOAT64 coordinates are rounded to float. is_dense is set from the values read.
 *  cloud [in] a pcl::PCLPointCloud2 or sensor_msgs::PointCloud2; out [out] width × height points.
 *  Throws std::invalid_argument naming the problem (pointCloud2Problem) before reading any byte. */
template <typename PointCloud2>
void xyzFromPointCloud2(const PointCloud2& cloud, pcl::PointCloud<pcl::PointXYZ>& out) {
  const std::string problem = pointCloud2Problem(cloud);
  if (!problem.empty()) throw std::invalid_argument(problem);
  std::uint32_t offset[3] = {0, 0, 0};
  bool is_double[3] = {false, false, false};
  for (const auto& field : cloud.fields)
    for (int a = 0; a < 3; ++a)
      if (field.name == std::string(1, char('x' + a))) offset[a] = field.offset, is_double[a] = field.datatype == 8;
  out.resize(std::size_t(cloud.width) * cloud.height);
  out.width = cloud.width;
  out.height = cloud.height;
  out.is_dense = true;
  for (std::uint32_t row = 0; row < cloud.height; ++row)
    for (std::uint32_t column = 0; column < cloud.width; ++column) {
      const std::uint8_t* bytes =
          cloud.data.data() + std::size_t(row) * cloud.row_step + std::size_t(column) * cloud.point_step;
      pcl::PointXYZ& point = out[std::size_t(row) * cloud.width + column];
      for (int a = 0; a < 3; ++a) {
        if (is_double[a]) {
          double value;
          std::memcpy(&value, bytes + offset[a], sizeof value);
          point.data[a] = static_cast<float>(value);
        } else {
          std::memcpy(&point.data[a], bytes + offset[a], sizeof(float));
        }
      }
      out.is_dense = out.is_dense && std::isfinite(point.x) && std::isfinite(point.y) && std::isfinite(point.z);
    }
}

}  // namespace pcl_dise
