#pragma once
// Text files of three numbers per line: PCPNet's .xyz / .normals and our .normals output.
#include <array>
#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

namespace pcl_dise {

/** Reads rows of exactly three whitespace-separated numbers ("nan" allowed); blank lines are
 *  skipped. Throws std::runtime_error naming the file and line for anything else. */
std::vector<std::array<float, 3>> readTextTriples(const std::string& path);
/** The same in double: coordinates that must keep their precision (georeferenced clouds). */
std::vector<std::array<double, 3>> readTextTriplesInDouble(const std::string& path);

/** The same rows one at a time, in double, for files larger than memory. */
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
};

}  // namespace pcl_dise
