#pragma once
// Points with their normals, written point by point in input order, so that a cloud larger than
// memory can be written as its tiles finish. By extension: .normals (text "nx ny nz"), .xyz (text
// "x y z nx ny nz curvature", shortest round-trip digits), .pcd and
// .ply (binary: x y z, normal_x normal_y normal_z curvature) and .las (LAS 1.4, las_format.h).
// The file appears under its name only when finish() succeeds: a failed or interrupted write
// (a full disk, an error elsewhere) leaves no file that looks complete. Plain C++, no PCL.
#include <array>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "pcl_dise/io/extension.h"
#include "pcl_dise/io/las_format.h"

namespace pcl_dise {
namespace io {

/** What a NormalsWriter's file holds besides the points. */
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
  /// PCD, PLY: a float field orientation_confidence after the curvature; LAS, LAZ: a float extra
  /// byte OrientationConfidence (a consistent orientation's confidence in each point's side,
  /// orientation_propagation.h); text formats leave it out
  bool orientation_confidence = false;
};

/** Writes points with their normals point by point (see the file's comment). */
class NormalsWriter {
 public:
  /** Opens `path` + ".partial" for layout.points points. Throws std::runtime_error naming `path`
   *  for an unknown extension or a file that cannot be made. */
  NormalsWriter(const std::string& path, const NormalsFileLayout& layout);
  /** Removes the partial file unless finish() succeeded. */
  ~NormalsWriter();
  NormalsWriter(const NormalsWriter&) = delete;
  NormalsWriter& operator=(const NormalsWriter&) = delete;

  /** The next point: its coordinates in the file's frame, its normal (NaN where none), curvature
   *  and, where the layout has the field, its orientation confidence. */
  void add(const std::array<double, 3>& xyz, const float* normal, float curvature, float confidence = 0.f);
  /** Checks the count, completes the file and gives it its name. Throws std::runtime_error where a
   *  write failed (a full disk) or fewer or more points came than announced. */
  void finish();

 private:
  void check();
  void writePending();
  /// Text and PCD / PLY records gather here and go to the file a megabyte at a time.
  static constexpr std::size_t kPendingBytes = 1 << 20;
  std::string pending_;
  std::vector<char> stream_buffer_;

  std::string path_, partial_;
  FileFormat format_;  ///< .laz written as kLas (LasWriter compresses)
  NormalsFileLayout layout_;
  std::ofstream out_;
  std::unique_ptr<LasWriter> las_;
  std::uint64_t written_ = 0;
  bool finished_ = false;
};

}  // namespace io
}  // namespace pcl_dise
