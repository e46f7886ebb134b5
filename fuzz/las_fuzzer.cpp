// libFuzzer target: the LAS reader (pcl_dise/io/las_format.h) on the raw bytes of a file, the
// coordinates alone and every dimension with the extra bytes.
#include <stdexcept>
#include <string>

#include "pcl_dise/io/las_format.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    pcl_dise::io::parseLas(bytes, "fuzz.las");
    pcl_dise::io::parseLas(bytes, "fuzz.las", true);
  } catch (const std::runtime_error&) {}
  return 0;
}
