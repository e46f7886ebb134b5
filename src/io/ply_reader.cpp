#include "pcl_dise/io/ply_reader.h"
#include "file_access.h"

#include <algorithm>
#include <cctype>
#include <charconv>
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

PlyScalar plyScalar(const std::string& type, const std::string& path) {
  static const struct {
    const char *name, *alias;
    PlyScalar scalar;
  } kTypes[] = {{"char", "int8", {PlyScalar::Int8, 1}},        {"uchar", "uint8", {PlyScalar::Uint8, 1}},
                {"short", "int16", {PlyScalar::Int16, 2}},     {"ushort", "uint16", {PlyScalar::Uint16, 2}},
                {"int", "int32", {PlyScalar::Int32, 4}},       {"uint", "uint32", {PlyScalar::Uint32, 4}},
                {"float", "float32", {PlyScalar::Float32, 4}}, {"double", "float64", {PlyScalar::Float64, 8}}};
  for (const auto& t : kTypes)
    if (type == t.name || type == t.alias) return t.scalar;
  fail(path, "unknown PLY type '" + type + "'");
}

double plyValue(PlyScalar scalar, const char* bytes, bool swap) {
  const bool real = scalar.kind == PlyScalar::Float32 || scalar.kind == PlyScalar::Float64;
  const bool is_signed =
      scalar.kind == PlyScalar::Int8 || scalar.kind == PlyScalar::Int16 || scalar.kind == PlyScalar::Int32;
  return scalarValue({real ? 'F' : is_signed ? 'I' : 'U', scalar.size}, bytes, swap);
}

namespace {

// Reads values from the data after the header, as text or as binary of either byte order.
class Reader {
 public:
  Reader(const std::string& bytes, std::size_t at, bool binary, bool swap, const std::string& path)
      : bytes_(bytes), at_(at), binary_(binary), swap_(swap), path_(path) {}

  double value(PlyScalar scalar) {
    if (!binary_) return text();
    if (bytes_.size() - at_ < static_cast<std::size_t>(scalar.size) || at_ > bytes_.size()) fail(path_, "ends early");
    const double v = plyValue(scalar, bytes_.data() + at_, swap_);
    at_ += scalar.size;
    return v;
  }

  std::size_t remaining() const { return at_ < bytes_.size() ? bytes_.size() - at_ : 0; }

  /** Binary data: the next `size` bytes (checked), skipped. */
  const char* take(std::size_t size) {
    if (remaining() < size) fail(path_, "ends early");
    const char* p = bytes_.data() + at_;
    at_ += size;
    return p;
  }

 private:
  double text() {
    while (at_ < bytes_.size() && std::isspace(static_cast<unsigned char>(bytes_[at_]))) ++at_;
    const std::size_t start = at_;
    while (at_ < bytes_.size() && !std::isspace(static_cast<unsigned char>(bytes_[at_]))) ++at_;
    if (start == at_) fail(path_, "ends early");
    double v;
    const auto [end, error] = std::from_chars(bytes_.data() + start, bytes_.data() + at_, v);
    if (error == std::errc() && end == bytes_.data() + at_) return v;
    const std::string token = bytes_.substr(start, at_ - start);  // '+', hexadecimal, out of range: strtod
    char* token_end = nullptr;
    v = std::strtod(token.c_str(), &token_end);
    if (token_end == token.c_str() || *token_end != '\0') fail(path_, "'" + token + "' is not a number");
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
      p.scalar = plyScalar(p.type, path);
      if (!p.count_type.empty()) p.count_scalar = plyScalar(p.count_type, path);
      elements.back().properties.push_back(p);
    }
  }
  if (format != "ascii" && format != "binary_little_endian" && format != "binary_big_endian")
    fail(path, "has PLY format '" + format + "' (ascii, binary_little_endian and binary_big_endian are read)");
  header.data_at = at;
  return header;
}

std::string plyNumpyType(PlyScalar scalar) {
  static const char* const kCodes[] = {"i1", "u1", "i2", "u2", "i4", "u4", "f4", "f8"};
  return kCodes[scalar.kind];
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
        if (kept) data.vertex_fields.push_back({p.name, plyNumpyType(p.scalar), {}});
      }
    // Per property, read once: its axis (0, 1, 2 for x, y, z; -1 otherwise) and whether it holds
    // a face's vertex indices.
    std::vector<int> axis(element.properties.size(), -1);
    std::vector<char> vertex_indices(element.properties.size(), 0);
    for (std::size_t k = 0; k < element.properties.size(); ++k) {
      const std::string& name = element.properties[k].name;
      if (name == "x" || name == "y" || name == "z") axis[k] = name[0] - 'x';
      vertex_indices[k] = face && (name == "vertex_indices" || name == "vertex_index");
    }
    // Binary vertices of scalars only: records of one size, decoded in OpenMP threads.
    const bool fixed_records = binary && vertex &&
                               std::all_of(element.properties.begin(), element.properties.end(),
                                           [](const PlyProperty& p) { return p.count_type.empty(); });
    if (fixed_records) {
      std::vector<std::size_t> at(element.properties.size());
      std::size_t record = 0;
      for (std::size_t k = 0; k < element.properties.size(); ++k)
        at[k] = record, record += element.properties[k].scalar.size;
      if (element.count > reader.remaining() / record)
        fail(path, "element 'vertex' claims " + std::to_string(element.count) + " entries, more than the file holds");
      const char* records = reader.take(element.count * record);
      const bool swap = format == "binary_big_endian";
      data.vertices.resize(element.count);
      for (auto& f : data.vertex_fields) f.values.resize(element.count);
#pragma omp parallel for
      for (long long i = 0; i < static_cast<long long>(element.count); ++i) {
        const char* r = records + std::size_t(i) * record;
        for (std::size_t k = 0; k < element.properties.size(); ++k) {
          if (axis[k] < 0 && (column.empty() || column[k] < 0)) continue;
          const double value = plyValue(element.properties[k].scalar, r + at[k], swap);
          if (axis[k] >= 0) data.vertices[i][axis[k]] = value;
          if (!column.empty() && column[k] >= 0) data.vertex_fields[column[k]].values[i] = value;
        }
      }
      continue;
    }
    for (unsigned long long i = 0; i < element.count; ++i) {
      std::array<double, 3> v{};
      std::vector<long> ids;
      for (std::size_t k = 0; k < element.properties.size(); ++k) {
        const PlyProperty& p = element.properties[k];
        if (!p.count_type.empty()) {
          const double n = reader.value(p.count_scalar);
          if (!(n >= 0) || n > static_cast<double>(reader.remaining()))
            fail(path, "a list claims " + std::to_string(n) + " entries");
          for (long j = 0; j < static_cast<long>(n); ++j) {
            const double id = reader.value(p.scalar);
            if (vertex_indices[k])
              ids.push_back(id >= 0 && id < 2147483648.0 ? static_cast<long>(id) : -1);  // -1: no vertex
          }
          continue;
        }
        const double value = reader.value(p.scalar);
        if (axis[k] >= 0) v[axis[k]] = value;
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
