#pragma once
// Device memory for the CUDA backend's translation units: a buffer that frees itself, CUDA
// errors as exceptions (running out of device memory says how much was asked and free), and the
// launch shape of the one-thread-per-item kernels.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "dise_cuda.h"  // OutOfDeviceMemory

namespace pcl_dise {
namespace cuda {

inline void check(cudaError_t status, const std::string& what) {
  if (status == cudaSuccess) return;
  const std::string text =
      "cuda backend: " + what + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
  // Too little memory for a launch's threads (the k-NN kernel's lists of up to 1,024 neighbours
  // live in each thread's local memory) is the device running out, as an allocation is.
  if (status == cudaErrorMemoryAllocation)
    throw OutOfDeviceMemory(text + "; run the cloud in tiles (dise_normals --max-memory)");
  // More registers or shared memory per block than the device has: a build for another device.
  if (status == cudaErrorLaunchOutOfResources)
    throw std::runtime_error(text +
                             "; the kernel asks more registers or shared memory than this device has "
                             "(docs/cuda.md, resource usage)");
  throw std::runtime_error(text);
}

/** After the launch of `what`'s kernel: the launch's error, and any fault while it ran, said
 *  under its name (a fault is otherwise reported by the next call that synchronises). */
inline void checkKernel(const char* what) {
  check(cudaGetLastError(), std::string("launching ") + what);
  check(cudaDeviceSynchronize(), std::string("running ") + what);
}

inline void allocate(void** data, std::size_t bytes) {
  const cudaError_t status = cudaMalloc(data, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it, the context stays usable
    std::size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    char text[240];
    std::snprintf(text, sizeof text,
                  "cuda backend: out of device memory (%.1f MB asked, %.1f MB free of %.1f MB); run the cloud in "
                  "tiles (dise_normals --max-memory)",
                  bytes / 1e6, free_bytes / 1e6, total_bytes / 1e6);
    throw OutOfDeviceMemory(text);
  }
  check(status, "allocating device memory");
}

// Device buffer that frees itself.
template <typename T>
struct DeviceArray {
  T* data = nullptr;
  std::size_t count = 0;
  DeviceArray() = default;
  explicit DeviceArray(std::size_t n, const T* host = nullptr) : count(n) {
    allocate(reinterpret_cast<void**>(&data), std::max<std::size_t>(n, 1) * sizeof(T));
    if (!host || !n) return;
    const cudaError_t status = cudaMemcpy(data, host, n * sizeof(T), cudaMemcpyHostToDevice);
    if (status != cudaSuccess) cudaFree(std::exchange(data, nullptr));  // no destructor runs for a throwing constructor
    check(status, "copying to the device");
  }
  ~DeviceArray() { cudaFree(data); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& other) noexcept : data(std::exchange(other.data, nullptr)), count(other.count) {}
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    std::swap(data, other.data);
    std::swap(count, other.count);
    return *this;
  }
  void download(T* host, std::size_t count) const {
    if (count) check(cudaMemcpy(host, data, count * sizeof(T), cudaMemcpyDeviceToHost), "copying from the device");
  }
};

constexpr int kThreadsPerBlock = 128;

/** Blocks of kThreadsPerBlock threads for one thread per item. */
inline int blocksFor(std::size_t count) { return static_cast<int>((count + kThreadsPerBlock - 1) / kThreadsPerBlock); }

}  // namespace cuda
}  // namespace pcl_dise
