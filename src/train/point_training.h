#pragma once
// The native training engine's per-point pass (docs/algorithm.md, "Training"): one DISE iteration
// at one point, forward and backward. Training needs gradients inside one iteration only (the
// normals and weights entering it are detached), so each point's loss depends on the network at
// that point alone and its backward pass runs right after its forward pass, while the
// neighbourhood's activations are still in cache. The pass runs edge-major (a row per edge), so
// that every product of the forward pass, of the input gradients and of the weight gradients is
// one register-blocked kernel; it is compiled in the same instruction-set units as the inference
// network (point_network.h) and chosen with it at run time.
#include <cstdint>
#include <vector>

#include "pcl_dise/train/native_training.h"  // NormalLoss
#include "point_network.h"

namespace pcl_dise {
namespace detail {

/** The weights as the training pass reads them: the inference layout (W^T per layer) and, for
 *  the input gradients of the per-edge layers, W itself (the same DenseWeights layout, with the
 *  layer's outputs as rows). */
struct PointTrainingWeights {
  explicit PointTrainingWeights(const Model& model);
  PointNetworkWeights forward;
  DenseWeights layer1_second_t, layer2_edge_t, layer2_second_t, layer3_edge_t, layer3_second_t, kernel_edge_t;
  std::vector<float> kernel_logit_column;  // layer4.2's weights (64)
};

/** Gradients in the layout of PointNetworkWeights (W^T per layer block), all zero. */
PointNetworkWeights zeroGradients(const Model& shapes);

/** Gradients laid out as PointNetworkWeights, summed back into a Model's tensors (packParameters'
 *  order through packParameters). */
Model gradientsAsModel(const PointNetworkWeights& gradients);

/** One point of a training iteration. */
struct TrainingNeighborhood {
  PointNeighborhood network;             // as the inference pass reads it
  const float* dropout_scale = nullptr;  // count factors (0 or 1 / (1 - p)) on the softmax weights, or nullptr
  const float* target = nullptr;         // the true normal (3) where the point is in the loss, else nullptr
  float loss_scale = 0.f;                // d (mean loss) / d (this point's loss): 1 / the points in the loss
  float weight_loss_scale = 0.f;         // lambda * loss_scale: the supervised kernel weights' share (0: none)
  train::NormalLoss normal_loss = train::NormalLoss::Chord;  // what the normal's gradient is of
};

/** The kernel weights a point's neighbourhood is pulled towards where the kernel weights are
 *  supervised (docs/models.md, "Training"): w*_e = exp(-d_e^2 / sigma^2) / sum, with d_e = t . (p_e - p)
 *  the distance of neighbour e to the true tangent plane through the point and sigma^2 = max((0.1 r)^2,
 *  mean d_e^2), r^2 the neighbourhood's mean squared distance to the point: sharp where the
 *  neighbourhood is clean (at an edge, the point's own face), no sharper than the noise allows.
 *  \param[in] points the cloud, rows of 3 floats
 *  \param[in] p the point (3 floats)
 *  \param[in] neighbors count row indices into points
 *  \param[in] count the neighbourhood's size, >= 1
 *  \param[in] t the point's true normal (3, unit)
 *  \param[out] out count weights, summing to 1 */
void kernelWeightTargets(const float* points, const float* p, const std::int32_t* neighbors, int count, const float* t,
                         float* out);

/** Forward and backward pass at one point. Writes the point's (dropped-out) kernel weights to
 *  weights_out (count); where the weighted fit is valid its normal (sign rule applied) to normal
 *  and returns true, else leaves normal alone (the caller keeps the previous one) and returns
 *  false. Where nb.target is set, writes min(|n - t|, |n + t|) for the normal that results to
 *  *loss and adds loss_scale times its gradient to `gradients`, and where weight_loss_scale > 0
 *  (and the fit is valid) weight_loss_scale times the gradient of KL(w* || w), w the softmax
 *  weights before dropout and w* kernelWeightTargets' (the loss written stays the normal's). scratch holds
 *  pointTrainingScratchFloats(count) floats. */
using PointTrainingFunction = bool (*)(const PointTrainingWeights& net, const TrainingNeighborhood& nb, float* scratch,
                                       PointNetworkWeights& gradients, float* weights_out, float* normal, float* loss);

std::size_t pointTrainingScratchFloats(int count);

/** The training pass in the instruction set of pointNetwork() (the widest this processor runs,
 *  PCL_DISE_SIMD caps it), and every version this processor runs, narrowest first. */
PointTrainingFunction pointTraining();
std::vector<std::pair<const char*, PointTrainingFunction>> pointTrainingImplementations();

namespace portable {
bool pointTraining(const PointTrainingWeights& net, const TrainingNeighborhood& nb, float* scratch,
                   PointNetworkWeights& gradients, float* weights_out, float* normal, float* loss);
}  // namespace portable
namespace avx2 {
bool pointTraining(const PointTrainingWeights& net, const TrainingNeighborhood& nb, float* scratch,
                   PointNetworkWeights& gradients, float* weights_out, float* normal, float* loss);
}  // namespace avx2
namespace avx512 {
bool pointTraining(const PointTrainingWeights& net, const TrainingNeighborhood& nb, float* scratch,
                   PointNetworkWeights& gradients, float* weights_out, float* normal, float* loss);
}  // namespace avx512

}  // namespace detail
}  // namespace pcl_dise
