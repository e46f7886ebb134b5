#pragma once
// A per-point value besides x, y and z, as a file stores it (PCD fields, PLY vertex properties,
// LAS dimensions and extra bytes): what read_cloud hands Python besides the coordinates.
#include <string>
#include <vector>

namespace pcl_dise {
namespace io {

/** One per-point value of a file besides x, y, z, for every point. */
struct PointField {
  std::string name;  ///< the file's name for it
  /// The stored type as NumPy spells it: "u1", "i1", "u2", "i2", "u4", "i4", "u8", "i8", "f4", "f8".
  std::string type;
  /// One value per point, in double (exact for every type but 64-bit integers beyond 2^53).
  std::vector<double> values;
};

/** NumPy's code for a type of `size` bytes of kind 'F' (float), 'I' (signed) or 'U' (unsigned), as PCD names them. */
inline std::string numpyType(char kind, int size) {
  return std::string(1, kind == 'F' ? 'f' : kind == 'I' ? 'i' : 'u') + std::to_string(size);
}

}  // namespace io
}  // namespace pcl_dise
