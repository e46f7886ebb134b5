#include "pcl_dise/io/las_format.h"
#include "file_access.h"

#include "pcl_dise/io/laz_format.h"
#include "pcl_dise/io/local_frame.h"

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

using detail::fail;

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
  las.compressed = (format_byte & 0xC0) != 0;  // LASzip sets bit 7 (bit 6 in early files)
  las.point_format = format_byte & 0x3F;
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
  if (las.point_data > file_size || (!las.compressed && las.count > (file_size - las.point_data) / las.record_length))
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
constexpr std::size_t kEvlrHeaderSize = 60;
constexpr std::size_t kGlobalEncodingAt = 6, kWaveformDataAt = 227, kEvlrStartAt = 235, kEvlrCountAt = 243,
                      kLegacyByReturnAt = 111, kByReturnAt = 255;
constexpr std::uint16_t kWaveformDataRecordId = 65535;
// Where formats 4, 5, 9 and 10 hold the wave packet descriptor index (0: no waveform).
int wavePacketIndexAt(std::uint8_t format) {
  switch (format) {
    case 4: return 28;
    case 5: return 34;
    case 9: return 30;
    case 10: return 38;
    default: return -1;
  }
}

std::string vlrUser(const std::string& bytes, std::size_t at) {
  std::string user = bytes.substr(at + 2, 16);
  return user.substr(0, user.find('\0'));
}

// Bytes one extra-bytes descriptor covers; 0 for a type the LAS 1.4 specification does not define.
std::size_t describedBytes(const char* descriptor) {
  const auto type = static_cast<std::uint8_t>(descriptor[2]);
  const auto options = static_cast<std::uint8_t>(descriptor[3]);
  if (type == 0) return options;  // undocumented extra bytes: their number in `options`
  if (type > 30) return 0;
  static const std::size_t kScalar[10] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  return kScalar[(type - 1) % 10] * (type <= 10 ? 1 : type <= 20 ? 2 : 3);  // 11-30: deprecated pairs, triples
}

std::string undocumentedDescriptors(std::size_t bytes) {
  std::string out;
  for (; bytes > 0; bytes -= std::min<std::size_t>(bytes, 255)) {
    std::string d(kExtraBytesDescriptorSize, '\0');
    writeAt<std::uint8_t>(d, 3, static_cast<std::uint8_t>(std::min<std::size_t>(bytes, 255)));
    writeText(d, 4, "undocumented", 32);
    out += d;
  }
  return out;
}

// Ours: the normal and curvature as four floats, under PDAL's dimension names.
std::string normalDescriptors() {
  std::string out(4 * kExtraBytesDescriptorSize, '\0');
  const char* names[] = {"NormalX", "NormalY", "NormalZ", "Curvature"};
  for (int e = 0; e < 4; ++e) {
    const std::size_t d = e * kExtraBytesDescriptorSize;
    writeAt<std::uint8_t>(out, d + 2, kExtraBytesFloat);
    writeText(out, d + 4, names[e], 32);
    writeText(out, d + 160, e < 3 ? "unit surface normal (DISE)" : "surface variation (DISE)", 32);
  }
  return out;
}

// Ours too, where a run gives them: a point value, a float.
std::string valueDescriptor(PointValue value) {
  std::string out(kExtraBytesDescriptorSize, '\0');
  writeAt<std::uint8_t>(out, 2, kExtraBytesFloat);
  writeText(out, 4, namesOf(value).las_name, 32);
  writeText(out, 160, namesOf(value).description, 32);
  return out;
}

std::string valueDescriptors(const std::vector<PointValue>& values) {
  std::string out;
  for (const PointValue value : values) out += valueDescriptor(value);
  return out;
}

std::string extraBytesVlr(const std::string& descriptors) {
  std::string vlr(kVlrHeaderSize, '\0');
  writeText(vlr, 2, "LASF_Spec", 16);
  writeAt<std::uint16_t>(vlr, 18, kExtraBytesRecordId);
  writeAt<std::uint16_t>(vlr, 20, static_cast<std::uint16_t>(descriptors.size()));
  writeText(vlr, 22, "extra bytes", 32);
  return vlr + descriptors;
}
}  // namespace

// A LAS input whose records, VLRs and EVLRs the output keeps.
struct LasWriter::Source {
  std::string path;
  std::ifstream in;
  std::unique_ptr<LazReader> laz;              // a LAZ source's records, decoded a few chunks at a time, or
  std::shared_ptr<const std::string> decoded;  // already decoded (LasCloud::decoded)
  std::string laz_record;                      // the record laz handed out last
  LasHeader header;
  std::string header_bytes;  // the public header block, 375 bytes (LAS 1.4 fields zero where older)
  std::string vlrs;          // every VLR but the Extra Bytes one, then the extended Extra Bytes VLR
  std::uint32_t vlr_count = 0;
  std::string evlrs;
  std::uint32_t evlr_count = 0;
  std::uint64_t read = 0;
  // Where the normal goes in an output record: after the source's record, or over the NormalX,
  // NormalY, NormalZ and Curvature floats of a source that has them (an output of ours read again);
  // likewise each point value (0: none, neither asked for nor in the source).
  std::size_t normal_at = 0, record_length = 0;
  std::array<std::size_t, kPointValueCount> value_at{};

  Source(const std::string& source, std::shared_ptr<const std::string> source_bytes,
         const std::vector<PointValue>& values)
      : path(source), in(source, std::ios::binary), decoded(std::move(source_bytes)) {
    if (!in) fail(path, "cannot be opened");
    in.seekg(0, std::ios::end);
    const auto file_size = static_cast<std::uint64_t>(in.tellg());
    // Everything before the point data: the header, the VLRs (parseLasHeader checks the offset).
    std::string head(static_cast<std::size_t>(std::min<std::uint64_t>(file_size, kHeaderSize14)), '\0');
    in.seekg(0);
    in.read(&head[0], static_cast<std::streamsize>(head.size()));
    std::string before_points = head;
    if (head.size() > kPointDataAt + 4) {
      before_points.resize(
          static_cast<std::size_t>(std::min<std::uint64_t>(file_size, readAt<std::uint32_t>(head, kPointDataAt))));
      in.seekg(0);
      in.read(&before_points[0], static_cast<std::streamsize>(before_points.size()));
    }
    header = parseLasHeader(before_points, path, file_size);
    const auto header_size = readAt<std::uint16_t>(head, kHeaderSizeAt);
    header_bytes = before_points.substr(0, std::min<std::size_t>(header_size, kHeaderSize14));
    header_bytes.resize(kHeaderSize14, '\0');
    if (header.version_minor < 4 || header_size < kHeaderSize14)
      std::fill(header_bytes.begin() + kWaveformDataAt, header_bytes.end(), '\0');

    std::string descriptors;
    std::size_t at = header_size;
    const auto count = readAt<std::uint32_t>(before_points, kVlrCountAt);
    for (std::uint32_t v = 0; v < count; ++v) {
      if (at + kVlrHeaderSize > before_points.size() ||
          at + kVlrHeaderSize + readAt<std::uint16_t>(before_points, at + 20) > before_points.size())
        fail(path, "its VLR " + std::to_string(v) + " does not fit before the point data");
      const std::size_t length = kVlrHeaderSize + readAt<std::uint16_t>(before_points, at + 20);
      if (vlrUser(before_points, at) == "LASF_Spec" &&
          readAt<std::uint16_t>(before_points, at + 18) == kExtraBytesRecordId) {
        descriptors += before_points.substr(at + kVlrHeaderSize, length - kVlrHeaderSize);
      } else if (vlrUser(before_points, at) == "laszip encoded") {
        // how the source was compressed: a LAZ output describes its own compression
      } else {
        vlrs += before_points.substr(at, length);
        ++vlr_count;
      }
      at += length;
    }
    if (header.version_minor >= 4 && header_size >= kHeaderSize14) readEvlrs(head, file_size, descriptors);
    std::string extra_bytes = keptDescriptors(descriptors);
    normal_at = findDescriptors(extra_bytes, normalDescriptors());
    for (std::size_t v = 0; v < kPointValueCount; ++v)
      value_at[v] = findDescriptors(extra_bytes, valueDescriptor(static_cast<PointValue>(v)));
    record_length = header.record_length;
    if (normal_at == 0) {
      normal_at = record_length;
      record_length += kExtraBytes;
      extra_bytes += normalDescriptors();
    }
    for (const PointValue value : values) {
      std::size_t& at = value_at[static_cast<std::size_t>(value)];
      if (at != 0) continue;
      at = record_length;
      record_length += sizeof(float);
      extra_bytes += valueDescriptor(value);
    }
    if (extra_bytes.size() > 65535 || record_length > 65535)
      fail(path, "its point records leave no room for our extra bytes in LAS");
    vlrs += extraBytesVlr(extra_bytes);
    ++vlr_count;
    if (decoded && decoded->size() != header.point_data + header.count * header.record_length)
      fail(path, "its decoded points do not match its header");
    if (header.compressed && !decoded) laz = std::make_unique<LazReader>(path);
    restart();
  }

  void readEvlrs(const std::string& head, std::uint64_t file_size, std::string& descriptors) {
    std::uint64_t at = readAt<std::uint64_t>(head, kEvlrStartAt);
    const auto count = readAt<std::uint32_t>(head, kEvlrCountAt);
    for (std::uint32_t v = 0; v < count; ++v) {
      std::string evlr(kEvlrHeaderSize, '\0');
      in.seekg(static_cast<std::streamoff>(at));
      if (at + kEvlrHeaderSize > file_size || !in.read(&evlr[0], kEvlrHeaderSize))
        fail(path, "its EVLR " + std::to_string(v) + " lies beyond the end of the file");
      const auto length = readAt<std::uint64_t>(evlr, 20);
      if (length > file_size - at - kEvlrHeaderSize)
        fail(path, "its EVLR " + std::to_string(v) + " lies beyond the end of the file");
      std::string payload(static_cast<std::size_t>(length), '\0');
      in.read(&payload[0], static_cast<std::streamsize>(length));
      const bool spec = vlrUser(evlr, 0) == "LASF_Spec";
      const auto id = readAt<std::uint16_t>(evlr, 18);
      if (spec && id == kExtraBytesRecordId) {
        descriptors += payload;
      } else if (!(spec && id == kWaveformDataRecordId)) {
        evlrs += evlr + payload;
        ++evlr_count;
      }
      at += kEvlrHeaderSize + length;
    }
  }

  // The source's descriptors where they describe its extra bytes exactly (any bytes left over
  // become undocumented ones); where they do not add up, undocumented descriptors for all of them.
  std::string keptDescriptors(const std::string& descriptors) const {
    const std::size_t extra = header.record_length - kMinRecordLength[header.point_format];
    std::size_t described = 0;
    bool valid = descriptors.size() % kExtraBytesDescriptorSize == 0;
    for (std::size_t d = 0; valid && d < descriptors.size(); d += kExtraBytesDescriptorSize) {
      const std::size_t bytes = describedBytes(descriptors.data() + d);
      valid = bytes > 0;
      described += bytes;
    }
    if (!valid || described > extra) return undocumentedDescriptors(extra);
    return descriptors + undocumentedDescriptors(extra - described);
  }

  // The record byte where the descriptors hold `ours` (floats, by name) one after another; else 0.
  std::size_t findDescriptors(const std::string& descriptors, const std::string& ours) const {
    std::size_t at = kMinRecordLength[header.point_format];
    for (std::size_t d = 0; d < descriptors.size(); d += kExtraBytesDescriptorSize) {
      bool same = d + ours.size() <= descriptors.size();
      for (std::size_t e = 0; same && e < ours.size() / kExtraBytesDescriptorSize; ++e) {
        const char* theirs = descriptors.data() + d + e * kExtraBytesDescriptorSize;
        same = theirs[2] == kExtraBytesFloat &&
               std::strncmp(theirs + 4, ours.data() + e * kExtraBytesDescriptorSize + 4, 32) == 0;
      }
      if (same) return at;
      at += describedBytes(descriptors.data() + d);
    }
    return 0;
  }

  void restart() {
    in.clear();
    in.seekg(static_cast<std::streamoff>(header.point_data));
    read = 0;
    if (laz) laz->restart();
  }

  bool nextRecord(char* record) {
    if (decoded) {
      std::memcpy(record, decoded->data() + header.point_data + read * header.record_length, header.record_length);
      return true;  // next() stops at header.count
    }
    if (!laz) return static_cast<bool>(in.read(record, header.record_length));
    laz_record.clear();  // the reader keeps the rest of its chunks decoded
    if (laz->read(1, laz_record) == 0) return false;
    std::memcpy(record, laz_record.data(), header.record_length);
    return true;
  }

  void next(char* record) {
    if (read == header.count || !nextRecord(record))
      fail(path, "ends after " + std::to_string(read) + " point records, more points came");
    ++read;
    if (const int index = wavePacketIndexAt(header.point_format); index >= 0) record[index] = 0;
  }
};

LasWriter::LasWriter(std::ostream& out, const std::string& path, const std::array<double, 3>& scale,
                     const std::array<double, 3>& offset, const std::vector<PointValue>& values)
    : out_(out),
      path_(path),
      scale_(scale),
      offset_(offset),
      values_(values),
      record_(kFormat6Length + kExtraBytes + values.size() * sizeof(float), '\0') {
  for (std::size_t v = 0; v < values.size(); ++v)
    value_at_[static_cast<std::size_t>(values[v])] = kFormat6Length + kExtraBytes + v * sizeof(float);
  for (int c = 0; c < 3; ++c) {
    lo_[c] = std::numeric_limits<double>::infinity();
    hi_[c] = -lo_[c];
  }
  if (isLazPath(path))
    laz_ = std::make_unique<LazChunkWriter>(out_, path, 6, static_cast<std::uint16_t>(record_.size()));
  const std::size_t point_data =
      kHeaderSize14 + kVlrHeaderSize + ourDescriptors().size() + (laz_ ? laz_->vlr().size() : 0);
  out_.write(std::string(point_data, '\0').data(), point_data);  // the header, once the bounds are known
  if (laz_) laz_->begin();
  writeAt<std::uint8_t>(record_, 14, 0x11);  // return 1 of 1
}

LasWriter::LasWriter(std::ostream& out, const std::string& path, const std::string& source,
                     std::shared_ptr<const std::string> source_bytes, const std::vector<PointValue>& values)
    : out_(out),
      path_(path),
      values_(values),
      source_(std::make_unique<Source>(source, std::move(source_bytes), values)) {
  value_at_ = source_->value_at;
  record_.assign(source_->record_length, '\0');
  if (isLazPath(path))
    laz_ = std::make_unique<LazChunkWriter>(out_, path, source_->header.point_format,
                                            static_cast<std::uint16_t>(record_.size()));
  const std::size_t point_data = kHeaderSize14 + source_->vlrs.size() + (laz_ ? laz_->vlr().size() : 0);
  out_.write(std::string(point_data, '\0').data(), static_cast<std::streamsize>(point_data));
  if (laz_) laz_->begin();
}

LasWriter::~LasWriter() = default;

std::string LasWriter::ourDescriptors() const { return normalDescriptors() + valueDescriptors(values_); }

void LasWriter::add(const std::array<double, 3>& xyz, const NormalWithCurvature& normal, const float* values) {
  const std::size_t normal_at = source_ ? source_->normal_at : kFormat6Length;
  if (source_) {
    source_->next(&record_[0]);
  } else {
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
  }
  std::memcpy(&record_[normal_at], normal.data(), kExtraBytes);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const std::size_t at : value_at_)  // a source's own values, where this run gives none
    if (at != 0) std::memcpy(&record_[at], &nan, sizeof nan);
  for (std::size_t v = 0; v < values_.size(); ++v)
    std::memcpy(&record_[value_at_[static_cast<std::size_t>(values_[v])]], values + v, sizeof(float));
  if (laz_)
    laz_->add(record_.data());
  else
    out_.write(record_.data(), static_cast<std::streamsize>(record_.size()));
  ++count_;
}

void LasWriter::finish() {
  if (laz_) laz_->finish();  // the chunks and their table; EVLRs follow them
  std::string bytes;
  if (source_) {
    const Source& source = *source_;
    if (count_ != source.header.count)
      fail(path_, std::to_string(count_) + " points came for the " + std::to_string(source.header.count) +
                      " of the LAS input '" + source.path + "'");
    const auto evlr_start = static_cast<std::uint64_t>(out_.tellp());
    out_.write(source.evlrs.data(), static_cast<std::streamsize>(source.evlrs.size()));
    bytes = source.header_bytes;
    if (wavePacketIndexAt(source.header.point_format) >= 0)  // no waveform packets, internal or external
      writeAt<std::uint16_t>(bytes, kGlobalEncodingAt, readAt<std::uint16_t>(bytes, kGlobalEncodingAt) & ~0x6u);
    if (source.header.version_minor < 4) {
      writeAt<std::uint64_t>(bytes, kPointCountAt, count_);
      for (int r = 0; r < 5; ++r)
        writeAt<std::uint64_t>(bytes, kByReturnAt + 8 * r, readAt<std::uint32_t>(bytes, kLegacyByReturnAt + 4 * r));
    }
    writeAt<std::uint64_t>(bytes, kWaveformDataAt, 0);
    writeAt<std::uint64_t>(bytes, kEvlrStartAt, source.evlr_count > 0 ? evlr_start : 0);
    writeAt<std::uint32_t>(bytes, kEvlrCountAt, source.evlr_count);
    writeAt<std::uint32_t>(bytes, kVlrCountAt, source.vlr_count);
    writeAt<std::uint8_t>(bytes, kPointFormatAt, source.header.point_format);
    bytes += source.vlrs;
  } else {
    bytes.assign(kHeaderSize14, '\0');
    writeText(bytes, 0, "LASF", 4);
    writeAt<std::uint16_t>(bytes, kGlobalEncodingAt, 0x10);  // WKT (required for formats 6-10)
    writeAt<std::uint8_t>(bytes, 24, 1);
    writeText(bytes, 26, "pcl_dise", 32);
    writeAt<std::uint32_t>(bytes, kVlrCountAt, 1);
    writeAt<std::uint8_t>(bytes, kPointFormatAt, 6);  // legacy counts stay 0 (format 6)
    for (int c = 0; c < 3; ++c) {
      writeAt(bytes, kScaleAt + 8 * c, scale_[c]);
      writeAt(bytes, kOffsetAt + 8 * c, offset_[c]);
      writeAt(bytes, kBoundsAt + 16 * c, count_ == 0 ? 0.0 : hi_[c]);
      writeAt(bytes, kBoundsAt + 16 * c + 8, count_ == 0 ? 0.0 : lo_[c]);
    }
    writeAt<std::uint64_t>(bytes, kPointCountAt, count_);
    writeAt<std::uint64_t>(bytes, kByReturnAt, count_);  // all first returns
    bytes += extraBytesVlr(ourDescriptors());
  }
  if (laz_) {
    bytes += laz_->vlr();
    writeAt<std::uint32_t>(bytes, kVlrCountAt, readAt<std::uint32_t>(bytes, kVlrCountAt) + 1);
    writeAt<std::uint8_t>(bytes, kPointFormatAt, readAt<std::uint8_t>(bytes, kPointFormatAt) | 0x80);
  }
  writeAt<std::uint8_t>(bytes, kVersionMinorAt, 4);
  std::fill(bytes.begin() + 58, bytes.begin() + 90, '\0');
  writeText(bytes, 58, "pcl_dise dise_normals", 32);
  writeAt<std::uint16_t>(bytes, kHeaderSizeAt, kHeaderSize14);
  writeAt<std::uint32_t>(bytes, kPointDataAt, static_cast<std::uint32_t>(bytes.size()));
  writeAt<std::uint16_t>(bytes, kRecordLengthAt, static_cast<std::uint16_t>(record_.size()));
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

namespace {

// A dimension of a point record: `bits` bits from bit `shift` of the value of `type` at byte `at`.
struct LasDimension {
  const char* name;
  const char* type;
  int at, shift, bits;
};

std::vector<LasDimension> lasDimensions(int format) {
  std::vector<LasDimension> d = {{"Intensity", "u2", 12, 0, 16}};
  if (format <= 5) {
    d.insert(d.end(), {{"ReturnNumber", "u1", 14, 0, 3},
                       {"NumberOfReturns", "u1", 14, 3, 3},
                       {"ScanDirectionFlag", "u1", 14, 6, 1},
                       {"EdgeOfFlightLine", "u1", 14, 7, 1},
                       {"Classification", "u1", 15, 0, 5},
                       {"Synthetic", "u1", 15, 5, 1},
                       {"KeyPoint", "u1", 15, 6, 1},
                       {"Withheld", "u1", 15, 7, 1},
                       {"ScanAngleRank", "i1", 16, 0, 8},
                       {"UserData", "u1", 17, 0, 8},
                       {"PointSourceId", "u2", 18, 0, 16}});
    if (format == 1 || format >= 3) d.push_back({"GpsTime", "f8", 20, 0, 64});
    const int rgb = format == 2 ? 20 : (format == 3 || format == 5) ? 28 : -1;
    if (rgb > 0)
      d.insert(d.end(), {{"Red", "u2", rgb, 0, 16}, {"Green", "u2", rgb + 2, 0, 16}, {"Blue", "u2", rgb + 4, 0, 16}});
  } else {
    d.insert(d.end(), {{"ReturnNumber", "u1", 14, 0, 4},
                       {"NumberOfReturns", "u1", 14, 4, 4},
                       {"Synthetic", "u1", 15, 0, 1},
                       {"KeyPoint", "u1", 15, 1, 1},
                       {"Withheld", "u1", 15, 2, 1},
                       {"Overlap", "u1", 15, 3, 1},
                       {"ScanChannel", "u1", 15, 4, 2},
                       {"ScanDirectionFlag", "u1", 15, 6, 1},
                       {"EdgeOfFlightLine", "u1", 15, 7, 1},
                       {"Classification", "u1", 16, 0, 8},
                       {"UserData", "u1", 17, 0, 8},
                       {"ScanAngleRank", "i2", 18, 0, 16},
                       {"PointSourceId", "u2", 20, 0, 16},
                       {"GpsTime", "f8", 22, 0, 64}});
    if (format == 7 || format == 8 || format == 10)
      d.insert(d.end(), {{"Red", "u2", 30, 0, 16}, {"Green", "u2", 32, 0, 16}, {"Blue", "u2", 34, 0, 16}});
    if (format == 8 || format == 10) d.push_back({"Infrared", "u2", 36, 0, 16});
  }
  return d;
}

// The extra bytes the Extra Bytes VLR describes, as dimensions from the end of the format's
// record; undocumented bytes and deprecated arrays are skipped.
std::vector<std::pair<std::string, LasDimension>> lasExtraDimensions(const std::string& bytes,
                                                                     const LasHeader& header) {
  static const char* const types[] = {"", "u1", "i1", "u2", "i2", "u4", "i4", "u8", "i8", "f4", "f8"};
  std::vector<std::pair<std::string, LasDimension>> extra;
  const std::size_t header_size = readAt<std::uint16_t>(bytes, kHeaderSizeAt);
  const auto vlr_count = readAt<std::uint32_t>(bytes, kVlrCountAt);
  std::size_t at = header_size;
  int record_at = kMinRecordLength[header.point_format];
  for (std::uint32_t v = 0; v < vlr_count && at + kVlrHeaderSize <= header.point_data; ++v) {
    const std::size_t length = readAt<std::uint16_t>(bytes, at + 20);
    if (at + kVlrHeaderSize + length > header.point_data) break;
    if (vlrUser(bytes, at) == "LASF_Spec" && readAt<std::uint16_t>(bytes, at + 18) == kExtraBytesRecordId) {
      for (std::size_t d = 0; d + kExtraBytesDescriptorSize <= length; d += kExtraBytesDescriptorSize) {
        const char* descriptor = bytes.data() + at + kVlrHeaderSize + d;
        const int type = static_cast<unsigned char>(descriptor[2]);
        const std::size_t bytes = describedBytes(descriptor);
        if (bytes == 0 || record_at + bytes > header.record_length) return extra;
        if (type >= 1 && type <= 10)  // one value each (undocumented bytes and deprecated arrays are skipped)
          extra.push_back(
              {std::string(descriptor + 4, strnlen(descriptor + 4, 32)), {"", types[type], record_at, 0, 64}});
        record_at += static_cast<int>(bytes);
      }
    }
    at += kVlrHeaderSize + length;
  }
  return extra;
}

}  // namespace

LasCloud parseLas(const std::string& bytes, const std::string& path, bool all_fields) {
  const LasHeader header = parseLasHeader(bytes, path, bytes.size());
  if (header.compressed) {
    auto decoded = std::make_shared<const std::string>(decompressLaz(bytes, path));
    LasCloud las = parseLas(*decoded, path, all_fields);
    las.decoded = std::move(decoded);
    return las;
  }
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
  if (!all_fields) return las;
  std::vector<std::pair<std::string, LasDimension>> dimensions;
  for (const LasDimension& d : lasDimensions(header.point_format)) dimensions.push_back({d.name, d});
  for (auto& extra : lasExtraDimensions(bytes, header)) dimensions.push_back(std::move(extra));
  for (const auto& [name, d] : dimensions) {
    PointField field{name, d.type, std::vector<double>(count)};
    const ScalarType type = scalarTypeOfNumpy(d.type);
    for (std::uint64_t i = 0; i < count; ++i) {
      const char* record = bytes.data() + header.point_data + i * header.record_length;
      double v = scalarValue(type, record + d.at);
      if (d.bits < 8) v = static_cast<double>((static_cast<unsigned>(v) >> d.shift) & ((1u << d.bits) - 1));
      field.values[i] = v;
    }
    las.fields.push_back(std::move(field));
  }
  return las;
}

LasCloud readLas(const std::string& path, bool all_fields) {
  return parseLas(detail::readWholeFile(path), path, all_fields);
}

}  // namespace io
}  // namespace pcl_dise
