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

/** The bytes of the file at `path`; fail(path, "cannot be opened") where it cannot be opened.
 *  A file of known size is read in one piece into a string of that size (one copy, at the speed
 *  of the disk or the page cache); a stream without a size (a pipe) through a string stream. */
inline std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(path, "cannot be opened");
  const std::streamoff size = in.tellg();
  if (size > 0 && in.seekg(0)) {
    std::string bytes(static_cast<std::size_t>(size), '\0');
    if (!in.read(&bytes[0], size)) fail(path, "cannot be read (it shrank or failed while being read)");
    return bytes;
  }
  in.clear();
  in.seekg(0);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace detail
}  // namespace pcl_dise
