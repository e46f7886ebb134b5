// Backend::Cuda: the whole forward pass on the device, from a search or from neighbourhoods
// found elsewhere (a user's search method, a tile). Built into libpcl_dise_cuda_backend, which
// registers the backend as it loads (backend_registry.h).
#include <cmath>
#include <limits>
#include <new>

#include "backend_registry.h"
#include "dise_cuda.h"
#include "iteration_zero.h"
#include "pcl_dise/core/adaptive_mode.h"

namespace pcl_dise {
namespace detail {
namespace {

bool cudaDeviceAvailable(std::string* why) { return cuda::deviceAvailable(why); }

float settleCosineOrNaN(const ForwardOptions& options) {
  return options.settle_degrees > 0 ? settleCosine(options.settle_degrees) : std::numeric_limits<float>::quiet_NaN();
}

// The stages of runForward on the device: search, edge scale (its terms there, their exact sum
// here), iteration 0, the iterations; the normals come back once.
void runWholeOnCuda(const Model& model, const ForwardInput& input, const ForwardOptions& options,
                    ForwardResult& result) {
  const std::size_t m = input.num_points;
  const NeighborSearch every_point;  // given neighbourhoods: the edge scale's search is over all points
  const NeighborSearch& search = input.search && !input.neighborhoods ? *input.search : every_point;
  const std::size_t searched = searchedCount(search, m);
  const double stages = options.iterations + 1.0;
  cuda::DeviceEstimation device(input.points, m, searched, search.tie_order);
  if (input.neighborhoods)
    device.useNeighborhoods(input.neighborhoods->offsets.data(), input.neighborhoods->indices.data());
  else if (search.k > 0)
    device.searchNearest(search.k);
  else
    device.searchWithin(search.radius, static_cast<float>(double(search.radius) * double(search.radius)),
                        static_cast<int>(search.max_neighbors));
  float edge_scale = input.edge_scale;
  // The local rule's scales, where not given, from the 17 nearest found on the CPU.
  std::vector<float> local_scales;
  const bool local = options.iterations > 0 && edgeScaleRule(model) == EdgeScaleRule::Local;
  const float* edge_scales = local ? input.edge_scales : nullptr;
  if (local && !edge_scales) {
    local_scales = searchLocalEdgeScales(input.points, m, search, options.threads);
    edge_scales = local_scales.data();
  }
  if (std::isnan(edge_scale) && !edge_scales) {
    std::size_t entries = 0;
    const std::vector<double> terms = device.edgeScaleTerms(&entries);
    edge_scale = edgeScaleFromTerms(terms.data(), terms.size(), entries);
  }
  device.iterationZero();
  result.normals.resize(3 * m);
  result.curvature.resize(m);
  if (options.keep_iterations) {
    device.results(result.normals.data(), result.curvature.data());
    result.iteration_normals.push_back(result.normals);
  }
  if (options.progress && !options.progress({1.0 / stages, "iterations", 0, std::uint64_t(options.iterations)}))
    throw Cancelled();
  std::vector<float> per_iteration(options.keep_iterations ? options.iterations * 3 * m : 0);
  const bool finished = device.iterate(
      packParameters(model).data(), edge_scale, edge_scales, options.iterations, settleCosineOrNaN(options),
      options.keep_iterations ? per_iteration.data() : nullptr, [&](int it) {
        return !options.progress || options.progress({(1.0 + it) / stages, "iterations", std::uint64_t(it),
                                                      std::uint64_t(options.iterations)});
      });
  if (!finished) throw Cancelled();
  for (int it = 0; options.keep_iterations && it < options.iterations; ++it)
    result.iteration_normals.emplace_back(per_iteration.begin() + std::size_t(it) * 3 * m,
                                          per_iteration.begin() + std::size_t(it + 1) * 3 * m);
  device.results(result.normals.data(), result.curvature.data());
  if (options.keep_kernel_weights || options.keep_neighborhoods)  // the weights come along: 4 more bytes each
    device.kernelNeighborhoods(result.kernel_neighborhoods.offsets, result.kernel_neighborhoods.indices,
                               result.kernel_weights);
}

// Thrust's sorts and scans allocate scratch space of their own and throw std::bad_alloc when the
// device has none left: said as the backend's own out-of-memory error.
void runWholeOnCudaSaid(const Model& model, const ForwardInput& input, const ForwardOptions& options,
                        ForwardResult& result) {
  try {
    runWholeOnCuda(model, input, options, result);
  } catch (const std::bad_alloc&) {
    throw cuda::OutOfDeviceMemory(
        "cuda backend: out of device memory in a sort or scan (or out of host memory); run the cloud in tiles "
        "(dise_normals --max-memory)");
  }
}

const bool registered = (registerBackend(Backend::Cuda, {nullptr, cudaDeviceAvailable, runWholeOnCudaSaid}), true);

}  // namespace
}  // namespace detail
}  // namespace pcl_dise

// Linking pcl_dise::cuda_backend statically pulls this in (-u), so that its registration runs.
extern "C" const bool pcl_dise_cuda_backend_registered = pcl_dise::detail::registered;
