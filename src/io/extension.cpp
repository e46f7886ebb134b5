#include "pcl_dise/io/extension.h"

#include <vector>

#include "file_access.h"

namespace pcl_dise {
namespace io {
namespace {

// The format of `path` among those of kFormats with the direction, or the error `unknown` names.
FileFormat formatOf(const std::string& path, bool written, const char* unknown) {
  const std::string ext = extension(path);
  for (const FormatEntry& f : kFormats)
    if ((written ? f.written : f.read) && ext == f.extension) return f.format;
  detail::fail(path, std::string(unknown) + " '" + ext + "' (expected " + formatExtensions(written) + ")");
}

}  // namespace

std::string formatExtensions(bool written) {
  std::vector<const char*> listed;
  for (const FormatEntry& f : kFormats)
    if (written ? f.written : f.read) listed.push_back(f.extension);
  std::string text;
  for (std::size_t i = 0; i < listed.size(); ++i)
    text += (i == 0 ? "" : i + 1 == listed.size() ? " or " : ", ") + std::string(listed[i]);
  return text;
}

FileFormat inputFormat(const std::string& path) { return formatOf(path, false, "unknown extension"); }

FileFormat outputFormat(const std::string& path) { return formatOf(path, true, "unknown output extension"); }

}  // namespace io
}  // namespace pcl_dise
