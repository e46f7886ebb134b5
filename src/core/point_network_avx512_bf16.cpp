// The per-point network (point_network.h) with its edge MLPs in bfloat16; compiled with
// -mavx512f -mavx512bf16.
#include "simd_avx512_bf16.h"

namespace pcl_dise {
namespace detail {
namespace avx512_bf16 {

const PointNetworkImplementation kPointNetwork{"AVX-512 BF16", pointGroupLanes<Avx512Bf16, Bf16PairRows<Avx512Bf16>>,
                                               Avx512Bf16::width};

}  // namespace avx512_bf16
}  // namespace detail
}  // namespace pcl_dise
