#pragma once
// Little-endian values in LAZ's byte strings, as the file, its VLR and its chunks hold them.
// Private to the LAZ code (laz_format.cpp, laz/).
#include <cstdint>
#include <cstring>
#include <string>

namespace pcl_dise {
namespace io {
namespace laz {

/** The T stored at `p`. */
template <typename T>
inline T load(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
/** Stores `v` at `p`. */
template <typename T>
inline void store(void* p, T v) {
  std::memcpy(p, &v, sizeof v);
}
/** Appends `v`'s bytes to `out`. */
template <typename T>
inline void append(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace laz
}  // namespace io
}  // namespace pcl_dise
