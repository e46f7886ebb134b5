// Mesh readers for dise_make_dataset: .off, .obj and .ply (ASCII, binary little-endian).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "file_access.h"
#include "pcl_dise/io/ply_reader.h"
#include "pcl_dise/train/pcpnet_data.h"

namespace pcl_dise {
namespace train {
namespace {

using detail::fail;

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
  // Every vertex and face takes at least two bytes of the file: larger counts are not believed.
  const std::streamoff here = in.tellg();
  in.seekg(0, std::ios::end);
  const std::streamoff left = in.tellg() - here;
  in.seekg(here);
  if (nv > left / 2 || nf > left / 2) fail(path, "claims more vertices or faces than the file holds");
  mesh.vertices.resize(nv);
  for (auto& v : mesh.vertices) {
    for (auto& c : v) c = parse<double>(nextToken(in, path), path);
    std::string rest;
    if (extras) std::getline(in, rest);
  }
  for (long f = 0; f < nf; ++f) {
    const long corners = parse<long>(nextToken(in, path), path);
    if (corners < 0 || corners > left / 2)
      fail(path, "face " + std::to_string(f) + " claims " + std::to_string(corners) + " vertices");
    std::vector<long> ids(corners);
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

void readPly(std::istream& in, const std::string& path, Mesh& mesh, std::size_t& degenerate) {
  std::ostringstream bytes;
  bytes << in.rdbuf();
  io::PlyData ply = io::parsePly(bytes.str(), path);
  mesh.vertices = std::move(ply.vertices);
  for (std::size_t f = 0; f < ply.faces.size(); ++f)
    addPolygon(mesh, ply.faces[f], static_cast<long>(f), path, degenerate);
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

}  // namespace train
}  // namespace pcl_dise
