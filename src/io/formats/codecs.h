#pragma once
// Each format's codec (one file each in this folder); the table in ../file_format.cpp lists them.
#include "pcl_dise/io/file_format.h"

namespace pcl_dise {
namespace io {
namespace formats {

// Each format's traits, one line each (FormatTraits' fields in order: name, extension, read,
// written, keeps its LAS records, surveyed from above, holds per-point values).
// clang-format off
constexpr FormatTraits kPcdTraits{"pcd", ".pcd", true, true, false, false, true};
constexpr FormatTraits kPlyTraits{"ply", ".ply", true, true, false, false, true};
constexpr FormatTraits kLasTraits{"las", ".las", true, true, true, true, true};
constexpr FormatTraits kLazTraits{"las", ".laz", true, true, true, true, true};
constexpr FormatTraits kXyzTraits{"xyz", ".xyz", true, true, false, false, false};
constexpr FormatTraits kNormalsTraits{"normals", ".normals", false, true, false, false, false};
// clang-format on

const FormatCodec& pcdCodec();
const FormatCodec& plyCodec();
const FormatCodec& lasCodec();
const FormatCodec& lazCodec();
const FormatCodec& xyzCodec();
const FormatCodec& normalsCodec();

}  // namespace formats
}  // namespace io
}  // namespace pcl_dise
