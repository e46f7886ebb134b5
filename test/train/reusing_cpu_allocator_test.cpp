// The trainer's CPU allocator: large blocks come back for the same size, small ones and
// overflowing ones are not kept, and tensors allocated through it compute as usual.
#include <c10/core/CPUAllocator.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "pcl_dise/train/reusing_cpu_allocator.h"

namespace {

using pcl_dise::train::ReusingCpuAllocator;

constexpr std::size_t kMiB = std::size_t(1) << 20;

TEST(ReusingCpuAllocator, ReusesAFreedBlockOfTheSameSize) {
  ReusingCpuAllocator allocator(c10::GetDefaultCPUAllocator(), kMiB, 64 * kMiB);
  void* first;
  {
    const c10::DataPtr block = allocator.allocate(3 * kMiB);
    first = block.get();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % 64, 0u);
  }
  EXPECT_EQ(allocator.cachedBytes(), 3 * kMiB);
  const c10::DataPtr again = allocator.allocate(3 * kMiB - 100);  // same 64 KiB-rounded size
  EXPECT_EQ(again.get(), first);
  EXPECT_EQ(allocator.cachedBytes(), 0u);
  const c10::DataPtr other = allocator.allocate(5 * kMiB);
  EXPECT_NE(other.get(), first);
}

TEST(ReusingCpuAllocator, KeepsNoSmallBlocks) {
  ReusingCpuAllocator allocator(c10::GetDefaultCPUAllocator(), kMiB, 64 * kMiB);
  { const c10::DataPtr small = allocator.allocate(1000); }
  EXPECT_EQ(allocator.cachedBytes(), 0u);
}

TEST(ReusingCpuAllocator, ReleasesTheCacheBeyondItsLimit) {
  ReusingCpuAllocator allocator(c10::GetDefaultCPUAllocator(), kMiB, 10 * kMiB);
  {
    const c10::DataPtr a = allocator.allocate(4 * kMiB), b = allocator.allocate(4 * kMiB);
    const c10::DataPtr c = allocator.allocate(4 * kMiB);
  }  // c, b, a come back: the third would pass 10 MiB, so the cache starts over with it
  EXPECT_EQ(allocator.cachedBytes(), 4 * kMiB);
  { const c10::DataPtr huge = allocator.allocate(20 * kMiB); }
  EXPECT_EQ(allocator.cachedBytes(), 0u);
}

TEST(ReusingCpuAllocator, ServesLibTorch) {
  ReusingCpuAllocator& allocator = ReusingCpuAllocator::install(256 * kMiB);
  const torch::Tensor x = torch::arange(1 << 20, torch::kFloat32);  // 4 MiB
  EXPECT_DOUBLE_EQ((x * 2).sum().item<double>(), double(1 << 20) * ((1 << 20) - 1));
  void* freed;
  {
    const torch::Tensor y = x + 1;
    freed = y.data_ptr();
  }
  EXPECT_GE(allocator.cachedBytes(), 4 * kMiB);
  const torch::Tensor z = x - 1;
  EXPECT_EQ(z.data_ptr(), freed);
  EXPECT_EQ(z[5].item<float>(), 4.f);
}

}  // namespace
