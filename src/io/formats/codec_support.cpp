#include "codec_support.h"

#include <algorithm>
#include <cstring>

#include "../file_access.h"

namespace pcl_dise {
namespace io {
namespace formats {

FileHead readHead(const std::string& path) {
  constexpr std::uint64_t kHeaderBytes = 1 << 16;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) detail::fail(path, "cannot be opened");
  FileHead head;
  head.file_size = static_cast<std::uint64_t>(in.tellg());
  head.bytes.assign(std::min(head.file_size, kHeaderBytes), '\0');
  in.seekg(0);
  in.read(head.bytes.data(), static_cast<std::streamsize>(head.bytes.size()));
  if (!in) detail::fail(path, "cannot be read");
  return head;
}

BinaryRecordSource::BinaryRecordSource(const std::string& path, std::uint64_t file_size, RecordLayout records)
    : path_(path), records_(std::move(records)) {
  const RecordLayout& r = records_;
  if (r.record_size == 0 || r.data_at > file_size || r.count > (file_size - r.data_at) / r.record_size)
    detail::fail(path, "the header promises " + std::to_string(r.count) + " points of " +
                           std::to_string(r.record_size) + " bytes, more than the file holds");
  in_.open(path, std::ios::binary);
  if (!in_) detail::fail(path, "cannot be opened");
  restart();
}

void BinaryRecordSource::restart() {
  in_.clear();
  in_.seekg(static_cast<std::streamoff>(records_.data_at));
  next_ = 0;
}

PointTable unorganizedTable(std::vector<std::array<double, 3>> xyz, std::vector<PointField> fields,
                            const char* format) {
  PointTable table;
  table.xyz = std::move(xyz);
  table.fields = std::move(fields);
  table.width = static_cast<std::uint32_t>(table.xyz.size());
  table.format = format;
  return table;
}

std::size_t BinaryRecordSource::read(std::size_t max_points, std::vector<std::array<double, 3>>& xyz) {
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(max_points, records_.count - next_));
  buffer_.resize(n * records_.record_size);
  in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  if (!in_)
    detail::fail(path_, "ends early, at point " + std::to_string(next_) + " of " + std::to_string(records_.count));
  for (std::size_t i = 0; i < n; ++i) xyz.push_back(records_.decode(buffer_.data() + i * records_.record_size));
  next_ += n;
  return n;
}

BinaryNormalsEncoder::BinaryNormalsEncoder(std::ostream& out, const std::string& header,
                                           const NormalsFileLayout& layout)
    : BufferedEncoder(out), double_coordinates_(layout.double_coordinates), values_(layout.values.size()) {
  pending_ = header;
}

void BinaryNormalsEncoder::add(const std::array<double, 3>& xyz, const float* normal, float curvature,
                               const float* values) {
  char record[3 * 8 + (4 + kPointValueCount) * 4];
  std::size_t at = 0;
  for (int c = 0; c < 3; ++c) {
    if (double_coordinates_) {
      std::memcpy(record + at, &xyz[c], 8);
      at += 8;
    } else {
      const float v = static_cast<float>(xyz[c]);
      std::memcpy(record + at, &v, 4);
      at += 4;
    }
  }
  std::memcpy(record + at, normal, 12);
  std::memcpy(record + at + 12, &curvature, 4);
  at += 16;
  if (values_ > 0) std::memcpy(record + at, values, 4 * values_);
  at += 4 * values_;
  pending_.append(record, at);
  flushWhenFull();
}

}  // namespace formats
}  // namespace io
}  // namespace pcl_dise
