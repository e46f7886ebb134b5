#pragma once
// A PLY reader of our own for meshes and clouds: the vertex element's x, y, z (in double) and
// the face element's vertex lists; ASCII, binary little- and big-endian. Plain C++, no PCL.
#include <array>
#include <string>
#include <vector>

namespace pcl_dise {
namespace io {

struct PlyData {
  std::vector<std::array<double, 3>> vertices;
  std::vector<std::vector<long>> faces;  ///< vertex_indices (or vertex_index) of each face, unchecked
};

/** Parses PLY data (the whole file's bytes). Throws std::runtime_error naming `path` and what is
 *  wrong: not PLY, an unknown format or type, a vertex element without x, y, z, counts larger than
 *  the file can hold, data that end early or are not numbers. */
PlyData parsePly(const std::string& bytes, const std::string& path);

/** parsePly of a file; throws std::runtime_error where it cannot be read. */
PlyData readPly(const std::string& path);

}  // namespace io
}  // namespace pcl_dise
