#pragma once
// Points with their normals, written point by point in input order, so that a cloud larger than
// memory can be written as its tiles finish, in the format of the output's extension (its codec,
// file_format.h: .normals, .xyz, binary .pcd and .ply, LAS 1.4 .las and .laz).
// The file appears under its name only when finish() succeeds: a failed or interrupted write
// (a full disk, an error elsewhere) leaves no file that looks complete. Plain C++, no PCL.
#include <array>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "pcl_dise/io/file_format.h"

namespace pcl_dise {
namespace io {

/** Writes points with their normals point by point (see the file's comment). */
class NormalsWriter {
 public:
  /** Opens `path` + ".partial" for layout.points points. Throws std::runtime_error naming `path`
   *  for an unknown extension, a layout the format cannot hold (an organized layout that does not
   *  match the count, a value twice) or a file that cannot be made. */
  NormalsWriter(const std::string& path, const NormalsFileLayout& layout);
  /** Removes the partial file unless finish() succeeded. */
  ~NormalsWriter();
  NormalsWriter(const NormalsWriter&) = delete;
  NormalsWriter& operator=(const NormalsWriter&) = delete;

  /** The next point: its coordinates in the file's frame, its normal (3 floats, NaN where none),
   *  curvature and its values (one per entry of the layout's values; nullptr: NaN each). Throws
   *  std::runtime_error for a point more than announced or a failed write. */
  void add(const std::array<double, 3>& xyz, const float* normal, float curvature, const float* values = nullptr);
  /** Checks the count, completes the file and gives it its name. Throws std::runtime_error where a
   *  write failed (a full disk) or fewer or more points came than announced. */
  void finish();

 private:
  void check();

  std::string path_, partial_;
  std::uint64_t points_;
  std::vector<char> stream_buffer_;
  std::ofstream out_;
  std::unique_ptr<NormalsEncoder> encoder_;
  std::vector<float> no_values_;  ///< NaN for each of the layout's values
  std::uint64_t written_ = 0;
  bool finished_ = false;
};

}  // namespace io
}  // namespace pcl_dise
