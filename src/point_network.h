#pragma once
// The native backend's per-point network (ALGORITHM.md steps 1-9): one neighbourhood's edge
// features, the seven MLPs and the kernel softmax, on raw arrays. It runs feature-major, a row
// per feature and a SIMD lane per edge, so that every per-edge layer is a register-blocked
// product whatever its width. AVX2 + FMA and AVX-512 versions are chosen at run time where the
// processor has them; the library itself is built for the default x86-64 target, whose ABI PCL
// and Eigen users share.
#include <cstdint>
#include <vector>

#include "pcl_dise/model.h"

namespace pcl_dise {
namespace detail {

/** A linear layer as W^T (in x out, row-major) and its bias (out; empty for the rows of a
 *  concatenated input whose bias another block carries). */
struct DenseWeights {
  int in = 0, out = 0;
  std::vector<float> weight_t, bias;
};

/** A Model's weights laid out for the per-point network. The first layers of layer2, layer3 and
 *  layer4 take concatenations [per-edge | per-point] and are split into edge rows and point rows:
 *  the point rows become a per-point bias. */
struct PointNetworkWeights {
  explicit PointNetworkWeights(const Model& model);
  DenseWeights layer1_first, layer1_second;                // 8 -> 32 -> 16
  DenseWeights layer2_edge, layer2_point, layer2_second;   // [e1 16 | g1 8] -> 32 -> 16
  DenseWeights layer3_edge, layer3_point, layer3_second;   // [e2 16 | g2 8] -> 32 -> 16
  DenseWeights kernel_edge, kernel_theta, kernel_logit;    // [e3 16 | R c 3], theta 8 -> 64 -> 1
  DenseWeights g1_first, g1_second;                        // layerg:  19 -> 32 -> 8
  DenseWeights g2_first, g2_second;                        // layerg2: 16 -> 32 -> 8
  DenseWeights g3_first, g3_second;                        // layerg3: 16 -> 32 -> 12
};

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

/** Writes the point's new kernel weights (count, a softmax over its neighbourhood) into
 *  weights_out; scratch holds pointNetworkScratchFloats(count) floats. */
using PointNetworkFunction = void (*)(const PointNetworkWeights& net, const PointNeighborhood& neighborhood,
                                      float* scratch, float* weights_out);

struct PointNetworkImplementation {
  const char* name;  // "portable", "AVX2", "AVX-512"
  PointNetworkFunction function;
};

/** The implementations this processor runs, narrowest (portable) first. The environment variable
 *  PCL_DISE_SIMD=portable|avx2 caps them (for comparisons). */
const std::vector<PointNetworkImplementation>& pointNetworkImplementations();

/** The widest of them: the one the native backend runs. */
const PointNetworkImplementation& pointNetwork();

/** Scratch floats every implementation needs for a neighbourhood of `count` edges. */
std::size_t pointNetworkScratchFloats(int count);

// One per translation unit, each compiled for its instruction set: call them only through
// pointNetworkImplementations(), which offers them only where the processor has them.
namespace portable {
void pointNetwork(const PointNetworkWeights& net, const PointNeighborhood& neighborhood, float* scratch,
                  float* weights_out);
}  // namespace portable
namespace avx2 {
void pointNetwork(const PointNetworkWeights& net, const PointNeighborhood& neighborhood, float* scratch,
                  float* weights_out);
}  // namespace avx2
namespace avx512 {
void pointNetwork(const PointNetworkWeights& net, const PointNeighborhood& neighborhood, float* scratch,
                  float* weights_out);
}  // namespace avx512

}  // namespace detail
}  // namespace pcl_dise
