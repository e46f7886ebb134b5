#pragma once
// dise_train's engines behind one interface: the native CPU engine (native_training.h, no
// LibTorch) and, where LibTorch is built, the LibTorch engine (CPU or CUDA). Both take the same
// patches, draw the same dropout masks, start from the same weights and keep the same RMSprop
// state, so a run may switch engines at any checkpoint.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "pcl_dise/core/neighborhoods.h"
#include "pcl_dise/train/native_training.h"

namespace pcl_dise {
namespace train {

/** A training patch: the points nearest a centre and their neighbourhoods within the patch.
 *  points, targets: M x 3 (targets: the true normals), nearest the centre first; graph: each
 *  point's k + 1 nearest patch points, itself first; edge_scale: the whole cloud's s (or
 *  edge_scales, each point's, under the local rule); the loss is
 *  taken on the first loss_points points (the inner ones, whose neighbourhoods are not clipped). */
struct TrainingPatch {
  std::vector<float> points;   ///< M x 3
  std::vector<float> targets;  ///< M x 3, the true normals
  Neighborhoods graph;         ///< each point's k + 1 nearest patch points, itself first
  float edge_scale = 1.f;      ///< the whole cloud's s
  /// M values: each point's s (a model of the local rule; localEdgeScales over the patch's
  /// graph, whole for the loss points); empty: edge_scale for every point
  std::vector<float> edge_scales;
  std::size_t loss_points = 0;  ///< the loss is taken on the first loss_points points
};

/** A loss or gradient that is not finite, at `iteration` (1-based) of a patch; the step that
 *  would have used it is not taken. */
struct NonFiniteTraining : std::runtime_error {
  /** \brief The error at `iteration`, with the message `what`. */
  NonFiniteTraining(int iteration, const std::string& what) : std::runtime_error(what), iteration(iteration) {}
  int iteration;  ///< 1-based, within the patch
};

/** One training engine (the native CPU engine, or LibTorch's): patches in, weights updated. */
class TrainingEngine {
 public:
  virtual ~TrainingEngine() = default;
  /** Iteration 0, then `iterations` DISE iterations of the patch with a loss and an RMSprop step
   *  at learning_rate after each (no gradient across iterations), dropout p on the kernel weights
   *  (masks drawn by dropoutScales from seed and the iteration). Returns each iteration's loss;
   *  throws NonFiniteTraining. */
  virtual std::vector<double> trainPatch(const TrainingPatch& patch, int iterations, double learning_rate,
                                         double dropout, std::uint64_t seed) = 0;
  /** The weights, packed as packParameters does. */
  virtual std::vector<float> parameters() const = 0;
  /** \brief Replaces the weights (packed as parameters() gives them). */
  virtual void setParameters(const std::vector<float>& packed) = 0;
  /** RMSprop's state (per parameter, packed likewise). */
  virtual RmsProp optimizer() const = 0;
  /** \brief Replaces RMSprop's state (as optimizer() gives it). */
  virtual void setOptimizer(const RmsProp& state) = 0;
};

/** The dropout mask seed of one iteration of one patch. */
std::uint64_t dropoutSeed(std::uint64_t patch_seed, int iteration);

/** The native CPU engine on `threads` (<= 0: all), training `loss` (trainingIteration's; the
 *  default is the published recipe's). Throws std::invalid_argument for a loss that cannot train. */
std::unique_ptr<TrainingEngine> makeNativeEngine(int threads, const TrainingLoss& loss = {});

}  // namespace train
}  // namespace pcl_dise
