#pragma once
// Device memory for the CUDA backend's translation units: a buffer that frees itself, CUDA
// errors as exceptions, and the launch shape of the one-thread-per-item kernels.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pcl_dise {
namespace cuda {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("cuda backend: ") + what + ": " + cudaGetErrorString(status));
}

// Device buffer that frees itself.
template <typename T>
struct DeviceArray {
  T* data = nullptr;
  DeviceArray(std::size_t count, const T* host = nullptr) {
    check(cudaMalloc(&data, std::max<std::size_t>(count, 1) * sizeof(T)), "allocating device memory");
    if (host && count)
      check(cudaMemcpy(data, host, count * sizeof(T), cudaMemcpyHostToDevice), "copying to the device");
  }
  ~DeviceArray() { cudaFree(data); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  void download(T* host, std::size_t count) const {
    if (count) check(cudaMemcpy(host, data, count * sizeof(T), cudaMemcpyDeviceToHost), "copying from the device");
  }
};

constexpr int kThreadsPerBlock = 128;

/** Blocks of kThreadsPerBlock threads for one thread per item. */
inline int blocksFor(std::size_t count) { return static_cast<int>((count + kThreadsPerBlock - 1) / kThreadsPerBlock); }

}  // namespace cuda
}  // namespace pcl_dise
