// Mesh readers for dise_make_dataset: .off, .obj and .ply (ASCII, binary little-endian).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "pcpnet_data.h"

namespace pcl_dise {
namespace pcpnet {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw std::runtime_error("'" + path + "': " + problem);
}

std::string nextToken(std::istream& in, const std::string& path) {
  std::string token;
  while (in >> token) {
    if (token[0] == '#') {
      std::string rest;
      std::getline(in, rest);
      continue;
    }
    return token;
  }
  fail(path, "ends early");
}

template <typename T>
T parse(const std::string& token, const std::string& path) {
  std::istringstream s(token);
  T value;
  if (!(s >> value)) fail(path, "'" + token + "' is not a number");
  return value;
}

// Fans a polygon into triangles, checking its vertex ids; counts degenerate triangles.
void addPolygon(Mesh& mesh, const std::vector<long>& ids, long face, const std::string& path, std::size_t& degenerate) {
  for (long id : ids)
    if (id < 0 || id >= static_cast<long>(mesh.vertices.size()))
      fail(path, "face " + std::to_string(face) + " names vertex " + std::to_string(id));
  for (std::size_t t = 1; t + 1 < ids.size(); ++t)
    if (!mesh.addTriangle(ids[0], ids[t], ids[t + 1])) ++degenerate;
}

void readOff(std::istream& in, const std::string& path, Mesh& mesh, std::size_t& degenerate) {
  // OFF, or COFF / NOFF / CNOFF: vertex colours and normals follow the coordinates on each vertex line.
  const std::string magic = nextToken(in, path);
  const bool off = magic.size() >= 3 && magic.compare(magic.size() - 3, 3, "OFF") == 0 &&
                   magic.find_first_not_of("CN") == magic.size() - 3;
  if (!off) fail(path, "is not an OFF file (starts with '" + magic + "')");
  const bool extras = magic != "OFF";
  const long nv = parse<long>(nextToken(in, path), path), nf = parse<long>(nextToken(in, path), path);
  nextToken(in, path);  // edge count
  if (nv < 3 || nf < 1) fail(path, "has no surface");
  mesh.vertices.resize(nv);
  for (auto& v : mesh.vertices) {
    for (auto& c : v) c = parse<double>(nextToken(in, path), path);
    std::string rest;
    if (extras) std::getline(in, rest);
  }
  for (long f = 0; f < nf; ++f) {
    std::vector<long> ids(parse<int>(nextToken(in, path), path));
    for (auto& id : ids) id = parse<long>(nextToken(in, path), path);
    std::string rest;
    std::getline(in, rest);  // optional colour
    addPolygon(mesh, ids, f, path, degenerate);
  }
}

// "v x y z" and "f a b c ..." lines (a = index, index/uv or index/uv/normal; negative = relative).
void readObj(std::istream& in, const std::string& path, Mesh& mesh, std::size_t& degenerate) {
  std::string line;
  long face = 0;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string tag;
    s >> tag;
    if (tag == "v") {
      std::array<double, 3> v;
      for (auto& c : v) {
        std::string token;
        if (!(s >> token)) fail(path, "vertex line '" + line + "' has fewer than 3 numbers");
        c = parse<double>(token, path);
      }
      mesh.vertices.push_back(v);
    } else if (tag == "f") {
      std::vector<long> ids;
      for (std::string token; s >> token;) {
        long id = parse<long>(token.substr(0, token.find('/')), path);
        ids.push_back(id < 0 ? static_cast<long>(mesh.vertices.size()) + id : id - 1);
      }
      addPolygon(mesh, ids, face++, path, degenerate);
    }
  }
}

// PLY: the vertex element's x, y, z and the face element's vertex list; other properties skipped.
struct PlyProperty {
  std::string name, type, count_type;  // count_type set for lists
};
struct PlyElement {
  std::string name;
  long count = 0;
  std::vector<PlyProperty> properties;
};

int plySize(const std::string& type, const std::string& path) {
  if (type == "char" || type == "uchar" || type == "int8" || type == "uint8") return 1;
  if (type == "short" || type == "ushort" || type == "int16" || type == "uint16") return 2;
  if (type == "int" || type == "uint" || type == "int32" || type == "uint32" || type == "float" || type == "float32") return 4;
  if (type == "double" || type == "float64") return 8;
  fail(path, "unknown PLY type '" + type + "'");
}

double readPlyValue(std::istream& in, const std::string& type, bool binary, const std::string& path) {
  if (!binary) return parse<double>(nextToken(in, path), path);
  char bytes[8];
  const int size = plySize(type, path);
  if (!in.read(bytes, size)) fail(path, "ends early");
  auto as = [&](auto value) {
    std::memcpy(&value, bytes, sizeof(value));
    return static_cast<double>(value);
  };
  if (type == "char" || type == "int8") return as(std::int8_t());
  if (type == "uchar" || type == "uint8") return as(std::uint8_t());
  if (type == "short" || type == "int16") return as(std::int16_t());
  if (type == "ushort" || type == "uint16") return as(std::uint16_t());
  if (type == "int" || type == "int32") return as(std::int32_t());
  if (type == "uint" || type == "uint32") return as(std::uint32_t());
  if (size == 4) return as(float());
  return as(double());
}

void readPly(std::istream& in, const std::string& path, Mesh& mesh, std::size_t& degenerate) {
  std::string line, format;
  std::vector<PlyElement> elements;
  if (!std::getline(in, line) || line.rfind("ply", 0) != 0) fail(path, "is not a PLY file");
  while (std::getline(in, line) && line.rfind("end_header", 0) != 0) {
    std::istringstream s(line);
    std::string word;
    s >> word;
    if (word == "format") {
      s >> format;
    } else if (word == "element") {
      elements.emplace_back();
      s >> elements.back().name >> elements.back().count;
    } else if (word == "property" && !elements.empty()) {
      PlyProperty p;
      s >> p.type;
      if (p.type == "list") s >> p.count_type >> p.type;
      s >> p.name;
      elements.back().properties.push_back(p);
    }
  }
  if (format != "ascii" && format != "binary_little_endian")
    fail(path, "has PLY format '" + format + "' (ascii and binary_little_endian are read)");
  const bool binary = format != "ascii";
  long face = 0;
  for (const auto& element : elements) {
    for (long i = 0; i < element.count; ++i) {
      std::array<double, 3> v{};
      std::vector<long> ids;
      for (const auto& p : element.properties) {
        if (!p.count_type.empty()) {
          const long n = static_cast<long>(readPlyValue(in, p.count_type, binary, path));
          for (long j = 0; j < n; ++j) {
            const double id = readPlyValue(in, p.type, binary, path);
            if (p.name == "vertex_indices" || p.name == "vertex_index") ids.push_back(static_cast<long>(id));
          }
          continue;
        }
        const double value = readPlyValue(in, p.type, binary, path);
        if (p.name == "x") v[0] = value;
        if (p.name == "y") v[1] = value;
        if (p.name == "z") v[2] = value;
      }
      if (element.name == "vertex") mesh.vertices.push_back(v);
      if (element.name == "face") addPolygon(mesh, ids, face++, path, degenerate);
    }
  }
}

}  // namespace

Mesh readMesh(const std::string& path, std::size_t* dropped) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot be opened");
  Mesh mesh;
  std::size_t degenerate = 0;
  if (ext == ".off")
    readOff(in, path, mesh, degenerate);
  else if (ext == ".obj")
    readObj(in, path, mesh, degenerate);
  else if (ext == ".ply")
    readPly(in, path, mesh, degenerate);
  else
    fail(path, "has an unknown mesh extension (use .off, .obj or .ply)");
  if (mesh.triangles.empty()) fail(path, degenerate ? "has only degenerate faces" : "has no faces");
  if (dropped) *dropped = degenerate;
  return mesh;
}

}  // namespace pcpnet
}  // namespace pcl_dise
