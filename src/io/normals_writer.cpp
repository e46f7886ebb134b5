#include "pcl_dise/io/normals_writer.h"
#include "file_access.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace pcl_dise {
namespace io {

using detail::fail;

NormalsWriter::NormalsWriter(const std::string& path, const NormalsFileLayout& layout)
    : path_(path), partial_(path + ".partial"), points_(layout.points) {
  const FormatCodec& codec = outputFormat(path);
  if (layout.width && std::uint64_t(layout.width) * layout.height != layout.points)
    fail(path, "an organized layout of " + std::to_string(layout.width) + " x " + std::to_string(layout.height) +
                   " for " + std::to_string(layout.points) + " points");
  for (std::size_t v = 0; v < layout.values.size(); ++v)
    if (std::count(layout.values.begin(), layout.values.begin() + v, layout.values[v]))
      fail(path, std::string("the value ") + namesOf(layout.values[v]).field + " twice");
  NormalsFileLayout kept = layout;
  if (!codec.traits().point_values) kept.values.clear();
  no_values_.assign(layout.values.size(), std::numeric_limits<float>::quiet_NaN());
  stream_buffer_.resize(1 << 20);  // LAS records go through the stream: a large buffer
  out_.rdbuf()->pubsetbuf(stream_buffer_.data(), static_cast<std::streamsize>(stream_buffer_.size()));
  out_.open(partial_, std::ios::out | std::ios::binary);
  if (!out_) fail(path, "cannot be written");
  encoder_ = codec.openEncoder(out_, path, kept);
}

NormalsWriter::~NormalsWriter() {
  if (finished_) return;
  encoder_.reset();
  out_.close();
  std::remove(partial_.c_str());
}

void NormalsWriter::add(const std::array<double, 3>& xyz, const float* normal, float curvature, const float* values) {
  if (written_ == points_) fail(path_, "more points than the " + std::to_string(points_) + " announced");
  ++written_;
  encoder_->add(xyz, normal, curvature, values ? values : no_values_.data());
  if ((written_ & 0xffff) == 0) check();
}

void NormalsWriter::check() {
  if (!out_) fail(path_, "could not be written completely (is the disk full?)");
}

void NormalsWriter::finish() {
  if (written_ != points_)
    fail(path_, std::to_string(written_) + " points written of the " + std::to_string(points_) + " announced");
  encoder_->finish();
  out_.flush();
  check();
  out_.close();
  if (out_.fail()) fail(path_, "could not be written completely (is the disk full?)");
  if (std::rename(partial_.c_str(), path_.c_str()) != 0) fail(path_, "cannot be given its name");
  finished_ = true;
}

}  // namespace io
}  // namespace pcl_dise
