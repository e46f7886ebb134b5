#include "pcl_dise/train/reusing_cpu_allocator.h"

#include <c10/core/CPUAllocator.h>

#include <cstdlib>
#include <new>

namespace pcl_dise {
namespace train {
namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kGranule = std::size_t(1) << 16;  // sizes round up to 64 KiB

// What the deleter needs to give a block back: its owner and size.
struct Block {
  const ReusingCpuAllocator* owner;
  void* data;
  std::size_t bytes;
};

}  // namespace

ReusingCpuAllocator::ReusingCpuAllocator(c10::Allocator* fallback, std::size_t min_block_bytes,
                                         std::size_t max_cached_bytes)
    : fallback_(fallback), min_block_bytes_(min_block_bytes), max_cached_bytes_(max_cached_bytes) {}

ReusingCpuAllocator::~ReusingCpuAllocator() {
  for (auto& [bytes, block] : free_blocks_) std::free(block);
}

c10::DataPtr ReusingCpuAllocator::allocate(std::size_t bytes) const {
  if (bytes < min_block_bytes_) return fallback_->allocate(bytes);
  const std::size_t block_bytes = (bytes + kGranule - 1) / kGranule * kGranule;
  void* data = take(block_bytes);
  if (!data) data = std::aligned_alloc(kAlignment, block_bytes);
  if (!data) throw std::bad_alloc();
  auto* block = new Block{this, data, block_bytes};
  return {data, block, &ReusingCpuAllocator::release, c10::Device(c10::DeviceType::CPU)};
}

void ReusingCpuAllocator::release(void* context) {
  const auto* block = static_cast<Block*>(context);
  block->owner->give(block->data, block->bytes);
  delete block;
}

void* ReusingCpuAllocator::take(std::size_t block_bytes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = free_blocks_.find(block_bytes);
  if (it == free_blocks_.end()) return nullptr;
  void* block = it->second;
  free_blocks_.erase(it);
  cached_bytes_ -= block_bytes;
  return block;
}

void ReusingCpuAllocator::give(void* block, std::size_t block_bytes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cached_bytes_ + block_bytes > max_cached_bytes_) {  // shapes changed: start over
    for (auto& [bytes, cached] : free_blocks_) std::free(cached);
    free_blocks_.clear();
    cached_bytes_ = 0;
  }
  if (block_bytes > max_cached_bytes_) {
    std::free(block);
    return;
  }
  free_blocks_.emplace(block_bytes, block);
  cached_bytes_ += block_bytes;
}

std::size_t ReusingCpuAllocator::cachedBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_bytes_;
}

ReusingCpuAllocator& ReusingCpuAllocator::install(std::size_t max_cached_bytes) {
  // Never destroyed: tensors may outlive main's locals and return their blocks at exit.
  static auto* allocator =
      new ReusingCpuAllocator(c10::GetDefaultCPUAllocator(), std::size_t(1) << 20, max_cached_bytes);
  c10::SetCPUAllocator(allocator, /*priority=*/1);
  return *allocator;
}

}  // namespace train
}  // namespace pcl_dise
