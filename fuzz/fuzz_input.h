#pragma once
// The readers under test take file names, as the tools call them: each input is written to a
// file of this process (with the extension that selects the format) and read back from there.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace pcl_dise {
namespace fuzz {

/** Writes data (size bytes) to a file of this process ending in `extension`; returns its path. */
inline std::string inputFile(const std::uint8_t* data, std::size_t size, const std::string& extension) {
  const std::string path = "/tmp/pcl_dise_fuzz_" + std::to_string(getpid()) + extension;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

}  // namespace fuzz
}  // namespace pcl_dise
