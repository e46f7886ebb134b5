#pragma once
// The cloud file formats: one codec per format (src/io/formats/), one table of them
// (src/io/file_format.cpp). A codec says what its format keeps and reads and writes it whole, piece
// by piece and point by point; every reader, writer, tool and binding asks the table. A new format
// is its codec and one line in the table: a codec that leaves out a part does not compile.
// Plain C++, no PCL.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "pcl_dise/io/point_table.h"

namespace pcl_dise {
namespace io {

/** Lower-case extension of `path` including the dot (".pcd"), or "" where there is none. */
std::string extension(const std::string& path);

/** What a format is and keeps. */
struct FormatTraits {
  const char* name;       ///< PointTable::format and Python's Cloud.format ("las" for LAS and LAZ)
  const char* extension;  ///< lower case, with the dot
  bool read;              ///< an input (readCloud, PointStream, readPointTable)
  bool written;           ///< an output (NormalsWriter, writeNormals)
  /// Its records and VLRs can be kept: a LAS or LAZ input written to LAS or LAZ keeps every
  /// dimension of every point, the header and the VLRs (NormalsFileLayout::las_source).
  bool keeps_records;
  /// Its clouds are surveys seen from above with no sensor pose (LAS, LAZ): the orientation they
  /// get where none is asked for is "up" (jobs::defaultOrientationFor).
  bool surveyed_from_above;
  bool point_values;  ///< an output holds per-point values (PointValue; binary formats, text does not)
};

/** A float per point that a file of normals may hold after the curvature (NormalsFileLayout::values). */
enum class PointValue {
  kOrientationConfidence,  ///< a consistent orientation's confidence in each point's side, 0..1
  kErrorBound,             ///< the angle (degrees) the normal lies within (core/error_bound.h)
};
constexpr std::size_t kPointValueCount = 2;

/** What a point value is called in files. */
struct PointValueNames {
  const char* field;        ///< PCD field and PLY property: orientation_confidence, error_bound
  const char* las_name;     ///< LAS float extra byte: OrientationConfidence, NormalErrorBound
  const char* description;  ///< the LAS extra byte's description (its 32 bytes hold the first 32 characters)
};

/** The names of `value` (one table in file_format.cpp). */
const PointValueNames& namesOf(PointValue value);

/** One point value for each point of a cloud (writeNormals). */
struct PointValueColumn {
  PointValue value;         ///< which value
  std::vector<float> data;  ///< N, NaN where a point has none
};

/** An input's layout, as its header says. */
struct CloudLayout {
  std::uint32_t width = 0;                               ///< an organized PCD's width (0: not organized)
  std::uint32_t height = 1;                              ///< an organized PCD's height
  std::array<double, 7> viewpoint{0, 0, 0, 1, 0, 0, 0};  ///< PCD VIEWPOINT: tx ty tz qw qx qy qz
};

/** A cloud file's points in file order, a chunk at a time, in double (FormatCodec::openSource). */
class PointSource {
 public:
  virtual ~PointSource() = default;
  /** Appends up to max_points points to xyz; returns how many (0: the end). NaN coordinates are
   *  passed on. Throws std::runtime_error where the file ends early or a line is malformed. */
  virtual std::size_t read(std::size_t max_points, std::vector<std::array<double, 3>>& xyz) = 0;
  /** Back to the first point. */
  virtual void restart() = 0;
  /** The number of points: from the header, or (text) counted by reading the file once. */
  virtual std::uint64_t countPoints() = 0;
  /** The header's layout. */
  virtual CloudLayout layout() const = 0;
};

/** What a file of points with normals holds besides the points (NormalsWriter). */
struct NormalsFileLayout {
  std::uint64_t points = 0;                              ///< points to come
  std::uint32_t width = 0;                               ///< PCD: an organized cloud's width (0: points x 1)
  std::uint32_t height = 1;                              ///< PCD: an organized cloud's height
  std::array<double, 7> viewpoint{0, 0, 0, 1, 0, 0, 0};  ///< PCD: VIEWPOINT, in the file's coordinates
  bool double_coordinates = false;                       ///< PCD, PLY: x y z as double (georeferenced)
  std::array<double, 3> las_scale{0, 0, 0};              ///< LAS without a source: the coordinates' scale
  std::array<double, 3> las_offset{0, 0, 0};             ///< LAS without a source: the coordinates' offset
  /// LAS: the LAS file the points came from, in its order (empty: none): its records, VLRs and EVLRs
  /// are kept, the normals added (LasWriter).
  std::string las_source;
  std::shared_ptr<const std::string> las_source_bytes;  ///< las_source decoded, where it is LAZ (optional)
  /// Per-point values after the curvature, in this order: PCD and PLY float fields, LAS and LAZ
  /// float extra bytes (namesOf); formats whose traits say no leave them out.
  std::vector<PointValue> values;
};

/** Points with normals in a format's encoding, point by point (FormatCodec::openEncoder). */
class NormalsEncoder {
 public:
  virtual ~NormalsEncoder() = default;
  /** The next point: its coordinates in the file's frame, its normal (3 floats, NaN where none),
   *  curvature and its values (one per entry of the layout's values). */
  virtual void add(const std::array<double, 3>& xyz, const float* normal, float curvature, const float* values) = 0;
  /** Writes what is left (buffered records; LAS: the header's counts and bounds, LAZ: the last chunk). */
  virtual void finish() = 0;
};

/** One file format: what it keeps, and its reader, point source and normals encoder. */
class FormatCodec {
 public:
  virtual ~FormatCodec() = default;
  /** Its name, extension and what it keeps. */
  virtual FormatTraits traits() const = 0;
  /** \brief Reads `path` whole.
   *  \param[in] path the file
   *  \param[in] all_fields every per-point value (true) or the coordinates and layout alone
   *  \throws std::runtime_error naming the file and the problem */
  virtual PointTable read(const std::string& path, bool all_fields) const = 0;
  /** \brief Opens `path` to be read piece by piece.
   *  \throws std::runtime_error naming the file: unreadable, a layout that cannot be streamed
   *  (saying what to do), a header the file's size belies */
  virtual std::unique_ptr<PointSource> openSource(const std::string& path) const = 0;
  /** \brief An encoder writing `layout.points` points with normals to `out` (opened by NormalsWriter).
   *  \param[in,out] out the file's stream, binary
   *  \param[in] path the file's name, for messages (LAS: ".laz" compresses)
   *  \param[in] layout what the file holds besides the points
   *  \throws std::runtime_error naming `path` where the layout cannot be written */
  virtual std::unique_ptr<NormalsEncoder> openEncoder(std::ostream& out, const std::string& path,
                                                      const NormalsFileLayout& layout) const = 0;
};

/** Every format, in the order help texts list them. */
const std::vector<const FormatCodec*>& fileFormats();

/** \brief The codec `path` is read with, by its extension.
 *  \throws std::runtime_error "'PATH': unknown extension '.x' (expected ...)" for any other */
const FormatCodec& inputFormat(const std::string& path);

/** \brief The codec `path` is written with, by its extension.
 *  \throws std::runtime_error "'PATH': unknown output extension '.x' (expected ...)" for any other */
const FormatCodec& outputFormat(const std::string& path);

/** ".pcd, .ply, .las, .laz or .xyz": the extensions of the formats read (written: those written),
 *  for messages and help texts. */
std::string formatExtensions(bool written);
/** The extensions of the formats whose traits `which` accepts, listed as formatExtensions lists them. */
std::string formatExtensionsWhere(const std::function<bool(const FormatTraits&)>& which);

}  // namespace io
}  // namespace pcl_dise
