#include "pcl_dise/core/forward.h"

#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "backend_registry.h"
#include "iteration_zero.h"
#include "pcl_dise/core/errors.h"

namespace pcl_dise {

static_assert(std::size(kBackendNames) == static_cast<std::size_t>(Backend::Cuda) + 1, "a name per backend");
static_assert(std::size(kBackendCapabilities) == std::size(kBackendNames), "capabilities per backend");

void checkBackendSupports(Backend backend, double settle_degrees, Precision precision) {
  const BackendCapabilities& can = kBackendCapabilities[static_cast<std::size_t>(backend)];
  if (settle_degrees > 0 && !can.adaptive_mode)
    throw OptionsError("settle (adaptive mode) does not run on the " + toString(backend) + " backend");
  if (precision != Precision::Float && !can.bf16)
    throw OptionsError("precision " + toString(precision) + " does not run on the " + toString(backend) + " backend");
}

std::string backendNames() {
  std::string names;
  for (std::size_t b = 0; b < std::size(kBackendNames); ++b)
    names += (b == 0 ? "" : b + 1 == std::size(kBackendNames) ? " or " : ", ") + std::string(kBackendNames[b]);
  return names;
}

std::string toString(Backend backend) { return kBackendNames[static_cast<std::size_t>(backend)]; }

Backend backendFromString(const std::string& name) {
  for (std::size_t b = 0; b < std::size(kBackendNames); ++b)
    if (name == kBackendNames[b]) return static_cast<Backend>(b);
  throw OptionsError("unknown backend '" + name + "' (expected " + backendNames() + ")");
}

std::string toString(Precision precision) { return precision == Precision::Bf16 ? "bf16" : "float"; }

Precision precisionFromString(const std::string& name) {
  if (name == "float") return Precision::Float;
  if (name == "bf16") return Precision::Bf16;
  throw OptionsError("unknown precision '" + name + "' (expected float or bf16)");
}

bool backendAvailable(Backend backend, std::string* why) {
  const detail::BackendPlugin* plugin = detail::loadBackend(backend, why);
  if (!plugin) return false;
  std::string device_error;
  if (plugin->available(&device_error)) return true;
  if (why)
    *why = "the " + toString(backend) + " backend is loaded but finds no device to run on (" + device_error + ")";
  return false;
}

std::string backendUnavailableMessage(Backend backend) {
  std::string why;
  if (backendAvailable(backend, &why)) return {};
  return "backend '" + toString(backend) + "' is not available here: " + why;
}

namespace {

// Whether the iterations read a scale per point (the model's rule is local).
bool readsLocalScales(const Model& model, const ForwardOptions& options) {
  return options.iterations > 0 && edgeScaleRule(model) == EdgeScaleRule::Local;
}

// The forward pass on neighbourhoods at hand: iteration 0 on the CPU, the iterations on the plugin.
// owned: the lists input.neighborhoods points to where they are the pass's own (its search's),
// which iteration 0 may take over; nullptr for a caller's.
ForwardResult runOnNeighborhoods(const Model& model, const ForwardInput& input, const ForwardOptions& options,
                                 const detail::BackendPlugin* plugin, Neighborhoods* owned) {
  ForwardInput measured = input;
  std::vector<float> local_scales;
  const bool local = readsLocalScales(model, options);
  if (!local) {
    measured.edge_scales = nullptr;  // the global rule reads one s
  } else if (!input.edge_scales) {
    local_scales = localEdgeScales(input.points, input.num_points, input.edge_scale, options.threads);
    measured.edge_scales = local_scales.data();
  }
  if (std::isnan(input.edge_scale) && !measured.edge_scales) {  // iteration 0 does not read it
    measured.edge_scale = options.iterations > 0 ? edgeScale(input.points, input.num_points, options.threads) : 1.f;
  }
  detail::PreparedGraph graph = detail::prepareGraph(measured, options.threads, owned);
  const double stages = options.iterations + 1.0;
  if (options.progress && !options.progress({1.0 / stages, "iterations", 0, std::uint64_t(options.iterations)}))
    throw Cancelled();

  ForwardResult result;
  if (options.keep_iterations) result.iteration_normals.push_back(graph.normals);
  if (options.iterations == 0) {
    result.normals = std::move(graph.normals);
    result.curvature = std::move(graph.curvature);
    result.kernel_neighborhoods = std::move(graph.neighborhoods);
    result.kernel_weights = std::move(graph.initial_weights);
    return result;
  }
  plugin->run_iterations(model, graph, options, result);
  detail::withoutNormalAsNaN(graph, result);
  if (options.progress &&
      !options.progress({1.0, "iterations", std::uint64_t(options.iterations), std::uint64_t(options.iterations)}))
    throw Cancelled();
  result.kernel_neighborhoods = std::move(graph.neighborhoods);
  return result;
}

// The edge scale of a search: over its searched points, from their 17 nearest with ties broken as
// the search breaks them (as the CUDA backend finds them). A k-NN search of 17 or more has found
// them already.
float searchEdgeScale(const float* points, std::size_t num_points, const NeighborSearch& search,
                      const Neighborhoods& found, int threads) {
  const std::size_t searched = searchedCount(search, num_points);
  if (nearestHoldEdgeScale(search.k) && !search.queried) return edgeScale(points, searched, &found, threads);
  // The searched points are the first ones: searched among and asked, the query points beyond
  // them left out.
  NeighborSearch nearest;
  nearest.k = kEdgeScaleNeighbors;
  nearest.tie_order = search.tie_order;
  return NeighborSearchIndex(points, searched, nearest, threads).edgeScale(threads);
}

// The local rule's scales of a search: a k-nearest search of 17 or more has found every point's
// 17 nearest already.
std::vector<float> searchLocalScales(const float* points, std::size_t num_points, const NeighborSearch& search,
                                     const Neighborhoods& found, int threads) {
  if (nearestHoldEdgeScale(search.k) && !search.queried)
    return localEdgeScales(points, found, std::numeric_limits<float>::quiet_NaN(), threads);
  return searchLocalEdgeScales(points, num_points, search, threads);
}

ForwardResult runForwardKeepingAll(const Model& model, const ForwardInput& input, const ForwardOptions& options,
                                   Backend backend) {
  if (options.iterations < 0) throw std::invalid_argument("forward pass: iterations must be >= 0");
  if (!(options.settle_degrees >= 0)) throw std::invalid_argument("forward pass: settle_degrees must be >= 0");
  checkBackendSupports(backend, options.settle_degrees, options.precision);
  const bool has_neighbors = input.neighborhoods != nullptr || input.search != nullptr;
  if (input.num_points > 0 && (input.points == nullptr || !has_neighbors))
    throw std::invalid_argument("forward pass: points and neighbourhoods (or a search) are required");
  if (!has_neighbors) return {};
  const detail::BackendPlugin* plugin = nullptr;
  if (options.iterations > 0) {
    std::string why;
    plugin = detail::loadBackend(backend, &why);
    if (!plugin) throw std::runtime_error(why + " (" + toString(backend) + " backend)");
    // An empty cloud needs no device: the native iterations give its (empty) result.
    if (input.num_points == 0) plugin = detail::loadBackend(Backend::Native, nullptr);
  }
  // A backend that runs it all on its device takes neighbourhoods found elsewhere too (a search of
  // the caller's, a tile's).
  const bool whole_on_device = plugin && plugin->run_whole;
  auto onDevice = [&](const ForwardInput& what) {
    ForwardResult result;
    plugin->run_whole(model, what, options, result);
    return result;
  };
  auto onNeighborhoods = [&](const ForwardInput& with_neighborhoods, Neighborhoods* owned) {
    if (!whole_on_device) return runOnNeighborhoods(model, with_neighborhoods, options, plugin, owned);
    detail::checkForwardInput(with_neighborhoods);
    return onDevice(with_neighborhoods);
  };
  if (input.neighborhoods) return onNeighborhoods(input, nullptr);

  const NeighborSearch& search = *input.search;
  // Checked before the device's path as before the CPU's.
  checkSearch(search, input.num_points);
  detail::checkEdgeScale(input.edge_scale);
  // The device searches where every point's neighbourhood is wanted (the iterations read them all).
  if (whole_on_device && !search.queried) return onDevice(input);
  Neighborhoods found = searchNeighborhoods(input.points, input.num_points, search, options.threads);
  ForwardInput searched = input;
  searched.neighborhoods = &found;
  std::vector<float> local_scales;
  if (readsLocalScales(model, options) && !input.edge_scales) {
    local_scales = searchLocalScales(input.points, input.num_points, search, found, options.threads);
    searched.edge_scales = local_scales.data();
  } else if (std::isnan(input.edge_scale) && options.iterations > 0) {
    searched.edge_scale = searchEdgeScale(input.points, input.num_points, search, found, options.threads);
  }
  return onNeighborhoods(searched, &found);
}

}  // namespace

ForwardResult runForward(const Model& model, const ForwardInput& input, const ForwardOptions& options,
                         Backend backend) {
  ForwardResult result = runForwardKeepingAll(model, input, options, backend);
  if (!options.keep_kernel_weights) {
    if (!options.keep_neighborhoods) result.kernel_neighborhoods = Neighborhoods();
    std::vector<float>().swap(result.kernel_weights);
  }
  return result;
}

}  // namespace pcl_dise
