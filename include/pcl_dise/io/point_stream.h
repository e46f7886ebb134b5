#pragma once
// The points of a cloud file read in file order, a chunk at a time, in double: how the tools go
// through clouds larger than memory. Streams .xyz, binary .pcd, binary .ply (the vertex element
// first), .las and .laz (a few chunks decoded at a time, in threads); ASCII or compressed PCD and ASCII PLY are refused
// with a message saying what to do. The whole-file readers (pcd_reader.h, ply_reader.h, las_format.h) share the header
// rules. Plain C++, no PCL.
#include <array>
#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pcl_dise/io/text_io.h"

namespace pcl_dise {
namespace io {

class LazReader;

/** Any cloud file (.xyz, binary .pcd / .ply, .las, .laz) read piece by piece, in double, as often as
 *  needed: the out-of-core path reads its input a few times without holding it. */
class PointStream {
 public:
  /** Opens `path` and reads its header. Throws std::runtime_error naming the file and the
   *  problem: unreadable, a format that cannot be streamed, a header the file's size belies. */
  explicit PointStream(const std::string& path);
  ~PointStream();

  /** Appends up to max_points points to xyz; returns how many (0: the end). NaN coordinates are
   *  passed on. Throws std::runtime_error where the file ends early or a line is malformed. */
  std::size_t read(std::size_t max_points, std::vector<std::array<double, 3>>& xyz);
  /** Back to the first point. */
  void restart();
  /** The number of points: from the header, or (.xyz) counted by reading the file once. */
  std::uint64_t countPoints();

  /** What the header says: an organized PCD's width and height (width 0: not organized), the PCD
   *  viewpoint; and whether the file is LAS or LAZ. */
  std::uint32_t width() const { return width_; }
  std::uint32_t height() const { return height_; }                       ///< see width()
  const std::array<double, 7>& viewpoint() const { return viewpoint_; }  ///< see width()
  bool isLas() const { return las_; }                                    ///< see width()

 private:
  std::string path_;
  /// Binary records: `count` of `record_size` bytes from `data_at`, coordinates by `decode`.
  std::ifstream in_;
  std::uint64_t data_at_ = 0, record_size_ = 0, count_ = 0, next_ = 0;
  std::function<std::array<double, 3>(const char*)> decode_;
  std::string buffer_;
  /// Text (.xyz).
  std::unique_ptr<TextTripleStream> text_;
  /// LAZ: records from the chunks.
  std::unique_ptr<LazReader> laz_;

  std::uint32_t width_ = 0, height_ = 1;
  std::array<double, 7> viewpoint_{0, 0, 0, 1, 0, 0, 0};
  bool las_ = false;
};

}  // namespace io
}  // namespace pcl_dise
