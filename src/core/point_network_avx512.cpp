// The per-point network (point_network.h) in AVX-512; compiled with -mavx512f.
#include "simd_avx512.h"

namespace pcl_dise {
namespace detail {
namespace avx512 {

const PointNetworkImplementation kPointNetwork{"AVX-512", pointGroupLanes<Avx512>, Avx512::width};

}  // namespace avx512
}  // namespace detail
}  // namespace pcl_dise
