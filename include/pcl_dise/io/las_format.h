#pragma once
// LAS (ASPRS LAS 1.0-1.4, uncompressed) of our own: Debian 12 has neither PDAL nor LASzip.
// Reading takes every point's x, y, z (int32 record values times the header's scale plus its
// offset, in double) from any point data record format 0-10. Writing stores points with their
// normals as LAS 1.4, the normal and curvature in described extra bytes (NormalX, NormalY,
// NormalZ, Curvature: PDAL's names): new points in point format 6, or, where the points came from
// a LAS file, that file's every point record, VLR and EVLR kept. Plain C++, no PCL.
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "pcl_dise/io/file_format.h"
#include "pcl_dise/io/point_field.h"

namespace pcl_dise {
namespace io {

/** The points of a LAS file, in double. */
struct LasCloud {
  std::vector<std::array<double, 3>> xyz;            ///< the points' coordinates, in file order
  std::array<double, 3> scale{0.001, 0.001, 0.001};  ///< the header's scale
  std::array<double, 3> offset{0, 0, 0};             ///< the header's offset
  std::uint8_t version_minor = 4;                    ///< LAS 1.x: x
  std::uint8_t point_format = 6;                     ///< point data record format, 0..10
  /// With parseLas(..., true): the point format's dimensions by PDAL's names (Intensity,
  /// ReturnNumber, NumberOfReturns, ScanDirectionFlag, EdgeOfFlightLine, Classification,
  /// Synthetic, KeyPoint, Withheld, Overlap, ScanChannel, ScanAngleRank, UserData, PointSourceId,
  /// GpsTime, Red, Green, Blue, Infrared), then the extra bytes the Extra Bytes VLR describes by
  /// their own names (raw values: a descriptor's scale and offset are not applied).
  std::vector<PointField> fields;
  /// A LAZ input's points as uncompressed LAS (header, VLRs, records; no EVLRs), kept so that an
  /// output keeping its records (LasWriter with `source_bytes`) does not decode it again; null for LAS.
  std::shared_ptr<const std::string> decoded;
};

/** A LAS header: where the points are and how to read their coordinates. */
struct LasHeader {
  std::uint8_t version_minor = 4;         ///< LAS 1.x: x
  std::uint8_t point_format = 6;          ///< point data record format, 0..10
  std::uint64_t point_data = 0;           ///< the first record's byte (LAZ: the chunk table's offset)
  std::uint64_t count = 0;                ///< the number of records
  std::uint16_t record_length = 0;        ///< bytes of one record
  std::array<double, 3> scale{1, 1, 1};   ///< a coordinate is its int32 record value times scale ...
  std::array<double, 3> offset{0, 0, 0};  ///< ... plus offset
  bool compressed = false;                ///< LAZ: the records are in compressed chunks (laz_format.h)
};

/** Parses the header at the start of `bytes` (at least the public header block) of a file of
 *  `file_size` bytes; a LAZ header is `compressed`, its point format without the compression bits
 *  (whether the file holds its points is then the chunk table's to say). Throws
 *  std::runtime_error naming `path` and what is wrong, as parseLas. */
LasHeader parseLasHeader(const std::string& bytes, const std::string& path, std::uint64_t file_size);

/** The coordinates of the point record at `record` (record_length bytes), in double. */
std::array<double, 3> lasCoordinates(const LasHeader& header, const char* record);

/** Parses LAS or LAZ data (the whole file's bytes; LAZ is decompressed in threads). Throws
 *  std::runtime_error naming `path` and what is wrong: not a LAS file, an unknown point format, a
 *  record too short for its format, a header, VLRs or point data that do not fit in the file, a
 *  zero or non-finite scale, LAZ that is corrupt or compressed in a way laz_format.h does not
 *  read. */
LasCloud parseLas(const std::string& bytes, const std::string& path, bool all_fields = false);

/** parseLas of a file; throws std::runtime_error where it cannot be read. */
LasCloud readLas(const std::string& path, bool all_fields = false);

class LazChunkWriter;

/** Per point: nx, ny, nz, curvature (NaN where a point has none). */
using NormalWithCurvature = std::array<float, 4>;

/** Writes LAS 1.4 point by point to a seekable stream: the header, which holds the bounds, is
 *  written by finish(). Where `path` ends in .laz the records are compressed (LAZ, chunks of
 *  50,000 points, laz_format.h); everything else is the same. Throws std::runtime_error naming
 *  `path` for a point that LAS cannot hold. */
class LasWriter {
 public:
  /** New points: point format 6, coordinates stored with `scale` and `offset` (see writeLas);
   *  `values`: float extra bytes after the normal's, in this order (namesOf(value).las_name). */
  LasWriter(std::ostream& out, const std::string& path, const std::array<double, 3>& scale,
            const std::array<double, 3>& offset, const std::vector<PointValue>& values = {});
  /** The points of the LAS or LAZ file `source`, added in its order: each output record is the source's
   *  record unchanged (its point format, every dimension, its own extra bytes) followed by the
   *  normal and curvature (or with them in place of the source's own NormalX, NormalY, NormalZ and
   *  Curvature floats, where it has them: an output read again); the header (scale, offset, bounds, counts, global
   * encoding), the VLRs and the EVLRs (the CRS among them) are the source's, the Extra Bytes VLR extended by ours
   * (extra bytes the source does not describe become "undocumented" ones). The output is LAS 1.4 whatever the source's
   * version. Waveform packets are not kept: formats 4, 5, 9 and 10 keep their records with the wave packet descriptor
   * index set to 0 (no waveform). Throws std::runtime_error naming `source` where it cannot be read, and from finish()
   * where fewer or more points came than it holds. `source_bytes`: a LAZ source already decoded
   * (LasCloud::decoded), whose records are then read from there instead of decoded again.
   * `values`: float extra bytes too (namesOf(value).las_name; after the normal's, or in place of
   * the source's own); a value the source has and the run does not write gets NaN there (nothing
   * stale). */
  LasWriter(std::ostream& out, const std::string& path, const std::string& source,
            std::shared_ptr<const std::string> source_bytes = nullptr, const std::vector<PointValue>& values = {});
  ~LasWriter();
  /** The next point; with a source, `xyz` must be that point's (the record is copied).
   *  values: one per value given to the constructor (nullptr where none was). */
  void add(const std::array<double, 3>& xyz, const NormalWithCurvature& normal, const float* values = nullptr);
  /** \brief Writes the header (bounds, counts); throws std::runtime_error where a write failed. */
  void finish();

 private:
  struct Source;
  std::string ourDescriptors() const;  ///< the Extra Bytes descriptors of new points' records
  std::ostream& out_;
  std::string path_;
  std::array<double, 3> scale_{}, offset_{};  ///< new points only: a source keeps its own
  double lo_[3], hi_[3];
  std::uint64_t count_ = 0;
  std::vector<PointValue> values_;                        ///< those written, in add's order
  std::array<std::size_t, kPointValueCount> value_at_{};  ///< each value's record byte; 0: none
  std::string record_;
  std::unique_ptr<Source> source_;
  std::unique_ptr<LazChunkWriter> laz_;  ///< .laz output
};

/** Writes LAS 1.4 (LAZ where `path` ends in .laz), point format 6, with four float extra bytes per point (normal_x,
 * normal_y, normal_z, curvature; described in an Extra Bytes VLR, as PDAL and LAStools read them). Coordinates are
 * stored as round((x - offset) / scale): `scale` and `offset` come from the input where it was LAS (a LAS round trip
 * keeps every coordinate), else from chooseQuantization. Throws std::runtime_error where the file cannot be written or
 * a coordinate does not fit. */
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
