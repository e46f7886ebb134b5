#pragma once
// Minimal .safetensors reader and writer for float32 tensors (8-byte little-endian header
// length, JSON header, raw little-endian data), independent of LibTorch.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pcl_dise {

/** One float32 tensor of a .safetensors file. */
struct Float32Tensor {
  std::vector<std::int64_t> shape;  ///< its dimensions
  std::vector<float> values;        ///< row-major, product(shape) entries
};

/** A .safetensors file's float32 tensors and metadata. */
struct SafetensorsFile {
  std::map<std::string, Float32Tensor> tensors;  ///< by name
  std::map<std::string, std::string> metadata;   ///< the "__metadata__" string map
};

/** Reads every tensor of `path`; throws std::runtime_error naming the file and the problem
 *  (missing, truncated, malformed header, a dtype other than F32, offsets out of range). */
SafetensorsFile readSafetensors(const std::string& path);

/** Writes `file` to `path` (tensors in name order); throws std::runtime_error on I/O failure. */
void writeSafetensors(const std::string& path, const SafetensorsFile& file);

}  // namespace pcl_dise
