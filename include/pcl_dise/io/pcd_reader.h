#pragma once
// A PCD reader of our own (PCL's 1.13 reader crashes on malformed headers): the x, y, z of every
// point, read in double, from ASCII, binary and binary_compressed files. Plain C++, no PCL.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pcl_dise/io/point_field.h"

namespace pcl_dise {
namespace io {

struct PcdCloud {
  std::uint32_t width = 0, height = 0;                   ///< height > 1: organized, row-major
  std::vector<std::array<double, 3>> xyz;                ///< width x height points, NaN kept
  std::array<double, 7> viewpoint{0, 0, 0, 1, 0, 0, 0};  ///< VIEWPOINT: tx ty tz qw qx qy qz
  /// With parsePcd(..., true): every field but x, y, z (a field of COUNT c as name_0 .. name_c-1).
  std::vector<PointField> fields;
};

struct PcdField {
  std::string name;
  int size = 4;
  char type = 'F';  ///< F, I or U
  std::uint32_t count = 1;
  std::size_t offset = 0;  ///< bytes into a binary point
};

/** A PCD header: what comes before the data. */
struct PcdHeader {
  std::vector<PcdField> fields;
  std::uint32_t width = 0, height = 1;
  std::array<double, 7> viewpoint{0, 0, 0, 1, 0, 0, 0};
  std::string data;            ///< ascii, binary or binary_compressed
  std::size_t data_at = 0;     ///< bytes from the file's start to the data
  std::size_t point_size = 0;  ///< bytes of one binary point
  std::size_t values_per_point = 0;
  int xyz[3] = {-1, -1, -1};  ///< the fields x, y and z
  std::uint64_t points() const { return std::uint64_t(width) * height; }
};

/** Parses the header at the start of `bytes` (the file's first bytes, through its DATA line).
 *  Throws std::runtime_error naming `path` and what is wrong, as parsePcd. */
PcdHeader parsePcdHeader(const std::string& bytes, const std::string& path);

/** One value of field f, from its bytes at p, in double. */
double valueOf(const PcdField& f, const char* p);

/** Parses PCD data (the whole file's bytes); with all_fields, PcdCloud::fields too. Throws std::runtime_error naming
 * `path` and what is wrong: a missing or inconsistent header field, an unknown type or DATA kind, too few values or
 *  bytes, a corrupt compressed block, no x, y and z fields. */
PcdCloud parsePcd(const std::string& bytes, const std::string& path, bool all_fields = false);

/** parsePcd of a file; throws std::runtime_error where it cannot be read. */
PcdCloud readPcd(const std::string& path, bool all_fields = false);

}  // namespace io
}  // namespace pcl_dise
