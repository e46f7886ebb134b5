#pragma once
// The native training engine (docs/algorithm.md, "Training"): one DISE training iteration on the
// CPU, forward and backward, without LibTorch, and LibTorch's RMSprop on packed parameters.
// dise_train drives it; a LibTorch run and a native run read and write the same checkpoints.
#include <cstdint>
#include <string>
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

/** How far a normal n lies from its true normal t, whatever their signs: the loss whose gradient a
 *  training iteration takes (docs/algorithm.md, "6. Training"). */
enum class NormalLoss {
  Chord,         ///< min(|n - t|, |n + t|) = 2 sin(angle / 2): the paper's
  SquaredChord,  ///< its square, 2 - 2 |n . t|: large errors weigh more, as they do in an RMSE of angles
  Sine,          ///< |n x t| = sin(angle) (DeepFit, AdaFit)
};

/** "chord", "squared-chord" or "sine". */
std::string toString(NormalLoss loss);
/** The NormalLoss toString names; throws std::invalid_argument for another name. */
NormalLoss parseNormalLoss(const std::string& name);

/** What a training iteration's gradient is taken of. */
struct TrainingLoss {
  NormalLoss normal = NormalLoss::Chord;  ///< the normals' loss, mean over the loss points
  /// lambda > 0 adds lambda times the mean over the loss points of KL(w* || w), w the softmax
  /// weights before dropout and w* the weights favouring the true tangent plane (the supervised
  /// kernel weights); 0: none.
  double kernel_weights = 0;
  /** Throws std::invalid_argument for a weight that is negative or not finite. */
  void validate() const;
  /** Whether this is the paper's loss (the chord alone), which every engine trains. */
  bool published() const { return normal == NormalLoss::Chord && kernel_weights == 0; }
};

/** The loss of a training iteration and its gradient. */
struct TrainingGradient {
  /// Mean over the loss points of the chord min(|n - t|, |n + t|), whatever loss the gradient is
  /// of: runs of different losses log comparable figures.
  double loss = 0;
  std::vector<float> gradient;  ///< d loss / d parameter, Model::kNumParameters in packParameters' order
};

/** One training iteration of `model` on every node of `input`, and the gradient of the loss over
 *  its first `loss_points` nodes.
 *  targets: true normals of those nodes, loss_points x 3; dropout_scale: empty (no dropout) or one
 *  factor per neighbourhood entry (0 or 1 / (1 - p): see dropoutScales) applied to the softmax
 *  weights; next receives the new normals (the previous one where a weighted fit degenerates,
 *  which then carries no gradient) and the (dropped-out) weights; compute: empty (every node) or
 *  one flag per node, nodes with 0 keeping their previous state (see nodesNeededPerIteration);
 *  loss: what the gradient is of (the loss returned is the chord's whatever it is).
 *  The result does not depend on `threads`: points are summed in fixed chunks, in order.
 *  Throws std::invalid_argument for malformed input (sizes, indices out of range, empty
 *  neighbourhoods, loss_points > nodes). */
TrainingGradient trainingIteration(const Model& model, const ForwardInput& input, const TrainingState& previous,
                                   const float* targets, std::size_t loss_points,
                                   const std::vector<float>& dropout_scale, int threads, TrainingState& next,
                                   const std::vector<std::uint8_t>& compute = {}, const TrainingLoss& loss = {});

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
