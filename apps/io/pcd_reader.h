#pragma once
// A PCD reader of our own (PCL's 1.13 reader crashes on malformed headers): the x, y, z of every
// point, read in double, from ASCII, binary and binary_compressed files. Plain C++, no PCL.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pcl_dise {
namespace io {

struct PcdCloud {
  std::uint32_t width = 0, height = 0;                   ///< height > 1: organized, row-major
  std::vector<std::array<double, 3>> xyz;                ///< width x height points, NaN kept
  std::array<double, 7> viewpoint{0, 0, 0, 1, 0, 0, 0};  ///< VIEWPOINT: tx ty tz qw qx qy qz
};

/** Parses PCD data (the whole file's bytes). Throws std::runtime_error naming `path` and what is
 *  wrong: a missing or inconsistent header field, an unknown type or DATA kind, too few values or
 *  bytes, a corrupt compressed block, no x, y and z fields. */
PcdCloud parsePcd(const std::string& bytes, const std::string& path);

/** parsePcd of a file; throws std::runtime_error where it cannot be read. */
PcdCloud readPcd(const std::string& path);

}  // namespace io
}  // namespace pcl_dise
