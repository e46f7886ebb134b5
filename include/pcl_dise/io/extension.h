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

/** The file formats pcl_dise reads or writes. */
enum class FileFormat { kPcd, kPly, kLas, kLaz, kXyz, kNormals };

/** A format, its extension and its directions. */
struct FormatEntry {
  FileFormat format;      ///< the format
  const char* extension;  ///< lower case, with the dot
  bool read;              ///< an input (readCloud, PointStream, readPointTable)
  bool written;           ///< an output (NormalsWriter, writeNormals)
};

/** The one table of formats, for both directions: a new format is a line here, its reader or
 *  writer, and its case in each switch over FileFormat (the compiler names every one). */
inline constexpr FormatEntry kFormats[] = {
    {FileFormat::kPcd, ".pcd", true, true}, {FileFormat::kPly, ".ply", true, true},
    {FileFormat::kLas, ".las", true, true}, {FileFormat::kLaz, ".laz", true, true},
    {FileFormat::kXyz, ".xyz", true, true}, {FileFormat::kNormals, ".normals", false, true}};

/** ".pcd, .ply, .las, .laz or .xyz": the extensions of kFormats read (written: those written),
 *  for messages and help texts. */
std::string formatExtensions(bool written);

/** \brief The format `path` is read as, by its extension.
 *  \throws FileError "'PATH': unknown extension '.x' (expected ...)" for any other */
FileFormat inputFormat(const std::string& path);

/** \brief The format `path` is written as, by its extension.
 *  \throws FileError "'PATH': unknown output extension '.x' (expected ...)" for any other */
FileFormat outputFormat(const std::string& path);

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
