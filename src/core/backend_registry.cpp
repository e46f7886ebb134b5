#include "backend_registry.h"

#include <dlfcn.h>

#include <array>
#include <mutex>

namespace pcl_dise {
namespace detail {
namespace {

struct Registry {
  std::mutex mutex;
  std::array<BackendPlugin, 3> plugins{};
  std::array<bool, 3> tried{};
};

Registry& registry() {
  static Registry r;
  return r;
}

bool alwaysAvailable(std::string*) { return true; }

// The library file of an optional backend (PCL_DISE_TORCH_LIBRARY, PCL_DISE_CUDA_LIBRARY: set
// by CMake to the versioned names of shared builds; empty where the backend is not built).
const char* libraryOf(Backend backend) {
  switch (backend) {
    case Backend::Torch: return PCL_DISE_TORCH_LIBRARY;
    case Backend::Cuda: return PCL_DISE_CUDA_LIBRARY;
    case Backend::Native: break;
  }
  return "";
}

// Opens `file` from the folder of the library that holds this code, then by the loader's rules.
void* openBeside(const std::string& file, std::string* error) {
  Dl_info self;
  if (dladdr(reinterpret_cast<void*>(&registerBackend), &self) && self.dli_fname) {
    const std::string path = self.dli_fname;
    const auto slash = path.find_last_of('/');
    if (slash != std::string::npos)
      if (void* handle = dlopen((path.substr(0, slash + 1) + file).c_str(), RTLD_NOW | RTLD_GLOBAL)) return handle;
  }
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle && error) *error = dlerror();
  return handle;
}

}  // namespace

void registerBackend(Backend backend, BackendPlugin plugin) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.plugins[static_cast<int>(backend)] = plugin;
}

const BackendPlugin* loadBackend(Backend backend, std::string* why) {
  static const BackendPlugin native{runNativeIterations, alwaysAvailable};
  if (backend == Backend::Native) return &native;
  Registry& r = registry();
  const int slot = static_cast<int>(backend);
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.plugins[slot].offersAPass()) return &r.plugins[slot];
    if (r.tried[slot]) {
      if (why) *why = "the " + toString(backend) + " backend could not be loaded";
      return nullptr;
    }
    r.tried[slot] = true;
  }
  const std::string file = libraryOf(backend);
  if (file.empty()) {
    if (why) *why = "the " + toString(backend) + " backend is not part of this build";
    return nullptr;
  }
  std::string error;
  if (!openBeside(file, &error)) {  // its static initialiser registers it
    if (why) *why = "the " + toString(backend) + " backend's library " + file + " could not be loaded: " + error;
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.plugins[slot].offersAPass()) return &r.plugins[slot];
  if (why) *why = file + " did not register the " + toString(backend) + " backend";
  return nullptr;
}

}  // namespace detail
}  // namespace pcl_dise
