#include "pcl_dise/core/threads.h"

#include <omp.h>

namespace pcl_dise {
namespace detail {

int resolveThreads(int threads) { return threads > 0 ? threads : omp_get_num_procs(); }

}  // namespace detail
}  // namespace pcl_dise
