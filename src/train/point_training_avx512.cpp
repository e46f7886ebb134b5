// The training pass (point_training.h) in AVX-512; compiled with -mavx512f.
#include "point_training_simd.h"
#include "simd_avx512.h"

namespace pcl_dise {
namespace detail {
namespace avx512 {

bool pointTraining(const PointTrainingWeights& net, const TrainingNeighborhood& nb, float* scratch,
                   PointNetworkWeights& gradients, float* weights_out, float* normal, float* loss) {
  return pointTrainingEdges<Avx512>(net, nb, scratch, gradients, weights_out, normal, loss);
}

}  // namespace avx512
}  // namespace detail
}  // namespace pcl_dise
