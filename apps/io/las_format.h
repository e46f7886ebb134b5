#pragma once
// LAS (ASPRS LAS 1.0-1.4, uncompressed) of our own: Debian 12 has neither PDAL nor LASzip.
// Reading takes every point's x, y, z (int32 record values times the header's scale plus its
// offset, in double) from any point data record format 0-10; writing stores points with their
// normals as LAS 1.4, point format 6, the normal and curvature in described extra bytes.
// Plain C++, no PCL.
#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace pcl_dise {
namespace io {

struct LasCloud {
  std::vector<std::array<double, 3>> xyz;                             ///< the points' coordinates, in file order
  std::array<double, 3> scale{0.001, 0.001, 0.001}, offset{0, 0, 0};  ///< the header's
  std::uint8_t version_minor = 4;
  std::uint8_t point_format = 6;
};

/** A LAS header: where the points are and how to read their coordinates. */
struct LasHeader {
  std::uint8_t version_minor = 4, point_format = 6;
  std::uint64_t point_data = 0, count = 0;  ///< the first record's byte, the number of records
  std::uint16_t record_length = 0;
  std::array<double, 3> scale{1, 1, 1}, offset{0, 0, 0};
};

/** Parses the header at the start of `bytes` (at least the public header block) of a file of
 *  `file_size` bytes. Throws std::runtime_error naming `path` and what is wrong, as parseLas. */
LasHeader parseLasHeader(const std::string& bytes, const std::string& path, std::uint64_t file_size);

/** The coordinates of the point record at `record` (record_length bytes), in double. */
std::array<double, 3> lasCoordinates(const LasHeader& header, const char* record);

/** Parses LAS data (the whole file's bytes). Throws std::runtime_error naming `path` and what is
 *  wrong: not a LAS file, a compressed (LAZ) one, an unknown point format, a record too short for
 *  its format, a header, VLRs or point data that do not fit in the file, a zero or non-finite
 *  scale. */
LasCloud parseLas(const std::string& bytes, const std::string& path);

/** parseLas of a file; throws std::runtime_error where it cannot be read. */
LasCloud readLas(const std::string& path);

/** Per point: nx, ny, nz, curvature (NaN where a point has none). */
using NormalWithCurvature = std::array<float, 4>;

/** Writes LAS 1.4, point format 6, point by point (see writeLas) to a seekable stream: the
 *  header, which holds the bounds, is written by finish(). Throws std::runtime_error naming `path`
 *  for a point that LAS cannot hold. */
class LasWriter {
 public:
  LasWriter(std::ostream& out, const std::string& path, const std::array<double, 3>& scale,
            const std::array<double, 3>& offset);
  void add(const std::array<double, 3>& xyz, const NormalWithCurvature& normal);
  void finish();

 private:
  std::ostream& out_;
  std::string path_;
  std::array<double, 3> scale_, offset_;
  double lo_[3], hi_[3];
  std::uint64_t count_ = 0;
  std::string record_;
};

/** Writes LAS 1.4, point format 6, with four float extra bytes per point (normal_x, normal_y,
 *  normal_z, curvature; described in an Extra Bytes VLR, as PDAL and LAStools read them).
 *  Coordinates are stored as round((x - offset) / scale): `scale` and `offset` come from the
 *  input where it was LAS (a LAS round trip keeps every coordinate), else from chooseQuantization.
 *  Throws std::runtime_error where the file cannot be written or a coordinate does not fit. */
void writeLas(const std::string& path, const std::vector<std::array<double, 3>>& xyz,
              const std::vector<NormalWithCurvature>& normals, const std::array<double, 3>& scale,
              const std::array<double, 3>& offset);

/** A scale and offset for coordinates that did not come from LAS: the offset the bounding box's
 *  centre rounded to whole units, the scale the power of ten at or below 1e-7 of the largest
 *  extent from the offset, and at most 1e-3. Non-finite points are ignored. */
void chooseQuantization(const std::vector<std::array<double, 3>>& xyz, std::array<double, 3>& scale,
                        std::array<double, 3>& offset);
/** The same from the bounds of the finite points. */
void chooseQuantization(const double lo[3], const double hi[3], std::array<double, 3>& scale,
                        std::array<double, 3>& offset);

}  // namespace io
}  // namespace pcl_dise
