// libFuzzer target: the OFF, OBJ and PLY mesh readers of dise_make_dataset (readMesh); the
// first byte picks the format, the rest is the file.
#include <stdexcept>

#include "fuzz_input.h"
#include "pcl_dise/train/pcpnet_data.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const char* extensions[3] = {".off", ".obj", ".ply"};
  try {
    pcl_dise::train::readMesh(pcl_dise::fuzz::inputFile(data + 1, size - 1, extensions[data[0] % 3]));
  } catch (const std::runtime_error&) {}
  return 0;
}
