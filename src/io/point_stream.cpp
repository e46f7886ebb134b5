#include "pcl_dise/io/point_stream.h"
#include "file_access.h"

#include <algorithm>
#include <stdexcept>

#include "pcl_dise/io/extension.h"
#include "pcl_dise/io/las_format.h"
#include "pcl_dise/io/laz_format.h"
#include "pcl_dise/io/pcd_reader.h"
#include "pcl_dise/io/ply_reader.h"

namespace pcl_dise {
namespace io {
namespace {

using detail::fail;

constexpr std::size_t kHeaderBytes = 1 << 16;  // headers longer than this are not streamed

}  // namespace

PointStream::PointStream(const std::string& path) : path_(path) {
  const FileFormat format = inputFormat(path);
  if (format == FileFormat::kXyz) {
    text_ = std::make_unique<TextTripleStream>(path);
    return;
  }
  if (format == FileFormat::kLaz) {  // decoded a few chunks at a time, in threads
    laz_ = std::make_unique<LazReader>(path);
    const LasHeader h = laz_->header();
    las_ = true;
    record_size_ = h.record_length;
    count_ = h.count;
    decode_ = [h](const char* record) { return lasCoordinates(h, record); };
    return;
  }
  in_.open(path, std::ios::binary | std::ios::ate);
  if (!in_) fail(path, "cannot be opened");
  const std::uint64_t file_size = static_cast<std::uint64_t>(in_.tellg());
  std::string head(std::min<std::uint64_t>(file_size, kHeaderBytes), '\0');
  in_.seekg(0);
  in_.read(head.data(), static_cast<std::streamsize>(head.size()));
  if (!in_) fail(path, "cannot be read");

  if (format == FileFormat::kPcd) {
    const PcdHeader h = parsePcdHeader(head, path);
    if (h.data != "binary")
      fail(path, "PCD data '" + h.data +
                     "' cannot be read piece by piece; convert it to binary (pcl_convert_pcd_ascii_binary "
                     "in.pcd out.pcd 1) or leave out --max-memory");
    width_ = h.height > 1 ? h.width : 0;
    height_ = h.height;
    viewpoint_ = h.viewpoint;
    data_at_ = h.data_at;
    record_size_ = h.point_size;
    count_ = h.points();
    const PcdField fields[3] = {h.fields[h.xyz[0]], h.fields[h.xyz[1]], h.fields[h.xyz[2]]};
    decode_ = [fields](const char* record) {
      return std::array<double, 3>{valueOf(fields[0], record + fields[0].offset),
                                   valueOf(fields[1], record + fields[1].offset),
                                   valueOf(fields[2], record + fields[2].offset)};
    };
  } else if (format == FileFormat::kPly) {
    const PlyHeader h = parsePlyHeader(head, path);
    if (h.format == "ascii")
      fail(path, "ASCII PLY cannot be read piece by piece; write it as binary or leave out --max-memory");
    if (h.elements.empty() || h.elements[0].name != "vertex")
      fail(path, "its first element is not 'vertex'; such a PLY file cannot be read piece by piece");
    struct Coordinate {
      PlyScalar scalar;
      std::size_t at = 0;
    } xyz[3];
    int found = 0;
    for (const PlyProperty& p : h.elements[0].properties) {
      if (!p.count_type.empty())
        fail(path,
             "its vertices have a list property ('" + p.name + "'); such a PLY file cannot be read piece by piece");
      for (int c = 0; c < 3; ++c)
        if (p.name == std::string(1, "xyz"[c])) xyz[c] = {p.scalar, record_size_}, ++found;
      record_size_ += p.scalar.size;
    }
    if (found < 3) fail(path, "its vertices have no x, y and z");
    data_at_ = h.data_at;
    count_ = h.elements[0].count;
    const bool swap = h.format == "binary_big_endian";
    decode_ = [xyz, swap](const char* record) {
      return std::array<double, 3>{plyValue(xyz[0].scalar, record + xyz[0].at, swap),
                                   plyValue(xyz[1].scalar, record + xyz[1].at, swap),
                                   plyValue(xyz[2].scalar, record + xyz[2].at, swap)};
    };
  } else {  // LAS
    const LasHeader h = parseLasHeader(head, path, file_size);
    las_ = true;
    data_at_ = h.point_data;
    record_size_ = h.record_length;
    count_ = h.count;
    decode_ = [h](const char* record) { return lasCoordinates(h, record); };
  }
  if (record_size_ == 0 || data_at_ > file_size || count_ > (file_size - data_at_) / record_size_)
    fail(path, "the header promises " + std::to_string(count_) + " points of " + std::to_string(record_size_) +
                   " bytes, more than the file holds");
  restart();
}

PointStream::~PointStream() = default;

void PointStream::restart() {
  if (laz_) {
    laz_->restart();
    next_ = 0;
    return;
  }
  if (text_) {
    text_ = std::make_unique<TextTripleStream>(path_);
    return;
  }
  in_.clear();
  in_.seekg(static_cast<std::streamoff>(data_at_));
  next_ = 0;
}

std::uint64_t PointStream::countPoints() {
  if (!text_) return count_;
  restart();
  std::uint64_t count = 0;
  std::array<double, 3> row;
  while (text_->next(row)) ++count;
  restart();
  return count;
}

std::size_t PointStream::read(std::size_t max_points, std::vector<std::array<double, 3>>& xyz) {
  if (text_) {
    std::size_t got = 0;
    std::array<double, 3> row;
    while (got < max_points && text_->next(row)) xyz.push_back(row), ++got;
    return got;
  }
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(max_points, count_ - next_));
  if (laz_) {
    buffer_.clear();
    if (laz_->read(n, buffer_) != n)
      fail(path_, "ends early, at point " + std::to_string(next_) + " of " + std::to_string(count_));
  } else {
    buffer_.resize(n * record_size_);
    in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    if (!in_) fail(path_, "ends early, at point " + std::to_string(next_) + " of " + std::to_string(count_));
  }
  for (std::size_t i = 0; i < n; ++i) xyz.push_back(decode_(buffer_.data() + i * record_size_));
  next_ += n;
  return n;
}

}  // namespace io
}  // namespace pcl_dise
