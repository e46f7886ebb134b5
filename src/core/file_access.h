#pragma once
// The one form of a file error and the one way to read a whole file, for every reader of outside
// files (io/, train/, text_io).
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace pcl_dise {
namespace detail {

/** Throws std::runtime_error("'PATH': PROBLEM"). */
[[noreturn]] inline void fail(const std::string& path, const std::string& problem) {
  throw std::runtime_error("'" + path + "': " + problem);
}

/** The bytes of the file at `path`; fail(path, "cannot be opened") where it cannot be opened. */
inline std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot be opened");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace detail
}  // namespace pcl_dise
