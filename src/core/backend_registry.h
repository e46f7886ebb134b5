#pragma once
// Internal: the optional backends (LibTorch, CUDA) live in libraries of their own, so that the
// core and the PCL feature link neither LibTorch nor CUDA. Each such library registers its
// backend when it is loaded: by the program that links it, or on first use by loadBackend, which
// opens it at run time (shared builds) from beside the core library or the loader's search path.
#include <string>

#include "iteration_zero.h"

namespace pcl_dise {
namespace detail {

/** What a backend offers: the DISE iterations (see runNativeIterations), the whole forward pass
 *  on its device, or both; and whether it can run here. */
struct BackendPlugin {
  /// The iterations on a graph prepared on the CPU; nullptr where run_whole does it all.
  void (*run_iterations)(const Model& model, PreparedGraph& graph, const ForwardOptions& options,
                         ForwardResult& result);
  /// Whether it can run here; where not, why (the device's own error) in *why (may be nullptr).
  bool (*available)(std::string* why);
  /// The whole forward pass on the backend's device (options.iterations > 0, points > 0), from a search
  /// (input.search, every point queried) or from neighbourhoods (input.neighborhoods, checked by
  /// checkForwardInput); nullptr where the backend runs the iterations only (the search and
  /// iteration 0 then run on the CPU).
  void (*run_whole)(const Model& model, const ForwardInput& input, const ForwardOptions& options,
                    ForwardResult& result) = nullptr;
  /** Whether it offers a pass (iterations, a whole pass or both): the one rule by which a
   *  registered plugin counts. */
  bool offersAPass() const { return run_iterations != nullptr || run_whole != nullptr; }
};

/** Called once by an optional backend's library as it loads; a plugin that offers no pass
 *  (offersAPass) counts as not registered. */
void registerBackend(Backend backend, BackendPlugin plugin);

/** The plugin of `backend`, loading its library where it is not registered yet; nullptr (with
 *  the reason in *why) where this build or machine has none. Never nullptr for Native. */
const BackendPlugin* loadBackend(Backend backend, std::string* why);

}  // namespace detail
}  // namespace pcl_dise
