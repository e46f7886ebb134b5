#pragma once
// A file's kind, by its extension, as every tool reads and writes files.
#include <algorithm>
#include <cctype>
#include <string>

namespace pcl_dise {
namespace io {

/** Lower-case extension of `path` including the dot (".pcd"), or "" where there is none. */
inline std::string extension(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

/** Whether `path` is LAS or LAZ by its extension: the formats whose records an output keeps. */
inline bool isLasFamily(const std::string& path) {
  const std::string ext = extension(path);
  return ext == ".las" || ext == ".laz";
}

}  // namespace io
}  // namespace pcl_dise
