// The per-point network (point_network.h) in AVX2 + FMA; compiled with -mavx2 -mfma.
#include "simd_avx2.h"

namespace pcl_dise {
namespace detail {
namespace avx2 {

const PointNetworkImplementation kPointNetwork{"AVX2", pointGroupLanes<Avx2>, Avx2::width};

}  // namespace avx2
}  // namespace detail
}  // namespace pcl_dise
