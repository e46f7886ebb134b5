#pragma once
// A LibTorch CPU allocator that keeps freed large blocks for the next allocation of the same
// size. Training repeats the same tensor shapes every iteration; with the default allocator
// each large tensor is a fresh mmap whose pages fault in (and are zeroed by the kernel) on first
// touch, which took about half of a CPU training step. Include only from LibTorch translation
// units.
#include <c10/core/Allocator.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

namespace pcl_dise {
namespace train {

/** A LibTorch CPU allocator that keeps large freed blocks for the next allocation of their size:
 *  the trainer's tensors of one patch come back every patch. */
class ReusingCpuAllocator final : public c10::Allocator {
 public:
  /** Blocks of at least min_block_bytes are kept when freed, up to max_cached_bytes in all (the
   *  free blocks are released when a new one would exceed it); smaller ones go to `fallback`. */
  ReusingCpuAllocator(c10::Allocator* fallback, std::size_t min_block_bytes, std::size_t max_cached_bytes);
  ~ReusingCpuAllocator() override;

  /** \brief A block of `bytes`: a kept one of that size where there is one. */
  c10::DataPtr allocate(std::size_t bytes) const override;

  /** Bytes held in free blocks. */
  std::size_t cachedBytes() const;

  /** Makes a process-wide instance LibTorch's CPU allocator (call once, before training). */
  static ReusingCpuAllocator& install(std::size_t max_cached_bytes);

 private:
  static void release(void* context);
  void* take(std::size_t block_bytes) const;
  void give(void* block, std::size_t block_bytes) const;

  c10::Allocator* fallback_;
  std::size_t min_block_bytes_, max_cached_bytes_;
  mutable std::mutex mutex_;
  mutable std::multimap<std::size_t, void*> free_blocks_;  ///< block size -> block
  mutable std::size_t cached_bytes_ = 0;
};

}  // namespace train
}  // namespace pcl_dise
