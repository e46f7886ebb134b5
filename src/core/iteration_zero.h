#pragma once
// Internal: iteration 0 (plain PCA) and the rules for points without a normal, the state every backend starts from,
// built once by prepareGraph (called by runForward, forward.cpp).
#include <cstdint>
#include <vector>

#include "pcl_dise/core/forward.h"

namespace pcl_dise {
namespace detail {

/** Iteration 0 done, the neighbourhoods of the DISE iterations set. */
struct PreparedGraph {
  const float* points = nullptr;          // M x 3
  std::size_t num_points = 0;             // M
  float edge_scale = 1.f;                 // s (the global rule)
  const float* edge_scales = nullptr;     // M or nullptr: each point's s (the local rule), read instead
  Neighborhoods neighborhoods;            // N(i) of the points with a normal (all of it); empty rows for the others
  std::vector<float> initial_weights;     // per entry of `neighborhoods`: 1 / (K_i - 1)
  std::vector<float> normals;             // M x 3, iteration 0 (PCA), NaN where none
  std::vector<float> curvature;           // M, iteration 0
  std::vector<std::uint8_t> active;       // M, 1 where the DISE iterations compute a normal
  std::vector<std::int32_t> visit_order;  // M, the points along a Morton curve (mortonOrder)
  const std::uint8_t* last_iteration = nullptr;  // M or nullptr: ForwardInput::last_iteration
};

/** Throws std::invalid_argument where input.neighborhoods do not fit input.num_points (sizes,
 *  offsets, indices out of range) or a given edge scale (not NaN) is not finite and positive. */
void checkForwardInput(const ForwardInput& input);
/** Throws std::invalid_argument where a given edge scale (not NaN: to be measured) is not finite
 *  and positive. */
void checkEdgeScale(float edge_scale);

/** Iteration 0 on input's neighbourhoods. owned: nullptr, or the very lists input.neighborhoods
 *  points to, which the caller no longer needs: where every point has a normal they become
 *  the graph's neighbourhoods instead of being copied (26 MB at 100,000 points and k = 64). */
PreparedGraph prepareGraph(const ForwardInput& input, int threads, Neighborhoods* owned = nullptr);

/** Where the DISE iterations start: iteration-0 normals (M x 3) and curvature (M). A point
 *  without a normal reads as the zero vector, which its neighbours' edge features take as "no
 *  normal" (their cosines with it are 0, edge_features.h); its curvature is NaN. */
void startingState(const PreparedGraph& graph, std::vector<float>& normals, std::vector<float>& curvature);

/** NaN normal and curvature, in result.normals, every result.iteration_normals and
 *  result.curvature, for the points of `graph` without a normal (the zero state of
 *  startingState is the iterations' alone). */
void withoutNormalAsNaN(const PreparedGraph& graph, ForwardResult& result);

/** The DISE iterations of one backend: advance `graph`'s iteration-0 state by options.iterations
 *  iterations and fill `result` (normals, curvature, kernel weights, iteration_normals[1..L]).
 *  They take over graph.initial_weights' storage for the kernel weights. The optional backends'
 *  versions register themselves (backend_registry.h). */
/** Point i's s: its own under the local rule, else the whole cloud's. */
inline float edgeScaleOf(const PreparedGraph& graph, std::size_t i) {
  return graph.edge_scales ? graph.edge_scales[i] : graph.edge_scale;
}

void runNativeIterations(const Model& model, PreparedGraph& graph, const ForwardOptions& options,
                         ForwardResult& result);

}  // namespace detail
}  // namespace pcl_dise
