#include "pcl_dise/io/ply_reader.h"
#include "file_access.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace pcl_dise {
namespace io {
namespace {

using detail::fail;

}  // namespace

int plyTypeSize(const std::string& type, const std::string& path) {
  if (type == "char" || type == "uchar" || type == "int8" || type == "uint8") return 1;
  if (type == "short" || type == "ushort" || type == "int16" || type == "uint16") return 2;
  if (type == "int" || type == "uint" || type == "int32" || type == "uint32" || type == "float" || type == "float32")
    return 4;
  if (type == "double" || type == "float64") return 8;
  fail(path, "unknown PLY type '" + type + "'");
}

double plyValue(const std::string& type, const char* bytes, bool swap) {
  const int size = plyTypeSize(type, "");
  char raw[8];
  std::memcpy(raw, bytes, size);
  if (swap) std::reverse(raw, raw + size);
  auto as = [&](auto v) {
    std::memcpy(&v, raw, sizeof v);
    return static_cast<double>(v);
  };
  if (type == "char" || type == "int8") return as(std::int8_t());
  if (type == "uchar" || type == "uint8") return as(std::uint8_t());
  if (type == "short" || type == "int16") return as(std::int16_t());
  if (type == "ushort" || type == "uint16") return as(std::uint16_t());
  if (type == "int" || type == "int32") return as(std::int32_t());
  if (type == "uint" || type == "uint32") return as(std::uint32_t());
  return size == 4 ? as(float()) : as(double());
}

namespace {

// Reads values from the data after the header, as text or as binary of either byte order.
class Reader {
 public:
  Reader(const std::string& bytes, std::size_t at, bool binary, bool swap, const std::string& path)
      : bytes_(bytes), at_(at), binary_(binary), swap_(swap), path_(path) {}

  double value(const std::string& type) {
    if (!binary_) return text();
    const int size = plyTypeSize(type, path_);
    if (bytes_.size() - at_ < static_cast<std::size_t>(size) || at_ > bytes_.size()) fail(path_, "ends early");
    const double v = plyValue(type, bytes_.data() + at_, swap_);
    at_ += size;
    return v;
  }

  std::size_t remaining() const { return at_ < bytes_.size() ? bytes_.size() - at_ : 0; }

 private:
  double text() {
    while (at_ < bytes_.size() && std::isspace(static_cast<unsigned char>(bytes_[at_]))) ++at_;
    const std::size_t start = at_;
    while (at_ < bytes_.size() && !std::isspace(static_cast<unsigned char>(bytes_[at_]))) ++at_;
    if (start == at_) fail(path_, "ends early");
    const std::string token = bytes_.substr(start, at_ - start);
    char* end = nullptr;
    const double v = std::strtod(token.c_str(), &end);
    if (end == token.c_str() || *end != '\0') fail(path_, "'" + token + "' is not a number");
    return v;
  }

  const std::string& bytes_;
  std::size_t at_;
  bool binary_, swap_;
  const std::string& path_;
};

}  // namespace

PlyHeader parsePlyHeader(const std::string& bytes, const std::string& path) {
  if (bytes.compare(0, 3, "ply") != 0) fail(path, "is not a PLY file");
  PlyHeader header;
  std::string& format = header.format;
  std::vector<PlyElement>& elements = header.elements;
  std::size_t at = 0;
  for (bool in_header = true; in_header;) {
    if (at >= bytes.size()) fail(path, "the header has no end_header line");
    const std::size_t end = std::min(bytes.find('\n', at), bytes.size());
    std::istringstream line(bytes.substr(at, end - at));
    at = end + 1;
    std::string word;
    line >> word;
    if (word == "end_header") {
      in_header = false;
    } else if (word == "format") {
      line >> format;
    } else if (word == "element") {
      elements.emplace_back();
      std::string count;
      if (!(line >> elements.back().name >> count)) fail(path, "an element line has no name or count");
      // istream would wrap "-3" into a huge unsigned count: take digits only.
      const bool digits = count.size() <= 19 &&
                          std::all_of(count.begin(), count.end(), [](unsigned char c) { return std::isdigit(c); });
      if (!digits) fail(path, "element '" + elements.back().name + "' has count '" + count + "'");
      elements.back().count = std::stoull(count);
    } else if (word == "property") {
      if (elements.empty()) fail(path, "a property comes before any element");
      PlyProperty p;
      line >> p.type;
      if (p.type == "list") line >> p.count_type >> p.type;
      if (!(line >> p.name)) fail(path, "a property line has no name");
      plyTypeSize(p.type, path);
      if (!p.count_type.empty()) plyTypeSize(p.count_type, path);
      elements.back().properties.push_back(p);
    }
  }
  if (format != "ascii" && format != "binary_little_endian" && format != "binary_big_endian")
    fail(path, "has PLY format '" + format + "' (ascii, binary_little_endian and binary_big_endian are read)");
  header.data_at = at;
  return header;
}

std::string plyNumpyType(const std::string& type) {
  static const char* const names[][3] = {
      {"char", "int8", "i1"}, {"uchar", "uint8", "u1"}, {"short", "int16", "i2"},   {"ushort", "uint16", "u2"},
      {"int", "int32", "i4"}, {"uint", "uint32", "u4"}, {"float", "float32", "f4"}, {"double", "float64", "f8"}};
  for (const auto& n : names)
    if (type == n[0] || type == n[1]) return n[2];
  return "f8";
}

PlyData parsePly(const std::string& bytes, const std::string& path, bool all_fields) {
  const PlyHeader header = parsePlyHeader(bytes, path);
  const std::string& format = header.format;
  const std::size_t at = header.data_at;
  const bool binary = format != "ascii";
  Reader reader(bytes, at, binary, format == "binary_big_endian", path);
  PlyData data;
  for (const auto& element : header.elements) {
    const bool vertex = element.name == "vertex", face = element.name == "face";
    if (vertex) {
      int found = 0;
      for (const auto& p : element.properties) found += (p.name == "x") + (p.name == "y") + (p.name == "z");
      if (found < 3) fail(path, "its vertices have no x, y and z");
    }
    if (element.properties.empty()) continue;  // entries without properties hold no data
    // Every entry takes at least a byte of the file: a count beyond that is not believed.
    if (element.count > reader.remaining())
      fail(path, "element '" + element.name + "' claims " + std::to_string(element.count) +
                     " entries, more than the file holds");
    if (vertex) data.vertices.reserve(element.count);
    std::vector<int> column;  // per property of a vertex: its field (-1: x, y, z or a list)
    if (vertex && all_fields)
      for (const auto& p : element.properties) {
        const bool kept = p.count_type.empty() && p.name != "x" && p.name != "y" && p.name != "z";
        column.push_back(kept ? static_cast<int>(data.vertex_fields.size()) : -1);
        if (kept) data.vertex_fields.push_back({p.name, plyNumpyType(p.type), {}});
      }
    for (unsigned long long i = 0; i < element.count; ++i) {
      std::array<double, 3> v{};
      std::vector<long> ids;
      for (std::size_t k = 0; k < element.properties.size(); ++k) {
        const PlyProperty& p = element.properties[k];
        if (!p.count_type.empty()) {
          const double n = reader.value(p.count_type);
          if (!(n >= 0) || n > static_cast<double>(reader.remaining()))
            fail(path, "a list claims " + std::to_string(n) + " entries");
          for (long j = 0; j < static_cast<long>(n); ++j) {
            const double id = reader.value(p.type);
            if (face && (p.name == "vertex_indices" || p.name == "vertex_index"))
              ids.push_back(id >= 0 && id < 2147483648.0 ? static_cast<long>(id) : -1);  // -1: no vertex
          }
          continue;
        }
        const double value = reader.value(p.type);
        for (int c = 0; c < 3; ++c)
          if (p.name == std::string(1, "xyz"[c])) v[c] = value;
        if (!column.empty() && column[k] >= 0) data.vertex_fields[column[k]].values.push_back(value);
      }
      if (vertex) data.vertices.push_back(v);
      if (face) data.faces.push_back(std::move(ids));
    }
  }
  return data;
}

PlyData readPly(const std::string& path, bool all_fields) {
  return parsePly(detail::readWholeFile(path), path, all_fields);
}

}  // namespace io
}  // namespace pcl_dise
