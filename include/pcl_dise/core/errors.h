#pragma once
// The library's typed errors, so that a caller (the Python module among them) can tell a file's
// problem or a bad setting from any other error without reading the message.
#include <stdexcept>

namespace pcl_dise {

/** A file that cannot be opened, read or written, or whose content is malformed (truncated,
 *  inconsistent, a format not supported). Its message names the file, in quotes. */
struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/** A setting out of range or settings that cannot run together (NormalSettings::validate). */
struct OptionsError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

}  // namespace pcl_dise
