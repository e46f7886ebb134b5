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

/** The points of a PCD file, in double. */
struct PcdCloud {
  std::uint32_t width = 0;                               ///< WIDTH
  std::uint32_t height = 0;                              ///< HEIGHT; > 1: organized, row-major
  std::vector<std::array<double, 3>> xyz;                ///< width x height points, NaN kept
  std::array<double, 7> viewpoint{0, 0, 0, 1, 0, 0, 0};  ///< VIEWPOINT: tx ty tz qw qx qy qz
  /// With parsePcd(..., true): every field but x, y, z (a field of COUNT c as name_0 .. name_c-1).
  std::vector<PointField> fields;
};

/** One FIELDS entry of a PCD header. */
struct PcdField {
  std::string name;         ///< FIELDS
  int size = 4;             ///< SIZE: bytes of one value
  char type = 'F';          ///< F, I or U
  std::uint32_t count = 1;  ///< COUNT: values of the field per point
  std::size_t offset = 0;   ///< bytes into a binary point
};

/** A PCD header: what comes before the data. */
struct PcdHeader {
  std::vector<PcdField> fields;                          ///< in the order of the data
  std::uint32_t width = 0;                               ///< WIDTH
  std::uint32_t height = 1;                              ///< HEIGHT
  std::array<double, 7> viewpoint{0, 0, 0, 1, 0, 0, 0};  ///< VIEWPOINT: tx ty tz qw qx qy qz
  std::string data;                                      ///< ascii, binary or binary_compressed
  std::size_t data_at = 0;                               ///< bytes from the file's start to the data
  std::size_t point_size = 0;                            ///< bytes of one binary point
  std::size_t values_per_point = 0;                      ///< numbers per point (the fields' counts summed)
  int xyz[3] = {-1, -1, -1};                             ///< the fields x, y and z
  std::uint64_t points() const { return std::uint64_t(width) * height; }  ///< WIDTH x HEIGHT
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
