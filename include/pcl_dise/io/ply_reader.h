#pragma once
// A PLY reader of our own for meshes and clouds: the vertex element's x, y, z (in double) and
// the face element's vertex lists; ASCII, binary little- and big-endian. Plain C++, no PCL.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pcl_dise/io/point_field.h"

namespace pcl_dise {
namespace io {

/** The vertices (in double) and faces of a PLY file. */
struct PlyData {
  std::vector<std::array<double, 3>> vertices;  ///< x, y, z of every vertex
  std::vector<std::vector<long>> faces;         ///< vertex_indices (or vertex_index) of each face, unchecked
  /// With parsePly(..., true): the vertex element's scalar properties but x, y, z.
  std::vector<PointField> vertex_fields;
};

/** A PLY scalar type, read once from its name so that values decode without string work. */
struct PlyScalar {
  /** The eight PLY scalar types. */
  enum Kind : std::uint8_t { Int8, Uint8, Int16, Uint16, Int32, Uint32, Float32, Float64 };
  Kind kind = Float32;  ///< the type
  int size = 4;         ///< its bytes
};

/** One property line of a PLY header. */
struct PlyProperty {
  std::string name;        ///< the property's name
  std::string type;        ///< its (a list's entries') scalar type
  std::string count_type;  ///< a list's count type; empty for a scalar
  PlyScalar scalar;        ///< `type`, decoded
  PlyScalar count_scalar;  ///< `count_type`, decoded (a list's)
};
/** One element of a PLY header with its properties. */
struct PlyElement {
  std::string name;                     ///< vertex, face, ...
  unsigned long long count = 0;         ///< entries in the data
  std::vector<PlyProperty> properties;  ///< in the order of the data
};
/** A PLY header: what comes before the data. */
struct PlyHeader {
  std::string format;                ///< ascii, binary_little_endian or binary_big_endian
  std::vector<PlyElement> elements;  ///< in the order of the data
  std::size_t data_at = 0;           ///< bytes from the file's start to the data
};

/** Parses the header at the start of `bytes` (the file's first bytes, through end_header).
 *  Throws std::runtime_error naming `path` and what is wrong, as parsePly. */
PlyHeader parsePlyHeader(const std::string& bytes, const std::string& path);

/** The PLY scalar type named `type` (char, uchar, short, ushort, int, uint, float, double, or
 *  int8 ... float64); throws std::runtime_error naming `path` for an unknown one. */
PlyScalar plyScalar(const std::string& type, const std::string& path);
/** A value of scalar type `scalar` from its bytes, byte-swapped first where `swap`. */
double plyValue(PlyScalar scalar, const char* bytes, bool swap);

/** Parses PLY data (the whole file's bytes). Throws std::runtime_error naming `path` and what is
 *  wrong: not PLY, an unknown format or type, a vertex element without x, y, z, counts larger than
 *  the file can hold, data that end early or are not numbers. */
PlyData parsePly(const std::string& bytes, const std::string& path, bool all_fields = false);

/** parsePly of a file; throws std::runtime_error where it cannot be read. */
PlyData readPly(const std::string& path, bool all_fields = false);

/** NumPy's code for a PLY scalar type ("u1" for uchar, "f4" for float, ...). */
std::string plyNumpyType(PlyScalar scalar);

}  // namespace io
}  // namespace pcl_dise
