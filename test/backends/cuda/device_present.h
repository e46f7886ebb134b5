#pragma once
// Whether the machine has an NVIDIA GPU by its driver's device files, whatever our CUDA code
// thinks: the device tests skip (exit 77) only where it has none, and fail where it has one that
// our code cannot use.
#include <filesystem>

namespace pcl_dise {
namespace test {

inline bool nvidiaDeviceFilesPresent() {
  std::error_code ignored;
  return std::filesystem::exists("/dev/nvidiactl", ignored) || std::filesystem::exists("/dev/nvidia0", ignored);
}

/** The exit code of a device test that cannot run: 77 (skipped) without a device, 1 with one. */
inline int cannotRunExitCode() { return nvidiaDeviceFilesPresent() ? 1 : 77; }

}  // namespace test
}  // namespace pcl_dise
