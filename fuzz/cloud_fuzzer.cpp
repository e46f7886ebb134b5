// libFuzzer target: the PCD, PLY and text cloud readers as dise_normals calls them
// (io::readCloud) and as the Python module's read_cloud calls them, every field read
// (io::readPointTable); the first byte picks the format and the reader, the rest is the file.
#include <stdexcept>

#include "fuzz_input.h"
#include "pcl_dise/io/cloud_io.h"
#include "pcl_dise/io/point_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const kExtensions[] = {".pcd", ".ply", ".xyz"};
  const std::string path = pcl_dise::fuzz::inputFile(data + 1, size - 1, kExtensions[data[0] % 3]);
  try {
    if (data[0] & 4)
      pcl_dise::io::readPointTable(path);
    else
      pcl_dise::io::readCloud(path);
  } catch (const std::runtime_error&) {}
  return 0;
}
