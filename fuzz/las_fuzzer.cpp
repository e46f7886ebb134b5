// libFuzzer target: the LAS reader (pcl_dise/io/las_format.h) on the raw bytes of a file.
#include <stdexcept>
#include <string>

#include "pcl_dise/io/las_format.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    pcl_dise::io::parseLas(std::string(reinterpret_cast<const char*>(data), size), "fuzz.las");
  } catch (const std::runtime_error&) {}
  return 0;
}
