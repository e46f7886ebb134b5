#pragma once
// Each format's codec (one file each in this folder); the table in ../file_format.cpp lists them.
#include "pcl_dise/io/file_format.h"

namespace pcl_dise {
namespace io {
namespace formats {

const FormatCodec& pcdCodec();
const FormatCodec& plyCodec();
const FormatCodec& lasCodec();
const FormatCodec& lazCodec();
const FormatCodec& xyzCodec();
const FormatCodec& normalsCodec();

}  // namespace formats
}  // namespace io
}  // namespace pcl_dise
