#pragma once
// The DISE forward pass on neighbourhood index arrays, free of PCL: the Feature fills the
// arrays from its search (grid_search.h or the user's PCL search), the trainer from the grid
// search, and every backend runs from here.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "pcl_dise/core/edge_scale.h"
#include "pcl_dise/core/model.h"
#include "pcl_dise/core/neighbor_search.h"
#include "pcl_dise/core/neighborhoods.h"
#include "pcl_dise/core/progress.h"
#include "pcl_dise/core/threads.h"  // detail::resolveThreads, for the callers of the forward pass

namespace pcl_dise {

enum class Backend {
  Native,  ///< fused CPU path (default), no LibTorch needed
  Torch,   ///< LibTorch reference, the training engine (when built with LibTorch)
  Cuda,    ///< CUDA kernels (when built with CUDA and a GPU is present)
};

/** The arithmetic of the native backend's network (docs/benchmarks.md#bfloat16). */
enum class Precision {
  Float,  ///< float throughout (default): the parity tests' and the bit-for-bit promises' path
  Bf16,   ///< the edge MLPs' products in bfloat16 with float sums (AVX512_BF16), the rest in float
};

/** Every backend's name, in the enumeration's order: "native", "torch", "cuda". The names are
 *  said here once, for toString, backendFromString and the tools' help. */
constexpr const char* kBackendNames[] = {"native", "torch", "cuda"};
/** What a backend can do beyond the plain iterations. */
struct BackendCapabilities {
  bool adaptive_mode;  ///< settle_degrees > 0 (adaptive_mode.h)
  bool bf16;           ///< Precision::Bf16
};
/** Every backend's capabilities, in the enumeration's order: the one place the settings'
 *  rules (checkBackendSupports) read them. */
constexpr BackendCapabilities kBackendCapabilities[] = {{true, true}, {false, false}, {true, false}};
/** "native, torch or cuda": the names for a help text or a message. */
std::string backendNames();
/** \brief Throws OptionsError (core/errors.h) where `backend` cannot run the adaptive mode
 *  (settle_degrees > 0) or `precision` (kBackendCapabilities), saying which. */
void checkBackendSupports(Backend backend, double settle_degrees, Precision precision);
/** The backend's name (kBackendNames). */
std::string toString(Backend backend);
/** "float" or "bf16". */
std::string toString(Precision precision);
/** "float" or "bf16"; throws OptionsError (core/errors.h) otherwise. */
Precision precisionFromString(const std::string& name);
/** The backend of one of kBackendNames; throws OptionsError (core/errors.h) otherwise. */
Backend backendFromString(const std::string& name);
/** Whether this build has the backend and it can run here (Cuda: a device is present).
 *  \param[in] backend the backend
 *  \param[out] why where not null and the backend is not available: why not (not built, its
 *  library not loaded, or loaded and no device to run on) */
bool backendAvailable(Backend backend, std::string* why = nullptr);
/** \brief Why `backend` cannot run here, the one message every front end gives: "backend 'cuda'
 *  is not available here: " and backendAvailable's reason; "" where it can run. */
std::string backendUnavailableMessage(Backend backend);
/** The instruction set the native backend's network runs with on this processor at `precision`:
 *  "AVX-512", "AVX2" or "portable" (chosen at run time; PCL_DISE_SIMD=avx2|portable caps it), or
 *  for Bf16 "AVX-512 BF16" where the processor has AVX512_BF16 (elsewhere Bf16 runs in float and
 *  this names the float one). */
std::string nativeInstructionSet(Precision precision = Precision::Float);
/** Whether Precision::Bf16 runs in bfloat16 here (the processor has AVX512_BF16 and
 *  PCL_DISE_SIMD does not cap it). */
bool bfloat16Available();

/** What the forward pass works on.
 *  points: M x 3 row-major node positions in a local frame (an origin subtracted, so that float
 *  keeps the precision of georeferenced data); neighborhoods: N(i) for every node, the node
 *  itself included, neighbour indices in [0, M), or a search that finds them. */
struct ForwardInput {
  const float* points = nullptr;                 ///< M x 3, row-major
  std::size_t num_points = 0;                    ///< M
  const Neighborhoods* neighborhoods = nullptr;  ///< N(i) for every node, or nullptr and a search
  /// s of docs/algorithm.md (edge_scale.h). NaN (the default): the forward pass measures it on
  /// these points; a caller that holds part of a larger cloud (a tile) passes the whole cloud's.
  float edge_scale = std::numeric_limits<float>::quiet_NaN();
  /// A model of the local rule (EdgeScaleRule::Local): each point's s (M values, finite and
  /// positive; localEdgeScales), read instead of edge_scale. nullptr: the forward pass measures
  /// them on these points (searching their 17 nearest, or reading them from its own k-nearest
  /// search); a caller that holds part of a larger cloud (a tile, a receptive field) passes the
  /// whole cloud's. Models of the global rule do not read it.
  const float* edge_scales = nullptr;
  /// The order in which to visit the points (num_points indices, a permutation), where the
  /// caller has one already; nullptr: the forward pass sorts them along a Morton curve itself.
  const std::int32_t* visit_order = nullptr;
  /// Per point, the last iteration whose result the caller reads (0..L); after it the point keeps
  /// its normal, which its neighbours go on reading. A tile's halo point h hops from the tile's
  /// own points needs iteration L - h at most. nullptr: every point runs every iteration. The
  /// native backend skips the rest; the others compute them (the points read are the same).
  const std::uint8_t* last_iteration = nullptr;
  /// Where neighborhoods is nullptr: the search that finds them, run by the forward pass itself,
  /// on the device with Backend::Cuda (the cloud uploaded once, everything up to the last normal
  /// there), by GridSearch on the CPU otherwise. The edge scale (if NaN) is then measured over the
  /// searched points.
  const NeighborSearch* search = nullptr;
};

/** How the forward pass runs. */
struct ForwardOptions {
  int iterations = 4;            ///< L, number of DISE iterations after the PCA of iteration 0
  int threads = 0;               ///< 0: all hardware threads
  bool keep_iterations = false;  ///< store every iteration's normals in ForwardResult::iteration_normals
  /// Keep ForwardResult::kernel_neighborhoods and kernel_weights; false leaves them empty (the
  /// CUDA backend then copies none back: 8 bytes per neighbour, 5 GB at 10M points and k = 64).
  bool keep_kernel_weights = true;
  /// Keep ForwardResult::kernel_neighborhoods where keep_kernel_weights is false (4 bytes per
  /// neighbour): a later stage reads them instead of searching again (KnownNeighborhoods).
  bool keep_neighborhoods = false;
  /// Adaptive mode (native and CUDA backends; adaptive_mode.h): a point whose normal turned by
  /// less than this many degrees in an iteration has settled and skips the remaining ones,
  /// keeping its normal, curvature and kernel weights, which its neighbours go on reading. 0:
  /// exact, every point runs every iteration.
  double settle_degrees = 0;
  /// The native backend's arithmetic. Bf16 runs in float where the processor lacks AVX512_BF16
  /// (saying so once on stderr); the other backends take Float only (std::invalid_argument).
  Precision precision = Precision::Float;
  /// Torch backend: points per chunk. Each chunk runs as one graph (its points plus the points
  /// their neighbourhoods read), about 60 KB per point at k = 64, so memory stays bounded
  /// whatever the cloud's size; results do not depend on it.
  int torch_chunk_points = 16384;
  /// Told the share done: iteration 0 is the first 1 / (L + 1), each iteration the same again
  /// (the native backend reports within iterations, the others after each). Answering false
  /// stops the pass: runForward throws Cancelled.
  ProgressCallback progress;
};

/** What the forward pass gives, per point of ForwardInput. */
struct ForwardResult {
  std::vector<float> normals;    ///< M x 3 unit normals (sign rule applied), NaN where none
  std::vector<float> curvature;  ///< M, |lambda_min| / trace of the last covariance, NaN where none
  std::vector<std::vector<float>> iteration_normals;  ///< (L+1) x (M x 3), iteration 0 = PCA; if kept
  Neighborhoods kernel_neighborhoods;  ///< the neighbourhoods of iterations >= 1 (points without a normal removed)
  std::vector<float> kernel_weights;   ///< per entry of kernel_neighborhoods: the last iteration's weights
};

/** Runs iteration 0 (PCA) and `options.iterations` DISE iterations of `model` on `backend`.
 *  Per-point failures follow PCL: a point whose neighbourhood has fewer than 3 points or no
 *  spread gets NaN normal and curvature and leaves every other neighbourhood before iteration 1.
 *  Throws std::invalid_argument for malformed input (indices out of range, bad sizes) and
 *  std::runtime_error for a backend this build or machine lacks, and for a device error (the
 *  CUDA backend out of device memory says so and how much it needed: run such clouds in tiles,
 *  tiled_forward.h). */
ForwardResult runForward(const Model& model, const ForwardInput& input, const ForwardOptions& options,
                         Backend backend = Backend::Native);

}  // namespace pcl_dise
