#pragma once
// The library's typed errors, so that a caller (the Python module among them) can tell a file's
// problem from any other without reading the message.
#include <stdexcept>

namespace pcl_dise {

/** A file that cannot be opened, read or written, or whose content is malformed (truncated,
 *  inconsistent, a format not supported). Its message starts with the file's path in quotes. */
struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace pcl_dise
