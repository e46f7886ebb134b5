// libFuzzer target: the .xyz and .normals reader (readTextTriples).
#include <stdexcept>

#include "fuzz_input.h"
#include "pcl_dise/io/text_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    pcl_dise::io::readTextTriples(pcl_dise::fuzz::inputFile(data, size, ".xyz"));
  } catch (const std::runtime_error&) {}
  return 0;
}
