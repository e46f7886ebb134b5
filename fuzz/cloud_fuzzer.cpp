// libFuzzer target: the PCD and PLY cloud readers as dise_normals calls them (io::readCloud); the
// first byte picks the format, the rest is the file.
#include <stdexcept>

#include "fuzz_input.h"
#include "pcl_dise/io/cloud_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  try {
    pcl_dise::io::readCloud(pcl_dise::fuzz::inputFile(data + 1, size - 1, data[0] % 2 ? ".ply" : ".pcd"));
  } catch (const std::runtime_error&) {}
  return 0;
}
