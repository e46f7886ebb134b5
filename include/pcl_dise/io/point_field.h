#pragma once
// A per-point value besides x, y and z, as a file stores it (PCD fields, PLY vertex properties,
// LAS dimensions and extra bytes): what read_cloud hands Python besides the coordinates.
#include <algorithm>
#include <cstdint>
#include <cstring>
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

/** How a number is stored: kind 'F' (float), 'I' (signed) or 'U' (unsigned) and its bytes (1, 2,
 *  4 or 8; floats 4 or 8), as PCD names types; PLY's and LAS's types map onto it. */
struct ScalarType {
  char kind = 'F';  ///< 'F', 'I' or 'U'
  int size = 4;     ///< bytes
};

/** The ScalarType of NumPy's code ("u1", "i2", "f8", ...). */
inline ScalarType scalarTypeOfNumpy(const std::string& code) {
  return {code[0] == 'f' ? 'F' : code[0] == 'i' ? 'I' : 'U', code[1] - '0'};
}

/** \brief The number of type `type` stored at `p`, in double: the one decoder of every reader's
 *  binary values (PCD, PLY, LAS).
 *  \param[in] type how it is stored
 *  \param[in] p its bytes (type.size of them)
 *  \param[in] swap whether they are big-endian (PLY's binary_big_endian); little-endian otherwise
 *  \return the value (exact for every type but 64-bit integers beyond 2^53) */
inline double scalarValue(ScalarType type, const char* p, bool swap = false) {
  char raw[8];
  std::memcpy(raw, p, static_cast<std::size_t>(type.size));
  if (swap) std::reverse(raw, raw + type.size);
  auto as = [&](auto v) {
    std::memcpy(&v, raw, sizeof v);
    return static_cast<double>(v);
  };
  switch (type.kind) {
    case 'F': return type.size == 4 ? as(float()) : as(double());
    case 'I':
      return type.size == 1   ? as(std::int8_t())
             : type.size == 2 ? as(std::int16_t())
             : type.size == 4 ? as(std::int32_t())
                              : as(std::int64_t());
    default:
      return type.size == 1   ? as(std::uint8_t())
             : type.size == 2 ? as(std::uint16_t())
             : type.size == 4 ? as(std::uint32_t())
                              : as(std::uint64_t());
  }
}

}  // namespace io
}  // namespace pcl_dise
