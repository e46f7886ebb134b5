// The training pass (point_training.h) in AVX2 + FMA; compiled with -mavx2 -mfma.
#include "point_training_simd.h"
#include "simd_avx2.h"

namespace pcl_dise {
namespace detail {
namespace avx2 {

bool pointTraining(const PointTrainingWeights& net, const TrainingNeighborhood& nb, float* scratch,
                   PointNetworkWeights& gradients, float* weights_out, float* normal, float* loss) {
  return pointTrainingEdges<Avx2>(net, nb, scratch, gradients, weights_out, normal, loss);
}

}  // namespace avx2
}  // namespace detail
}  // namespace pcl_dise
