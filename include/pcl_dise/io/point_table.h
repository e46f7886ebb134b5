#pragma once
// A cloud file's every per-point value: the coordinates in double and every other field, LAS
// dimension or text column, as the Python module's read_cloud returns them. Plain C++, no PCL.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pcl_dise/io/point_field.h"

namespace pcl_dise {
namespace io {

/** A cloud file's contents (readPointTable). */
struct PointTable {
  std::vector<std::array<double, 3>> xyz;                ///< N x 3, in the file's coordinates; NaN kept
  std::vector<PointField> fields;                        ///< every other value, one entry per point each
  std::uint32_t width = 0;                               ///< PCD: an organized cloud's width; else N
  std::uint32_t height = 1;                              ///< PCD: an organized cloud's height; else 1
  std::array<double, 7> viewpoint{0, 0, 0, 1, 0, 0, 0};  ///< PCD VIEWPOINT: tx ty tz qw qx qy qz
  std::string format;                                    ///< FormatTraits::name: "pcd", "ply", "las" or "xyz"
  /// LAZ: the file decoded (LAS bytes), so that an output keeping its records reads them from here
  std::shared_ptr<const std::string> decoded;
};

/** Reads `path` (.pcd, .ply, .las, .xyz) whole. A .xyz file's lines hold 3 or more numbers, as
 *  many on every line: x y z, then columns named nx ny nz and curvature where there are 6 or 7,
 *  column_3, column_4, ... otherwise. Throws std::runtime_error naming the file and the problem
 *  (as readCloud: unreadable, unknown extension, malformed or truncated data). */
PointTable readPointTable(const std::string& path);

}  // namespace io
}  // namespace pcl_dise
