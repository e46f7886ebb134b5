#pragma once
// The native backend's per-point network (docs/algorithm.md steps 1-10): a neighbourhood's edge
// features, the seven MLPs, the kernel softmax and the weighted plane fit, on raw arrays. A group
// of points runs together, one point per SIMD lane and a register per edge: register t holds edge
// t of every point. Every per-edge layer is then a register-blocked product over whole registers
// whatever the neighbourhood's size (k = 64 has 65 edges), and the per-point layers, means,
// softmax and plane fits' sums run lane by lane without reductions across lanes. AVX2 + FMA and
// AVX-512 versions are chosen at run time where the processor has them, and for Precision::Bf16
// an AVX-512 BF16 version whose edge MLPs multiply in bfloat16 (vdpbf16ps, float sums); the
// library itself is built for the default x86-64 target, whose ABI PCL and Eigen users share.
#include <cstdint>
#include <utility>
#include <vector>

#include "pcl_dise/core/forward.h"  // Precision
#include "pcl_dise/core/model.h"

namespace pcl_dise {
namespace detail {

/** The widest registers of any implementation, in floats. */
constexpr int kWidestRegister = 16;

/** A linear layer as W^T (in x out, row-major, rows `stride` floats apart) and its bias (out;
 *  empty for the rows of a concatenated input whose bias another block carries). stride rounds
 *  out up to kWidestRegister, with zeros in the columns and bias entries after out, so that
 *  whole registers of outputs can be computed even where out is not a multiple of them.
 *  bf16_pairs: the same W^T rounded to bfloat16, rows 2r and 2r + 1 side by side in one 32-bit
 *  entry (bfloat16Pair; an odd last row with 0), (in + 1) / 2 rows of stride entries. */
struct DenseWeights {
  int in = 0, out = 0, stride = 0;
  std::vector<float> weight_t, bias;
  std::vector<std::uint32_t> bf16_pairs;
};

/** x rounded to bfloat16 (the high 16 bits of a float): to nearest, ties away from zero (the
 *  bits plus 0x8000, cut to their high half; for finite x). The one rounding of the bfloat16
 *  path: the weights here, the activations in its SIMD code. */
std::uint16_t bfloat16Bits(float x);
/** low and high rounded to bfloat16 in one 32-bit word, low in the low half (the layout
 *  vdpbf16ps multiplies pairwise). */
std::uint32_t bfloat16Pair(float low, float high);

/** A Model's weights laid out for the per-point network. The first layers of layer2, layer3 and
 *  layer4 take concatenations [per-edge | per-point] and are split into edge rows and point rows:
 *  the point rows become a per-point bias. */
struct PointNetworkWeights {
  explicit PointNetworkWeights(const Model& model);
  DenseWeights layer1_first, layer1_second;               // 8 -> 32 -> 16
  DenseWeights layer2_edge, layer2_point, layer2_second;  // [e1 16 | g1 8] -> 32 -> 16
  DenseWeights layer3_edge, layer3_point, layer3_second;  // [e2 16 | g2 8] -> 32 -> 16
  DenseWeights kernel_edge, kernel_theta, kernel_logit;   // [e3 16 | R c 3], theta 8 -> 64 -> 1
  DenseWeights g1_first, g1_second;                       // layerg:  19 -> 32 -> 8
  DenseWeights g2_first, g2_second;                       // layerg2: 16 -> 32 -> 8
  DenseWeights g3_first, g3_second;                       // layerg3: 16 -> 32 -> 12
};

/** How PointNetworkWeights lays out a Model: `block` holds the rows `columns` ({first, count}
 *  each) of `layer`'s W^T, and its bias where with_bias. The one description of the split every
 *  user of the layout (the inference pass, the training pass, its gradients) follows. */
struct WeightBlock {
  DenseWeights PointNetworkWeights::*block;
  Linear& (*layer)(Model&);
  std::vector<std::pair<int, int>> columns;
  bool with_bias;
};
const std::vector<WeightBlock>& weightBlocks();

/** n rounded up to a multiple of kWidestRegister. */
int roundUpToWidest(int n);

/** One point's neighbourhood in the state of the previous iteration. */
struct PointNeighborhood {
  const float* points = nullptr;            // M x 3
  const float* normals = nullptr;           // M x 3, finite at the centre and every neighbour
  float edge_scale = 1.f;                   // s
  std::int64_t center = 0;                  // i
  const std::int32_t* neighbors = nullptr;  // count node indices, count >= 1
  int count = 0;
  const float* previous_weights = nullptr;  // count kernel weights
};

/** Where one point's iteration goes: its new kernel weights (count floats: a softmax over its
 *  neighbourhood; may be the neighbourhood's previous_weights), and the weighted plane fit's
 *  normal (3) and curvature, written only where the fit succeeds (fitted;
 *  planeFromWeightedCovariance). */
struct PointResult {
  float* weights = nullptr;
  float* normal = nullptr;
  float* curvature = nullptr;
  bool fitted = false;
};

/** One DISE iteration at `size` points together (1 <= size <= the implementation's group_size),
 *  one point per SIMD lane: a point's result does not depend on the others in its group. scratch
 *  holds pointGroupScratchFloats(the largest count among them) floats. */
using PointGroupFunction = void (*)(const PointNetworkWeights& net, const PointNeighborhood* group, int size,
                                    float* scratch, PointResult* results);

struct PointNetworkImplementation {
  const char* name;  // "portable", "AVX2", "AVX-512", "AVX-512 BF16"
  PointGroupFunction function;
  int group_size;  // points per call at most: the floats of its registers
};

/** The float implementations this processor runs, narrowest (portable) first. The environment
 *  variable PCL_DISE_SIMD=portable|avx2 caps them (for comparisons). */
const std::vector<PointNetworkImplementation>& pointNetworkImplementations();

/** The bfloat16 implementation where this processor has AVX512_BF16 (and the build has it, and
 *  PCL_DISE_SIMD does not cap it), else nullptr. */
const PointNetworkImplementation* bfloat16PointNetwork();

/** The one the native backend runs at `precision`: the widest float implementation, or the
 *  bfloat16 one where there is one (where there is none, Bf16 runs the float one). */
const PointNetworkImplementation& pointNetwork(Precision precision = Precision::Float);

/** Scratch floats every implementation needs for a group whose largest neighbourhood has `count`
 *  edges. */
std::size_t pointGroupScratchFloats(int count);

// One per translation unit, each compiled for its instruction set: call them only through
// pointNetworkImplementations(), which offers them only where the processor has them.
namespace portable {
extern const PointNetworkImplementation kPointNetwork;
}  // namespace portable
namespace avx2 {
extern const PointNetworkImplementation kPointNetwork;
}  // namespace avx2
namespace avx512 {
extern const PointNetworkImplementation kPointNetwork;
}  // namespace avx512
namespace avx512_bf16 {
extern const PointNetworkImplementation kPointNetwork;
}  // namespace avx512_bf16

}  // namespace detail
}  // namespace pcl_dise
