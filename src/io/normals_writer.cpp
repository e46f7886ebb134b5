#include "pcl_dise/io/normals_writer.h"
#include "file_access.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "pcl_dise/io/extension.h"

namespace pcl_dise {
namespace io {
namespace {

using detail::fail;

std::string pcdHeader(const NormalsFileLayout& layout) {
  const char* size = layout.double_coordinates ? "8" : "4";
  std::ostringstream h;
  h.precision(17);
  const bool confidence = layout.orientation_confidence;
  h << "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\n"
    << "FIELDS x y z normal_x normal_y normal_z curvature" << (confidence ? " orientation_confidence" : "") << "\n"
    << "SIZE " << size << ' ' << size << ' ' << size << " 4 4 4 4" << (confidence ? " 4" : "") << "\nTYPE F F F F F F F"
    << (confidence ? " F" : "") << "\nCOUNT 1 1 1 1 1 1 1" << (confidence ? " 1" : "") << "\n"
    << "WIDTH " << (layout.width ? std::uint64_t(layout.width) : layout.points) << "\nHEIGHT "
    << (layout.width ? layout.height : 1) << "\nVIEWPOINT";
  for (double v : layout.viewpoint) h << ' ' << v;
  h << "\nPOINTS " << layout.points << "\nDATA binary\n";
  return h.str();
}

std::string plyHeader(const NormalsFileLayout& layout) {
  const char* type = layout.double_coordinates ? "double" : "float";
  std::ostringstream h;
  h << "ply\nformat binary_little_endian 1.0\ncomment pcl_dise dise_normals\nelement vertex " << layout.points
    << "\nproperty " << type << " x\nproperty " << type << " y\nproperty " << type << " z\n"
    << "property float normal_x\nproperty float normal_y\nproperty float normal_z\nproperty float curvature\n"
    << (layout.orientation_confidence ? "property float orientation_confidence\n" : "") << "end_header\n";
  return h.str();
}

}  // namespace

NormalsWriter::NormalsWriter(const std::string& path, const NormalsFileLayout& layout)
    : path_(path), partial_(path + ".partial"), format_(outputFormat(path)), layout_(layout) {
  if (format_ == FileFormat::kLaz) format_ = FileFormat::kLas;  // the same records, compressed by LasWriter
  if (layout.width && std::uint64_t(layout.width) * layout.height != layout.points)
    fail(path, "an organized layout of " + std::to_string(layout.width) + " x " + std::to_string(layout.height) +
                   " for " + std::to_string(layout.points) + " points");
  const bool text = format_ == FileFormat::kNormals || format_ == FileFormat::kXyz;
  stream_buffer_.resize(kPendingBytes);  // LAS records go through the stream: a large buffer
  out_.rdbuf()->pubsetbuf(stream_buffer_.data(), static_cast<std::streamsize>(stream_buffer_.size()));
  out_.open(partial_, text ? std::ios::out : std::ios::out | std::ios::binary);
  if (!out_) fail(path, "cannot be written");
  if (format_ == FileFormat::kPcd) out_ << pcdHeader(layout);
  if (format_ == FileFormat::kPly) out_ << plyHeader(layout);
  if (format_ == FileFormat::kLas && !layout.las_source.empty()) {
    las_ = std::make_unique<LasWriter>(out_, path, layout.las_source, layout.las_source_bytes,
                                       layout.orientation_confidence);
  } else if (format_ == FileFormat::kLas) {
    std::array<double, 3> scale = layout.las_scale, offset = layout.las_offset;
    if (scale[0] == 0) fail(path, "LAS output needs a scale and offset");
    las_ = std::make_unique<LasWriter>(out_, path, scale, offset, layout.orientation_confidence);
  }
}

NormalsWriter::~NormalsWriter() {
  if (finished_) return;
  out_.close();
  std::remove(partial_.c_str());
}

void NormalsWriter::add(const std::array<double, 3>& xyz, const float* normal, float curvature, float confidence) {
  if (written_ == layout_.points) fail(path_, "more points than the " + std::to_string(layout_.points) + " announced");
  ++written_;
  if (format_ == FileFormat::kNormals || format_ == FileFormat::kXyz) {
    // Text lines, each number the shortest text that reads back to the same double or float:
    // .normals "nx ny nz", .xyz "x y z nx ny nz curvature".
    char line[7 * 32];
    char* end = line;
    auto put = [&](auto value, char after) {
      end = std::to_chars(end, line + sizeof line, value).ptr;
      *end++ = after;
    };
    if (format_ == FileFormat::kXyz)
      for (int c = 0; c < 3; ++c) put(xyz[c], ' ');
    put(normal[0], ' ');
    put(normal[1], ' ');
    if (format_ == FileFormat::kXyz) {
      put(normal[2], ' ');
      put(curvature, '\n');
    } else {
      put(normal[2], '\n');
    }
    pending_.append(line, end - line);
  } else if (format_ == FileFormat::kLas) {
    las_->add(xyz, {normal[0], normal[1], normal[2], curvature},
              layout_.orientation_confidence ? confidence : std::numeric_limits<float>::quiet_NaN());
  } else {
    char record[3 * 8 + 5 * 4];
    std::size_t at = 0;
    for (int c = 0; c < 3; ++c) {
      if (layout_.double_coordinates) {
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
    if (layout_.orientation_confidence) {
      std::memcpy(record + at, &confidence, 4);
      at += 4;
    }
    pending_.append(record, at);
  }
  if (pending_.size() >= kPendingBytes) writePending();
  if ((written_ & 0xffff) == 0) check();
}

void NormalsWriter::writePending() {
  out_.write(pending_.data(), static_cast<std::streamsize>(pending_.size()));
  pending_.clear();
}

void NormalsWriter::check() {
  if (!out_) fail(path_, "could not be written completely (is the disk full?)");
}

void NormalsWriter::finish() {
  if (written_ != layout_.points)
    fail(path_, std::to_string(written_) + " points written of the " + std::to_string(layout_.points) + " announced");
  writePending();
  if (las_) las_->finish();
  out_.flush();
  check();
  out_.close();
  if (out_.fail()) fail(path_, "could not be written completely (is the disk full?)");
  if (std::rename(partial_.c_str(), path_.c_str()) != 0) fail(path_, "cannot be given its name");
  finished_ = true;
}

}  // namespace io
}  // namespace pcl_dise
