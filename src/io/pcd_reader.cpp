#include "pcl_dise/io/pcd_reader.h"
#include "file_access.h"

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

// One value of a field from its bytes, in double.
}  // namespace

double valueOf(const PcdField& f, const char* p) { return scalarValue({f.type, f.size}, p); }

namespace {

// LZF decompression (PCL's binary_compressed); false where the data are corrupt.
bool lzfDecompress(const unsigned char* in, std::size_t in_size, unsigned char* out, std::size_t out_size) {
  const unsigned char* ip = in;
  const unsigned char* const in_end = in + in_size;
  unsigned char* op = out;
  unsigned char* const out_end = out + out_size;
  while (ip < in_end) {
    std::size_t ctrl = *ip++;
    if (ctrl < 32) {  // a literal run of ctrl + 1 bytes
      const std::size_t len = ctrl + 1;
      if (static_cast<std::size_t>(in_end - ip) < len || static_cast<std::size_t>(out_end - op) < len) return false;
      std::memcpy(op, ip, len);
      op += len;
      ip += len;
    } else {  // a back reference
      std::size_t len = ctrl >> 5;
      if (len == 7) {
        if (ip >= in_end) return false;
        len += *ip++;
      }
      if (ip >= in_end) return false;
      const std::size_t distance = ((ctrl & 0x1f) << 8) + *ip++ + 1;
      len += 2;
      if (static_cast<std::size_t>(op - out) < distance || static_cast<std::size_t>(out_end - op) < len) return false;
      const unsigned char* ref = op - distance;
      for (std::size_t i = 0; i < len; ++i) *op++ = *ref++;  // may overlap: byte by byte
    }
  }
  return op == out_end;
}

template <typename T>
T number(const std::string& token, const std::string& what, const std::string& path) {
  std::istringstream s(token);
  T v;
  if (!(s >> v) || !s.eof()) fail(path, "header " + what + ": '" + token + "' is not a valid number");
  return v;
}

}  // namespace

PcdHeader parsePcdHeader(const std::string& bytes, const std::string& path) {
  PcdHeader header;
  std::vector<PcdField>& fields = header.fields;
  std::uint64_t points = 0;
  bool have_width = false, have_height = false, have_points = false;
  std::string& data = header.data;
  std::size_t at = 0;
  while (data.empty()) {
    if (at >= bytes.size()) fail(path, "the header ends before its DATA line");
    const std::size_t end = std::min(bytes.find('\n', at), bytes.size());
    std::istringstream line(bytes.substr(at, end - at));
    at = end + 1;
    std::string key;
    if (!(line >> key) || key[0] == '#') continue;
    std::vector<std::string> values;
    for (std::string v; line >> v;) values.push_back(v);
    auto perField = [&](const std::string& what) {
      if (values.size() != fields.size())
        fail(path, "header " + what + " has " + std::to_string(values.size()) + " entries for " +
                       std::to_string(fields.size()) + " fields");
    };
    if (key == "VERSION") continue;
    if (key == "FIELDS" || key == "COLUMNS") {
      if (values.empty()) fail(path, "header FIELDS names no field");
      fields.assign(values.size(), PcdField{});
      for (std::size_t i = 0; i < values.size(); ++i) fields[i].name = values[i];
    } else if (key == "SIZE") {
      perField("SIZE");
      for (std::size_t i = 0; i < values.size(); ++i) {
        fields[i].size = number<int>(values[i], "SIZE", path);
        if (fields[i].size != 1 && fields[i].size != 2 && fields[i].size != 4 && fields[i].size != 8)
          fail(path, "header SIZE " + values[i] + " is not 1, 2, 4 or 8");
      }
    } else if (key == "TYPE") {
      perField("TYPE");
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i].size() != 1 || (values[i][0] != 'F' && values[i][0] != 'I' && values[i][0] != 'U'))
          fail(path, "header TYPE '" + values[i] + "' is not F, I or U");
        fields[i].type = values[i][0];
      }
    } else if (key == "COUNT") {
      perField("COUNT");
      for (std::size_t i = 0; i < values.size(); ++i) {
        fields[i].count = number<std::uint32_t>(values[i], "COUNT", path);
        if (fields[i].count < 1 || fields[i].count > 1u << 20)
          fail(path, "header COUNT " + values[i] + " is out of range");
      }
    } else if (key == "WIDTH" || key == "HEIGHT" || key == "POINTS") {
      if (values.size() != 1) fail(path, "header " + key + " needs one value");
      const auto v = number<std::uint64_t>(values[0], key, path);
      if (key == "WIDTH") header.width = static_cast<std::uint32_t>(v), have_width = v <= 0xffffffffu;
      if (key == "HEIGHT") header.height = static_cast<std::uint32_t>(v), have_height = v <= 0xffffffffu;
      if (key == "POINTS") points = v, have_points = true;
    } else if (key == "VIEWPOINT") {
      if (values.size() != 7) fail(path, "header VIEWPOINT needs 7 values");
      for (int i = 0; i < 7; ++i) header.viewpoint[i] = number<double>(values[i], "VIEWPOINT", path);
    } else if (key == "DATA") {
      if (values.size() != 1) fail(path, "header DATA needs one value");
      data = values[0];
      if (data != "ascii" && data != "binary" && data != "binary_compressed")
        fail(path, "DATA '" + data + "' is not ascii, binary or binary_compressed");
    } else {
      fail(path, "unknown header line '" + key + "'");
    }
  }
  if (fields.empty()) fail(path, "has no FIELDS line");
  if (!have_width) fail(path, "has no valid WIDTH line");
  if (!have_height) header.height = 1;
  if (have_points && points != std::uint64_t(header.width) * header.height)
    fail(path, "POINTS " + std::to_string(points) + " is not WIDTH x HEIGHT");
  int* xyz = header.xyz;
  std::size_t& point_size = header.point_size;
  std::size_t& values_per_point = header.values_per_point;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    PcdField& f = fields[i];
    if (f.type == 'F' && f.size != 4 && f.size != 8)
      fail(path, "field '" + f.name + "' is a float of " + std::to_string(f.size) + " bytes");
    f.offset = point_size;
    point_size += std::size_t(f.size) * f.count;
    values_per_point += f.count;
    for (int c = 0; c < 3; ++c)
      if (f.name == std::string(1, "xyz"[c]) && f.count == 1) xyz[c] = static_cast<int>(i);
  }
  if (xyz[0] < 0 || xyz[1] < 0 || xyz[2] < 0) fail(path, "has no x, y and z fields");
  header.data_at = at;
  return header;
}

PcdCloud parsePcd(const std::string& bytes, const std::string& path, bool all_fields) {
  const PcdHeader header = parsePcdHeader(bytes, path);
  const std::vector<PcdField>& fields = header.fields;
  const std::string& data = header.data;
  const std::size_t at = header.data_at, point_size = header.point_size, values_per_point = header.values_per_point;
  const int* xyz = header.xyz;
  const std::uint64_t points = header.points();
  PcdCloud cloud;
  cloud.width = header.width;
  cloud.height = header.height;
  cloud.viewpoint = header.viewpoint;
  // A text or binary point takes at least a byte of the file, a compressed one at least 1/88 of a
  // byte per byte it unpacks to (LZF's best ratio): a header claiming more is not believed.
  const std::size_t remaining = bytes.size() - std::min(at, bytes.size());
  const std::uint64_t most = data == "binary_compressed" ? 88 * std::uint64_t(remaining) / point_size : remaining;
  if (points > most) fail(path, "WIDTH x HEIGHT = " + std::to_string(points) + " points, more than the file holds");
  cloud.xyz.resize(points);
  // Every value takes at least a byte of the data (LZF: 1/88 of one): fields whose COUNTs claim
  // more are not believed before memory is taken for them.
  const std::uint64_t value_room = data == "binary_compressed" ? 88 * std::uint64_t(remaining) : remaining;
  if (all_fields && values_per_point > 0 && points > value_room / values_per_point)
    fail(path, std::to_string(points) + " points of " + std::to_string(values_per_point) +
                   " values each, more than the file holds");
  // column[f] + c: where value c of field f goes (-1: x, y, z or not kept).
  std::vector<int> column(fields.size(), -1);
  if (all_fields)
    for (std::size_t f = 0; f < fields.size(); ++f) {
      if (static_cast<int>(f) == xyz[0] || static_cast<int>(f) == xyz[1] || static_cast<int>(f) == xyz[2]) continue;
      column[f] = static_cast<int>(cloud.fields.size());
      for (std::uint32_t c = 0; c < fields[f].count; ++c)
        cloud.fields.push_back({fields[f].count == 1 ? fields[f].name : fields[f].name + "_" + std::to_string(c),
                                numpyType(fields[f].type, fields[f].size), std::vector<double>(points)});
    }

  if (data == "ascii") {
    std::size_t p = at;
    auto nextValue = [&](double& v) {
      while (p < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[p]))) ++p;
      const std::size_t start = p;
      while (p < bytes.size() && !std::isspace(static_cast<unsigned char>(bytes[p]))) ++p;
      if (start == p) return false;
      const std::string token = bytes.substr(start, p - start);
      char* end = nullptr;
      v = std::strtod(token.c_str(), &end);
      if (end == token.c_str() || *end != '\0') fail(path, "'" + token + "' is not a number");
      return true;
    };
    for (std::uint64_t i = 0; i < points; ++i)
      for (std::size_t f = 0; f < fields.size(); ++f)
        for (std::uint32_t c = 0; c < fields[f].count; ++c) {
          double v;
          if (!nextValue(v))
            fail(path, "ends at point " + std::to_string(i) + " of " + std::to_string(points) + " (" +
                           std::to_string(values_per_point) + " values per point)");
          for (int axis = 0; axis < 3; ++axis)
            if (static_cast<int>(f) == xyz[axis]) cloud.xyz[i][axis] = v;
          if (column[f] >= 0) cloud.fields[column[f] + c].values[i] = v;
        }
    return cloud;
  }

  std::string block;
  const char* base = nullptr;
  if (data == "binary") {
    if (remaining / point_size < points)
      fail(path, "holds fewer bytes than " + std::to_string(points) + " binary points");
    base = bytes.data() + at;
  } else {
    if (remaining < 8) fail(path, "ends before its compressed block's sizes");
    std::uint32_t sizes[2];
    std::memcpy(sizes, bytes.data() + at, 8);
    const std::uint64_t expected = points * point_size;
    if (sizes[1] != expected)
      fail(path, "compressed block unpacks to " + std::to_string(sizes[1]) + " bytes, not " + std::to_string(expected));
    if (sizes[0] > remaining - 8) fail(path, "compressed block of " + std::to_string(sizes[0]) + " bytes is cut short");
    block.resize(expected);
    if (!lzfDecompress(reinterpret_cast<const unsigned char*>(bytes.data() + at + 8), sizes[0],
                       reinterpret_cast<unsigned char*>(block.data()), block.size()))
      fail(path, "compressed block is corrupt");
    base = block.data();
  }
  // binary: point-major; binary_compressed: field-major (every point's field, field by field).
  const bool point_major = data == "binary";
  const PcdField* axis_field[3];
  std::size_t first[3], stride[3];
  for (int axis = 0; axis < 3; ++axis) {
    axis_field[axis] = &fields[xyz[axis]];
    first[axis] = point_major ? axis_field[axis]->offset : axis_field[axis]->offset * points;
    stride[axis] = point_major ? point_size : axis_field[axis]->size;
  }
  // One pass over the points, x, y and z together; float coordinates (nearly every PCD file)
  // decoded without the per-value type switch.
  const bool floats =
      std::all_of(axis_field, axis_field + 3, [](const PcdField* f) { return f->type == 'F' && f->size == 4; });
#pragma omp parallel for schedule(static)
  for (std::uint64_t i = 0; i < points; ++i)
    for (int axis = 0; axis < 3; ++axis) {
      const char* value = base + first[axis] + i * stride[axis];
      if (floats) {
        float v;
        std::memcpy(&v, value, sizeof v);
        cloud.xyz[i][axis] = v;
      } else {
        cloud.xyz[i][axis] = valueOf(*axis_field[axis], value);
      }
    }
  for (std::size_t f = 0; f < fields.size(); ++f) {
    if (column[f] < 0) continue;
    const PcdField& field = fields[f];
    for (std::uint32_t c = 0; c < field.count; ++c)
      for (std::uint64_t i = 0; i < points; ++i) {
        // A field-major point holds its `count` values together.
        const std::size_t offset = point_major ? i * point_size + field.offset + c * field.size
                                               : field.offset * points + (i * field.count + c) * field.size;
        cloud.fields[column[f] + c].values[i] = valueOf(field, base + offset);
      }
  }
  return cloud;
}

PcdCloud readPcd(const std::string& path, bool all_fields) {
  return parsePcd(detail::readWholeFile(path), path, all_fields);
}

}  // namespace io
}  // namespace pcl_dise
