#include "pcl_dise/io/point_table.h"
#include "file_access.h"

#include <cctype>
#include <cstdlib>

#include "pcl_dise/io/extension.h"
#include "pcl_dise/io/las_format.h"
#include "pcl_dise/io/pcd_reader.h"
#include "pcl_dise/io/ply_reader.h"

namespace pcl_dise {
namespace io {
namespace {

using detail::fail;

// Whitespace-separated numbers, the same count on every non-blank line ('#' starts a comment).
PointTable readTextColumns(const std::string& path) {
  const std::string bytes = detail::readWholeFile(path);
  PointTable table;
  std::vector<double> row;
  std::size_t columns = 0, line = 1, at = 0;
  std::vector<std::vector<double>> extra;
  while (at < bytes.size()) {
    row.clear();
    while (at < bytes.size() && bytes[at] != '\n') {
      if (bytes[at] == '#') {
        while (at < bytes.size() && bytes[at] != '\n') ++at;
        break;
      }
      if (std::isspace(static_cast<unsigned char>(bytes[at]))) {
        ++at;
        continue;
      }
      const std::size_t start = at;
      while (at < bytes.size() && !std::isspace(static_cast<unsigned char>(bytes[at]))) ++at;
      const std::string token = bytes.substr(start, at - start);
      char* end = nullptr;
      const double v = std::strtod(token.c_str(), &end);
      if (end == token.c_str() || *end != '\0')
        fail(path, "line " + std::to_string(line) + ": '" + token + "' is not a number");
      row.push_back(v);
    }
    ++at;
    if (!row.empty()) {
      if (columns == 0) {
        if (row.size() < 3) fail(path, "line " + std::to_string(line) + ": fewer than 3 values");
        columns = row.size();
        extra.resize(columns - 3);
      }
      if (row.size() != columns)
        fail(path, "line " + std::to_string(line) + ": " + std::to_string(row.size()) + " values, expected " +
                       std::to_string(columns));
      table.xyz.push_back({row[0], row[1], row[2]});
      for (std::size_t c = 3; c < columns; ++c) extra[c - 3].push_back(row[c]);
    }
    ++line;
  }
  static const char* const normal_names[] = {"nx", "ny", "nz", "curvature"};
  for (std::size_t c = 0; c < extra.size(); ++c) {
    const bool named = columns == 6 || columns == 7;
    table.fields.push_back({named ? normal_names[c] : "column_" + std::to_string(c + 3), "f8", std::move(extra[c])});
  }
  return table;
}

}  // namespace

PointTable readPointTable(const std::string& path) {
  PointTable table;
  auto take = [&](auto& xyz, auto& fields, const char* format) {
    table.xyz = std::move(xyz);
    table.fields = std::move(fields);
    table.format = format;
  };
  switch (inputFormat(path)) {
    case FileFormat::kPcd: {
      PcdCloud pcd = readPcd(path, true);
      table.xyz = std::move(pcd.xyz);
      table.fields = std::move(pcd.fields);
      table.width = pcd.width;
      table.height = pcd.height;
      table.viewpoint = pcd.viewpoint;
      table.format = "pcd";
      return table;
    }
    case FileFormat::kPly: {
      PlyData ply = readPly(path, true);
      take(ply.vertices, ply.vertex_fields, "ply");
      break;
    }
    case FileFormat::kLas:
    case FileFormat::kLaz: {
      LasCloud las = readLas(path, true);
      take(las.xyz, las.fields, "las");
      break;
    }
    case FileFormat::kXyz:
      table = readTextColumns(path);
      table.format = "xyz";
      break;
    case FileFormat::kNormals:  // not an input: inputFormat never gives it
      break;
  }
  table.width = static_cast<std::uint32_t>(table.xyz.size());
  table.height = 1;
  return table;
}

}  // namespace io
}  // namespace pcl_dise
