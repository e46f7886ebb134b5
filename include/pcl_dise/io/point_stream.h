#pragma once
// The points of a cloud file read in file order, a chunk at a time, in double: how the tools go
// through clouds larger than memory. Every format whose codec streams it (file_format.h): .xyz,
// binary .pcd, binary .ply (the vertex element first), .las and .laz (a few chunks decoded at a
// time, in threads); ASCII or compressed PCD and ASCII PLY are refused with a message saying what
// to do. Plain C++, no PCL.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pcl_dise/io/file_format.h"

namespace pcl_dise {
namespace io {

/** Any cloud file read piece by piece, in double, as often as needed: the out-of-core path reads
 *  its input a few times without holding it. */
class PointStream {
 public:
  /** Opens `path` with its format's codec and reads its header. Throws std::runtime_error naming
   *  the file and the problem: an unknown extension, unreadable, a layout that cannot be streamed,
   *  a header the file's size belies. */
  explicit PointStream(const std::string& path);

  /** Appends up to max_points points to xyz; returns how many (0: the end). NaN coordinates are
   *  passed on. Throws std::runtime_error where the file ends early or a line is malformed. */
  std::size_t read(std::size_t max_points, std::vector<std::array<double, 3>>& xyz) {
    return source_->read(max_points, xyz);
  }
  /** Back to the first point. */
  void restart() { source_->restart(); }
  /** The number of points: from the header, or (.xyz) counted by reading the file once. */
  std::uint64_t countPoints() { return source_->countPoints(); }

  /** What the header says: an organized PCD's width and height (width 0: not organized), the PCD
   *  viewpoint. */
  const CloudLayout& layout() const { return layout_; }
  /** What the file's format keeps (FormatTraits::keeps_records: a LAS or LAZ output keeps its records). */
  const FormatTraits& traits() const { return traits_; }

 private:
  FormatTraits traits_;
  std::unique_ptr<PointSource> source_;
  CloudLayout layout_;
};

}  // namespace io
}  // namespace pcl_dise
