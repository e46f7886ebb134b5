#pragma once
// The one form of a file error and the one way to read a whole file, for every reader of outside
// files (io/, train/, text_io).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "pcl_dise/core/errors.h"

namespace pcl_dise {
namespace detail {

/** Throws FileError("'PATH': PROBLEM"). */
[[noreturn]] inline void fail(const std::string& path, const std::string& problem) {
  throw FileError("'" + path + "': " + problem);
}

/** The bytes of the file at `path`; fail(path, "cannot be opened") where it cannot be opened.
 *  A regular file is read in one piece into a string of its size (one copy, at the speed of the
 *  disk or the page cache); anything else (a pipe, a device) through a string stream. */
inline std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot be opened");
  std::error_code error;
  const bool regular = std::filesystem::is_regular_file(path, error);
  const std::uintmax_t size = regular ? std::filesystem::file_size(path, error) : 0;
  if (regular && !error && size > 0) {
    std::string bytes(static_cast<std::size_t>(size), '\0');
    if (!in.read(&bytes[0], static_cast<std::streamsize>(size)))
      fail(path, "cannot be read (it shrank or failed while being read)");
    return bytes;
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace detail
}  // namespace pcl_dise
