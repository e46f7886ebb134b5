#pragma once
// The readers under test take file names, as the tools call them: each input is written to a
// file of this process (with the extension that selects the format) and read back from there.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>

namespace pcl_dise {
namespace fuzz {

/** The input files of this process (one per extension), removed when the process exits: an
 *  input is reproduced from the corpus or the crash file libFuzzer writes, not from /tmp. */
struct InputFileNames {
  std::set<std::string> paths;
  ~InputFileNames() {
    for (const std::string& path : paths) std::remove(path.c_str());
  }
};

/** Writes data (size bytes) to a file of this process ending in `extension`; returns its path. */
inline std::string inputFile(const std::uint8_t* data, std::size_t size, const std::string& extension) {
  static InputFileNames written;
  const std::string path = "/tmp/pcl_dise_fuzz_" + std::to_string(getpid()) + extension;
  written.paths.insert(path);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

}  // namespace fuzz
}  // namespace pcl_dise
