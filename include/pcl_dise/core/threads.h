#pragma once
// The one rule for "how many threads": every parallel stage of the library resolves its count here.

namespace pcl_dise {
namespace detail {

/** threads where threads > 0, else every processor the machine has (omp_get_num_procs: not
 *  omp_get_max_threads, which LibTorch lowers to its count of physical cores once it starts, 1 on
 *  some virtual machines). */
int resolveThreads(int threads);

}  // namespace detail
}  // namespace pcl_dise
