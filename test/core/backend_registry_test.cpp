// The optional backends' registry (src/core/backend_registry.h): a plugin counts as registered by
// the one rule (it offers iterations, a whole pass or both), and the CUDA backend's library, where
// this build has it, loads and registers on any machine: without a device it is unavailable for
// that reason alone, and with one it must be available.
#include <gtest/gtest.h>

#include "backend_registry.h"
#include "pcl_dise/core/forward.h"
#include "test_support.h"

namespace {

using namespace pcl_dise;

TEST(BackendRegistry, APluginCountsWhereItOffersAPass) {
  detail::BackendPlugin none{nullptr, nullptr};
  EXPECT_FALSE(none.offersAPass());
  detail::BackendPlugin iterations{detail::runNativeIterations, nullptr};
  EXPECT_TRUE(iterations.offersAPass());
  detail::BackendPlugin whole{nullptr, nullptr,
                              [](const Model&, const ForwardInput&, const ForwardOptions&, ForwardResult&) {}};
  EXPECT_TRUE(whole.offersAPass());
  std::string why;
  EXPECT_TRUE(backendAvailable(Backend::Native, &why)) << why;
}

TEST(BackendRegistry, CudaPluginLoadsAndRegistersWhereBuilt) {
#ifndef PCL_DISE_TEST_CUDA_BUILT
  GTEST_SKIP() << "built without the CUDA backend (no nvcc)";
#else
  std::string why;
  const detail::BackendPlugin* plugin = detail::loadBackend(Backend::Cuda, &why);
  ASSERT_NE(plugin, nullptr) << why;
  EXPECT_NE(plugin->run_whole, nullptr) << "the CUDA backend runs the whole pass on its device";
  const bool available = backendAvailable(Backend::Cuda, &why);
  if (test::nvidiaDevicePresent()) {
    EXPECT_TRUE(available) << "a device is present, yet: " << why;
  } else {
    EXPECT_FALSE(available);
    EXPECT_NE(why.find("no device"), std::string::npos) << why;
  }
#endif
}

}  // namespace
