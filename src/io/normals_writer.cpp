#include "pcl_dise/io/normals_writer.h"
#include "file_access.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
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
  h << "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\n"
    << "FIELDS x y z normal_x normal_y normal_z curvature\n"
    << "SIZE " << size << ' ' << size << ' ' << size << " 4 4 4 4\nTYPE F F F F F F F\nCOUNT 1 1 1 1 1 1 1\n"
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
    << "end_header\n";
  return h.str();
}

}  // namespace

NormalsWriter::NormalsWriter(const std::string& path, const NormalsFileLayout& layout)
    : path_(path), partial_(path + ".partial"), ext_(extension(path)), layout_(layout) {
  if (ext_ != ".normals" && ext_ != ".pcd" && ext_ != ".ply" && ext_ != ".las" && ext_ != ".xyz")
    fail(path, "unknown output extension '" + ext_ + "' (expected .pcd, .ply, .las, .xyz or .normals)");
  if (layout.width && std::uint64_t(layout.width) * layout.height != layout.points)
    fail(path, "an organized layout of " + std::to_string(layout.width) + " x " + std::to_string(layout.height) +
                   " for " + std::to_string(layout.points) + " points");
  const bool text = ext_ == ".normals" || ext_ == ".xyz";
  out_.open(partial_, text ? std::ios::out : std::ios::out | std::ios::binary);
  if (!out_) fail(path, "cannot be written");
  if (ext_ == ".normals") out_.precision(7);
  if (ext_ == ".pcd") out_ << pcdHeader(layout);
  if (ext_ == ".ply") out_ << plyHeader(layout);
  if (ext_ == ".las" && !layout.las_source.empty()) {
    las_ = std::make_unique<LasWriter>(out_, path, layout.las_source);
  } else if (ext_ == ".las") {
    std::array<double, 3> scale = layout.las_scale, offset = layout.las_offset;
    if (scale[0] == 0) fail(path, "LAS output needs a scale and offset");
    las_ = std::make_unique<LasWriter>(out_, path, scale, offset);
  }
}

NormalsWriter::~NormalsWriter() {
  if (finished_) return;
  out_.close();
  std::remove(partial_.c_str());
}

void NormalsWriter::add(const std::array<double, 3>& xyz, const float* normal, float curvature) {
  if (written_ == layout_.points) fail(path_, "more points than the " + std::to_string(layout_.points) + " announced");
  ++written_;
  if (ext_ == ".normals") {
    out_ << normal[0] << ' ' << normal[1] << ' ' << normal[2] << '\n';
  } else if (ext_ == ".xyz") {
    // x y z nx ny nz curvature, each the shortest text that reads back to the same double or float.
    char line[7 * 32];
    char* end = line;
    for (int c = 0; c < 3; ++c) end = std::to_chars(end, line + sizeof line, xyz[c]).ptr, *end++ = ' ';
    for (int c = 0; c < 3; ++c) end = std::to_chars(end, line + sizeof line, normal[c]).ptr, *end++ = ' ';
    end = std::to_chars(end, line + sizeof line, curvature).ptr;
    *end++ = '\n';
    out_.write(line, end - line);
  } else if (ext_ == ".las") {
    las_->add(xyz, {normal[0], normal[1], normal[2], curvature});
  } else {
    char record[3 * 8 + 4 * 4];
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
    out_.write(record, static_cast<std::streamsize>(at + 16));
  }
  if ((written_ & 0xffff) == 0) check();
}

void NormalsWriter::check() {
  if (!out_) fail(path_, "could not be written completely (is the disk full?)");
}

void NormalsWriter::finish() {
  if (written_ != layout_.points)
    fail(path_, std::to_string(written_) + " points written of the " + std::to_string(layout_.points) + " announced");
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
