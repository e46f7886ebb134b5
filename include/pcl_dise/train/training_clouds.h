#pragma once
// The clouds a training run learns from and the patches it cuts from them (docs/algorithm.md): each
// cloud centred, with its whole-cloud edge scale and a search over it; a patch is the points nearest
// a random centre with their k-NN graph, the loss taken on its inner half.
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/train/training_engine.h"

namespace pcl_dise {
namespace train {

/** A training cloud with its whole-cloud edge scale. With fresh noise, a noisy cloud is held as
 *  its clean cloud and the deviation of its noise, drawn afresh for each patch. */
struct TrainingCloud {
  std::string name;                    ///< its list entry (the base path)
  std::vector<float> points;           ///< N x 3, centred on the points' mean
  std::vector<float> normals;          ///< N x 3, the true normals
  float edge_scale = 1.f;              ///< s of the whole cloud
  std::unique_ptr<GridSearch> search;  ///< over points, for patches
  double noise_deviation = 0;          ///< > 0: new noise of this deviation for each patch
};

/** Reads a PCPNet cloud (BASE.xyz, BASE.normals). fresh_noise: a NAME_noise_white_<level> cloud is
 *  read as NAME (which must exist) and takes new noise of that level in every patch. Throws
 *  std::runtime_error for a cloud that cannot be read. */
TrainingCloud loadTrainingCloud(const std::string& base, bool fresh_noise);

/** A patch: the `size` points nearest a random centre (drawn from rng), their (k + 1)-NN graph
 *  within the patch, the loss on the inner half (outer points have clipped neighbourhoods); a
 *  fresh-noise cloud's patch is cut from a new noisy copy, with that copy's edge scale. Under the
 *  local rule each point's scale too (localEdgeScales over the patch: the loss points' 17
 *  nearest and theirs lie inside it). */
TrainingPatch makePatch(const TrainingCloud& cloud, int size, int k, std::mt19937_64& rng,
                        EdgeScaleRule rule = EdgeScaleRule::Global);

}  // namespace train
}  // namespace pcl_dise
