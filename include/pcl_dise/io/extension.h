#pragma once
// A file's kind, by its extension, as every tool reads and writes files, and what it implies.
#include <algorithm>
#include <cctype>
#include <string>

#include "pcl_dise/core/normal_settings.h"

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

/** The orientation a run of `input` gets where none is asked for: the viewpoint where one is
 *  given, else "up" for LAS and LAZ (an aerial survey: no sensor pose, the sensor above), else
 *  the viewpoint (the file's, or the origin). */
inline Orientation defaultOrientationFor(const std::string& input, bool viewpoint_given) {
  return !viewpoint_given && isLasFamily(input) ? Orientation::kUp : Orientation::kViewpoint;
}

}  // namespace io
}  // namespace pcl_dise
