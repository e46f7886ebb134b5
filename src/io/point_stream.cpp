#include "pcl_dise/io/point_stream.h"

namespace pcl_dise {
namespace io {

PointStream::PointStream(const std::string& path) {
  const FormatCodec& codec = inputFormat(path);
  traits_ = codec.traits();
  source_ = codec.openSource(path);
  layout_ = source_->layout();
}

}  // namespace io
}  // namespace pcl_dise
