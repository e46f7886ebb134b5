#include "pcl_dise/io/file_format.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "file_access.h"
#include "formats/codecs.h"

namespace pcl_dise {
namespace io {
namespace {

// The codec of `path`'s extension among those read (or written), or the error `unknown` names.
const FormatCodec& codecOf(const std::string& path, bool written, const char* unknown) {
  const std::string ext = extension(path);
  for (const FormatCodec* codec : fileFormats()) {
    const FormatTraits t = codec->traits();
    if ((written ? t.written : t.read) && ext == t.extension) return *codec;
  }
  detail::fail(path, std::string(unknown) + " '" + ext + "' (expected " + formatExtensions(written) + ")");
}

}  // namespace

std::string extension(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

const std::vector<const FormatCodec*>& fileFormats() {
  static const std::vector<const FormatCodec*> table = {
      &formats::pcdCodec(), &formats::plyCodec(), &formats::lasCodec(),
      &formats::lazCodec(), &formats::xyzCodec(), &formats::normalsCodec(),
  };
  return table;
}

const PointValueNames& namesOf(PointValue value) {
  static const PointValueNames kOrientationConfidence{"orientation_confidence", "OrientationConfidence",
                                                      "confidence in the side, 0..1 (DISE)"};
  static const PointValueNames kErrorBound{"error_bound", "NormalErrorBound", "normal error bound, deg (DISE)"};
  switch (value) {  // -Wswitch warns of a value left out
    case PointValue::kOrientationConfidence: return kOrientationConfidence;
    case PointValue::kErrorBound: return kErrorBound;
  }
  throw std::logic_error("unknown point value");
}

const FormatCodec& inputFormat(const std::string& path) { return codecOf(path, false, "unknown extension"); }

const FormatCodec& outputFormat(const std::string& path) { return codecOf(path, true, "unknown output extension"); }

std::string formatExtensions(bool written) {
  return formatExtensionsWhere([written](const FormatTraits& t) { return written ? t.written : t.read; });
}

std::string formatExtensionsWhere(const std::function<bool(const FormatTraits&)>& which) {
  std::vector<const char*> listed;
  for (const FormatCodec* codec : fileFormats())
    if (which(codec->traits())) listed.push_back(codec->traits().extension);
  std::string text;
  for (std::size_t i = 0; i < listed.size(); ++i)
    text += (i == 0 ? "" : i + 1 == listed.size() ? " or " : ", ") + std::string(listed[i]);
  return text;
}

}  // namespace io
}  // namespace pcl_dise
