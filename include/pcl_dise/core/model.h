#pragma once
// The DISE network's weights (7,981 float32 parameters, docs/algorithm.md) and their file format.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pcl_dise/core/network_shape.h"

namespace pcl_dise {

/** y = x W^T + b with W out x in, row-major (PyTorch's nn.Linear layout). */
struct Linear {
  int in_features = 0;        ///< columns of W
  int out_features = 0;       ///< rows of W
  std::vector<float> weight;  ///< out_features x in_features
  std::vector<float> bias;    ///< out_features
};

/** Linear(in, hidden) -> ReLU -> Linear(hidden, out), PyTorch names NAME.0 and NAME.2. */
struct Mlp {
  Linear first;   ///< NAME.0: in -> hidden
  Linear second;  ///< NAME.2: hidden -> out
};

/** The seven MLPs of one DISE iteration (weights shared across iterations). */
struct Model {
  Mlp layer1;                                   ///< edge:  8 -> 32 -> 16
  Mlp layerg;                                   ///< node: 19 -> 32 -> 8
  Mlp layer2;                                   ///< edge: 24 -> 32 -> 16
  Mlp layerg2;                                  ///< node: 16 -> 32 -> 8
  Mlp layer3;                                   ///< edge: 24 -> 32 -> 16
  Mlp layerg3;                                  ///< node: 16 -> 32 -> 12 (quaternion 4 + theta 8)
  Mlp layer4;                                   ///< edge: 27 -> 64 -> 1 (kernel logit)
  std::map<std::string, std::string> metadata;  ///< provenance, stored in the file's __metadata__

  static constexpr int kNumParameters = pcl_dise::kNumParameters;  ///< 7,981 weights and biases

  /** The MLPs with their file names, in forward order. */
  std::array<std::pair<const char*, Mlp*>, 7> namedMlps();
  std::array<std::pair<const char*, const Mlp*>, 7> namedMlps() const;  ///< see namedMlps()
};

/** How a model normalises the edges it reads (docs/algorithm.md, section 3): the file's
 *  __metadata__ entry "edge_scale". */
enum class EdgeScaleRule {
  Global,  ///< one s for the whole cloud ("global", or no entry: the published recipe)
  Local,   ///< each point's own s, from its neighbourhood's spacing ("local")
};

/** The rule `model` was trained with: its metadata's "edge_scale" ("global" or "local"; absent:
 *  Global). Throws std::runtime_error for another value. */
EdgeScaleRule edgeScaleRule(const Model& model);
/** Records `rule` in model's metadata ("edge_scale"), as saveModel then writes it. */
void setEdgeScaleRule(Model& model, EdgeScaleRule rule);
/** "global" or "local". */
std::string toString(EdgeScaleRule rule);

/** A model with PyTorch's default initialisation (uniform in +-1/sqrt(fan_in)) from `seed`. */
Model randomModel(std::uint64_t seed);

/** Loads a .safetensors model (names "layer1.0.weight", ..., optionally prefixed by the published
 *  "stepWeights."). Throws std::runtime_error naming the file and the problem: missing or
 *  unexpected tensors, wrong shapes or dtypes, truncated files, non-finite values, an unknown
 *  edge-scale rule. */
Model loadModel(const std::string& path);

/** All 7,981 parameters in one array, MLP by MLP in forward order, each as first weight, first
 *  bias, second weight, second bias (the CUDA backend's layout). */
std::vector<float> packParameters(const Model& model);

/** The inverse of packParameters: a model holding `packed` (Model::kNumParameters values, in
 *  packParameters' order; throws std::invalid_argument for another count). */
Model unpackParameters(const std::vector<float>& packed);

/** Writes `model` (and its metadata) as .safetensors. */
void saveModel(const Model& model, const std::string& path);

/** The default model for k neighbours: dise_k<k>.safetensors where a model was trained for that
 *  k (see docs/models.md, "The models"), else dise_k64.safetensors. The first folder that holds
 *  either wins, in this order: $PCL_DISE_MODEL_DIR if set; then, for the build tree's library,
 *  the source tree's data/models, and for an installed one share/pcl_dise/models of the prefix it
 *  is installed in (found from the library's own location, so an install may move); last the
 *  prefix configured at build time. Where none holds a model, that last path is returned. */
std::string defaultModelPath(int k = 64);

/** `path`, or where it is empty the default model for k (defaultModelPath; k <= 0, as for a
 *  radius search, gives the k = 64 model). */
std::string modelPathOrDefault(const std::string& path, int k);

/** Message for a missing default model, saying how to obtain one. */
std::string missingModelHelp(const std::string& path);

}  // namespace pcl_dise
