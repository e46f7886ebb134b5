#pragma once
// The native training engine (docs/algorithm.md, "Training"): one DISE training iteration on the
// CPU, forward and backward, without LibTorch, and LibTorch's RMSprop on packed parameters.
// dise_train drives it; a LibTorch run and a native run read and write the same checkpoints.
#include <cstdint>
#include <vector>

#include "pcl_dise/core/forward.h"
#include "pcl_dise/core/model.h"

namespace pcl_dise {
namespace train {

/** What enters and leaves a training iteration; no gradient flows through it.
 *  normals: M x 3 (sign rule applied); weights: one kernel weight per neighbourhood entry (E). */
struct TrainingState {
  std::vector<float> normals;  ///< M x 3
  std::vector<float> weights;  ///< E
};

/** Iteration 0 on the graph: PCA normals and initial weights 1 / (K_i - 1), as the LibTorch
 *  engine's initialState (a point without spread gets the normal (1, 0, 0)). */
TrainingState initialTrainingState(const ForwardInput& input, int threads = 0);

/** The loss of a training iteration and its gradient. */
struct TrainingGradient {
  double loss = 0;              ///< mean over the loss points of min(|n - t|, |n + t|)
  std::vector<float> gradient;  ///< d loss / d parameter, Model::kNumParameters in packParameters' order
};

/** One training iteration of `model` on every node of `input`, and the gradient of the loss over
 *  its first `loss_points` nodes.
 *  targets: true normals of those nodes, loss_points x 3; dropout_scale: empty (no dropout) or one
 *  factor per neighbourhood entry (0 or 1 / (1 - p): see dropoutScales) applied to the softmax
 *  weights; next receives the new normals (the previous one where a weighted fit degenerates,
 *  which then carries no gradient) and the (dropped-out) weights; compute: empty (every node) or
 *  one flag per node, nodes with 0 keeping their previous state (see nodesNeededPerIteration);
 *  kernel_weight_loss: lambda > 0 adds lambda times the mean over the loss points of
 *  KL(w* || w) to the loss whose gradient is taken, w the softmax weights before dropout and w*
 *  the weights favouring the true tangent plane (docs/algorithm.md, "6. Training"); the
 *  loss returned stays the normals'.
 *  The result does not depend on `threads`: points are summed in fixed chunks, in order.
 *  Throws std::invalid_argument for malformed input (sizes, indices out of range, empty
 *  neighbourhoods, loss_points > nodes). */
TrainingGradient trainingIteration(const Model& model, const ForwardInput& input, const TrainingState& previous,
                                   const float* targets, std::size_t loss_points,
                                   const std::vector<float>& dropout_scale, int threads, TrainingState& next,
                                   const std::vector<std::uint8_t>& compute = {}, double kernel_weight_loss = 0);

/** Which nodes each of `iterations` training iterations must compute (masks, one per iteration,
 *  one flag per node) so that every loss over the first loss_points nodes comes out as it would
 *  with all nodes computed: iteration L only the loss points, each earlier one also every
 *  neighbour of the nodes the next one computes. Pass mask l - 1 as trainingIteration's
 *  `compute` in iteration l; a skipped node keeps its previous state, which nothing later reads. */
std::vector<std::vector<std::uint8_t>> nodesNeededPerIteration(const Neighborhoods& graph, std::size_t loss_points,
                                                               int iterations);

/** Dropout factors for `entries` weights: 0 with probability p, else 1 / (1 - p); the same for
 *  the same seed. p = 0 gives an empty vector (no dropout). */
std::vector<float> dropoutScales(std::size_t entries, double p, std::uint64_t seed);

/** RMSprop as LibTorch's (not centred, no momentum or weight decay): s = alpha s + (1 - alpha) g^2,
 *  p -= lr g / (sqrt(s) + eps), on parameters packed as packParameters does. */
struct RmsProp {
  double alpha = 0.99;                ///< smoothing of the squared gradients
  double eps = 1e-8;                  ///< added to the root
  std::vector<float> square_average;  ///< per parameter; empty until the first step
  std::int64_t steps = 0;             ///< steps taken
  /** \brief One step on `parameters` with `gradient` (both packed) at `learning_rate`. */
  void step(std::vector<float>& parameters, const std::vector<float>& gradient, double learning_rate);
};

}  // namespace train
}  // namespace pcl_dise
