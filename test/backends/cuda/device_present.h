#pragma once
// Whether the machine has an NVIDIA GPU by its driver's device files, whatever our CUDA code
// thinks: the device tests skip (exit 77) only where it has none, and fail where it has one that
// our code cannot use.
#include <cstdio>
#include <filesystem>
#include <string>

namespace pcl_dise {
namespace test {

inline bool nvidiaDeviceFilesPresent() {
  std::error_code ignored;
  return std::filesystem::exists("/dev/nvidiactl", ignored) || std::filesystem::exists("/dev/nvidia0", ignored);
}

/** Where a device test cannot run: prints why (the CUDA error) and whether it fails, and returns
 *  the exit code: 77 (skipped) without an NVIDIA device, 1 with one. */
inline int cannotRun(const std::string& why) {
  const bool present = nvidiaDeviceFilesPresent();
  std::printf("no usable CUDA device (%s): %s\n", why.c_str(), present ? "FAILED (one is present)" : "skipped");
  return present ? 1 : 77;
}

}  // namespace test
}  // namespace pcl_dise
