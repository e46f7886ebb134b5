// libFuzzer target: loadModel (the safetensors reader and the model's checks) on any bytes must
// return or throw std::runtime_error, never crash, hang or leak.
#include <stdexcept>

#include "fuzz_input.h"
#include "pcl_dise/core/model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    pcl_dise::loadModel(pcl_dise::fuzz::inputFile(data, size, ".safetensors"));
  } catch (const std::runtime_error&) {}
  return 0;
}
