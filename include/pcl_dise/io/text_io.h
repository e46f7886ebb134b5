#pragma once
// Text files of numbers, one row per line: points (.xyz: x y z, and maybe more columns, which are
// not read) and normals (PCPNet's and our .normals: exactly nx ny nz).
#include <array>
#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

namespace pcl_dise {
namespace io {

/** Reads rows of exactly three whitespace-separated numbers ("nan" allowed); blank lines are
 *  skipped. Parsed in OpenMP threads. Throws std::runtime_error naming the file and line for
 *  anything else. */
std::vector<std::array<float, 3>> readTextTriples(const std::string& path);
/** Points in double (coordinates that must keep their precision, georeferenced clouds): rows of
 *  3 or more numbers, as many on every line (x y z first; the columns after them, such as a
 *  normal or an intensity, are not read). Throws as readTextTriples. */
std::vector<std::array<double, 3>> readTextTriplesInDouble(const std::string& path);

/** The points of readTextTriplesInDouble one at a time, for files larger than memory. */
class TextTripleStream {
 public:
  /** Throws std::runtime_error where `path` cannot be opened. */
  explicit TextTripleStream(const std::string& path);
  /** The next row; false at the end. Throws as readTextTriples. */
  bool next(std::array<double, 3>& row);

 private:
  std::ifstream in_;
  std::string path_, line_;
  std::size_t line_number_ = 0;
  int columns_ = 0;  ///< the first row's count, which every row must have
};

}  // namespace io
}  // namespace pcl_dise
