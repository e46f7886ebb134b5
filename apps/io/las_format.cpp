#include "io/las_format.h"

#include "io/local_frame.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace pcl_dise {
namespace io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw std::runtime_error("'" + path + "': " + problem);
}

// Header fields (LAS 1.0-1.4 public header block; all little-endian).
constexpr std::size_t kHeaderSize12 = 227;  // LAS 1.0-1.2
constexpr std::size_t kHeaderSize14 = 375;
constexpr std::size_t kVersionMinorAt = 25, kHeaderSizeAt = 94, kPointDataAt = 96, kVlrCountAt = 100,
                      kPointFormatAt = 104, kRecordLengthAt = 105, kLegacyCountAt = 107, kScaleAt = 131,
                      kOffsetAt = 155, kBoundsAt = 179, kPointCountAt = 247;
// Shortest record of point data record formats 0..10.
constexpr std::uint16_t kMinRecordLength[] = {20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67};
constexpr std::uint16_t kExtraBytesRecordId = 4;
constexpr std::size_t kVlrHeaderSize = 54, kExtraBytesDescriptorSize = 192;
constexpr std::uint8_t kExtraBytesFloat = 9;

template <typename T>
T readAt(const std::string& bytes, std::size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

template <typename T>
void writeAt(std::string& bytes, std::size_t at, T value) {
  std::memcpy(&bytes[at], &value, sizeof value);
}

void writeText(std::string& bytes, std::size_t at, const std::string& text, std::size_t width) {
  std::memcpy(&bytes[at], text.data(), std::min(text.size(), width));
}

}  // namespace

LasHeader parseLasHeader(const std::string& bytes, const std::string& path, std::uint64_t file_size) {
  if (bytes.size() < kHeaderSize12 || bytes.compare(0, 4, "LASF") != 0)
    fail(path, "not a LAS file (no 'LASF' signature and " + std::to_string(kHeaderSize12) + "-byte header)");
  LasHeader las;
  las.version_minor = readAt<std::uint8_t>(bytes, kVersionMinorAt);
  const auto header_size = readAt<std::uint16_t>(bytes, kHeaderSizeAt);
  las.point_data = readAt<std::uint32_t>(bytes, kPointDataAt);
  const auto format_byte = readAt<std::uint8_t>(bytes, kPointFormatAt);
  las.record_length = readAt<std::uint16_t>(bytes, kRecordLengthAt);
  if (format_byte & 0xC0)
    fail(path, "compressed LAS (LAZ) is not supported; decompress it first (e.g. laszip -i in.laz -o out.las)");
  las.point_format = format_byte;
  if (las.point_format > 10) fail(path, "unknown point data record format " + std::to_string(las.point_format));
  if (las.record_length < kMinRecordLength[las.point_format])
    fail(path, "point records of " + std::to_string(las.record_length) + " bytes are too short for format " +
                   std::to_string(las.point_format) + " (at least " +
                   std::to_string(kMinRecordLength[las.point_format]) + ")");
  if (header_size < kHeaderSize12 || header_size > bytes.size() || las.point_data < header_size)
    fail(path, "header size " + std::to_string(header_size) + " and point data offset " +
                   std::to_string(las.point_data) + " do not fit a file of " + std::to_string(file_size) + " bytes");
  las.count = readAt<std::uint32_t>(bytes, kLegacyCountAt);
  if (las.version_minor >= 4 && header_size >= kHeaderSize14) {
    const auto count64 = readAt<std::uint64_t>(bytes, kPointCountAt);
    if (count64 != 0) las.count = count64;
  }
  if (las.point_data > file_size || las.count > (file_size - las.point_data) / las.record_length)
    fail(path, "the header promises " + std::to_string(las.count) + " points of " + std::to_string(las.record_length) +
                   " bytes from byte " + std::to_string(las.point_data) + ", more than the file holds");
  for (int c = 0; c < 3; ++c) {
    las.scale[c] = readAt<double>(bytes, kScaleAt + 8 * c);
    las.offset[c] = readAt<double>(bytes, kOffsetAt + 8 * c);
    if (!std::isfinite(las.scale[c]) || las.scale[c] == 0 || !std::isfinite(las.offset[c]))
      fail(path, "scale and offset must be finite and the scale not zero");
  }
  return las;
}

std::array<double, 3> lasCoordinates(const LasHeader& header, const char* record) {
  std::array<double, 3> xyz;
  for (int c = 0; c < 3; ++c) {
    std::int32_t stored;
    std::memcpy(&stored, record + 4 * c, sizeof stored);
    xyz[c] = stored * header.scale[c] + header.offset[c];
  }
  return xyz;
}

LasCloud parseLas(const std::string& bytes, const std::string& path) {
  const LasHeader header = parseLasHeader(bytes, path, bytes.size());
  LasCloud las;
  las.version_minor = header.version_minor;
  las.point_format = header.point_format;
  las.scale = header.scale;
  las.offset = header.offset;
  const std::uint64_t count = header.count;
  las.xyz.resize(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    las.xyz[i] = lasCoordinates(header, bytes.data() + header.point_data + i * header.record_length);
  }
  return las;
}

LasCloud readLas(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot be opened");
  std::ostringstream data;
  data << in.rdbuf();
  return parseLas(data.str(), path);
}

void chooseQuantization(const std::vector<std::array<double, 3>>& xyz, std::array<double, 3>& scale,
                        std::array<double, 3>& offset) {
  FiniteBounds bounds;
  for (const auto& p : xyz) bounds.add(p);
  chooseQuantization(bounds.lo.data(), bounds.hi.data(), scale, offset);
}

void chooseQuantization(const double lo[3], const double hi[3], std::array<double, 3>& scale,
                        std::array<double, 3>& offset) {
  for (int c = 0; c < 3; ++c) {
    offset[c] = std::round(0.5 * (lo[c] + hi[c]));
    const double reach = std::max(hi[c] - offset[c], offset[c] - lo[c]);
    // The smallest power of ten whose int32 range (with room to spare) holds every coordinate.
    scale[c] = std::pow(10.0, std::max(-9.0, std::ceil(std::log10(std::max(reach, 1e-300) / 2e9))));
  }
}

namespace {
constexpr std::size_t kFormat6Length = 30, kExtraBytes = 4 * sizeof(float);
constexpr std::size_t kWriterRecordLength = kFormat6Length + kExtraBytes;
constexpr std::size_t kWriterPointData = kHeaderSize14 + kVlrHeaderSize + 4 * kExtraBytesDescriptorSize;
}  // namespace

LasWriter::LasWriter(std::ostream& out, const std::string& path, const std::array<double, 3>& scale,
                     const std::array<double, 3>& offset)
    : out_(out), path_(path), scale_(scale), offset_(offset), record_(kWriterRecordLength, '\0') {
  for (int c = 0; c < 3; ++c) {
    lo_[c] = std::numeric_limits<double>::infinity();
    hi_[c] = -lo_[c];
  }
  out_.write(std::string(kWriterPointData, '\0').data(), kWriterPointData);  // the header, once the bounds are known
  writeAt<std::uint8_t>(record_, 14, 0x11);                                  // return 1 of 1
}

void LasWriter::add(const std::array<double, 3>& xyz, const NormalWithCurvature& normal) {
  for (int c = 0; c < 3; ++c) {
    const double v = xyz[c];
    if (!std::isfinite(v))
      fail(path_, "point " + std::to_string(count_) +
                      " has a non-finite coordinate, which LAS cannot hold "
                      "(write .pcd or .ply to keep such points)");
    const double stored = std::round((v - offset_[c]) / scale_[c]);
    if (stored < std::numeric_limits<std::int32_t>::min() || stored > std::numeric_limits<std::int32_t>::max())
      fail(path_, "point " + std::to_string(count_) + " does not fit the LAS scale and offset");
    writeAt(record_, 4 * c, static_cast<std::int32_t>(stored));
    lo_[c] = std::min(lo_[c], v);
    hi_[c] = std::max(hi_[c], v);
  }
  std::memcpy(&record_[kFormat6Length], normal.data(), kExtraBytes);
  out_.write(record_.data(), kWriterRecordLength);
  ++count_;
}

void LasWriter::finish() {
  std::string bytes(kWriterPointData, '\0');
  writeText(bytes, 0, "LASF", 4);
  writeAt<std::uint16_t>(bytes, 6, 0x10);  // global encoding: WKT (required for formats 6-10)
  writeAt<std::uint8_t>(bytes, 24, 1);
  writeAt<std::uint8_t>(bytes, kVersionMinorAt, 4);
  writeText(bytes, 26, "pcl_dise", 32);
  writeText(bytes, 58, "pcl_dise dise_normals", 32);
  writeAt<std::uint16_t>(bytes, kHeaderSizeAt, kHeaderSize14);
  writeAt<std::uint32_t>(bytes, kPointDataAt, kWriterPointData);
  writeAt<std::uint32_t>(bytes, kVlrCountAt, 1);
  writeAt<std::uint8_t>(bytes, kPointFormatAt, 6);
  writeAt<std::uint16_t>(bytes, kRecordLengthAt, kWriterRecordLength);  // legacy counts stay 0 (format 6)
  for (int c = 0; c < 3; ++c) {
    writeAt(bytes, kScaleAt + 8 * c, scale_[c]);
    writeAt(bytes, kOffsetAt + 8 * c, offset_[c]);
    writeAt(bytes, kBoundsAt + 16 * c, count_ == 0 ? 0.0 : hi_[c]);
    writeAt(bytes, kBoundsAt + 16 * c + 8, count_ == 0 ? 0.0 : lo_[c]);
  }
  writeAt<std::uint64_t>(bytes, kPointCountAt, count_);
  writeAt<std::uint64_t>(bytes, kPointCountAt + 8, count_);  // all first returns

  // The Extra Bytes VLR describing the four floats after each record.
  const std::size_t vlr = kHeaderSize14;
  writeText(bytes, vlr + 2, "LASF_Spec", 16);
  writeAt<std::uint16_t>(bytes, vlr + 18, kExtraBytesRecordId);
  writeAt<std::uint16_t>(bytes, vlr + 20, 4 * kExtraBytesDescriptorSize);
  writeText(bytes, vlr + 22, "normals and curvature", 32);
  const char* names[] = {"normal_x", "normal_y", "normal_z", "curvature"};
  for (int e = 0; e < 4; ++e) {
    const std::size_t d = vlr + kVlrHeaderSize + e * kExtraBytesDescriptorSize;
    writeAt<std::uint8_t>(bytes, d + 2, kExtraBytesFloat);
    writeText(bytes, d + 4, names[e], 32);
    writeText(bytes, d + 160, e < 3 ? "unit surface normal (DISE)" : "surface variation (DISE)", 32);
  }
  out_.seekp(0);
  out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void writeLas(const std::string& path, const std::vector<std::array<double, 3>>& xyz,
              const std::vector<NormalWithCurvature>& normals, const std::array<double, 3>& scale,
              const std::array<double, 3>& offset) {
  if (xyz.size() != normals.size()) fail(path, "normals and points differ in number");
  std::ofstream out(path, std::ios::binary);
  if (!out) fail(path, "cannot be written");
  LasWriter writer(out, path, scale, offset);
  for (std::size_t i = 0; i < xyz.size(); ++i) writer.add(xyz[i], normals[i]);
  writer.finish();
  if (!out.flush()) fail(path, "could not be written completely");
}

}  // namespace io
}  // namespace pcl_dise
