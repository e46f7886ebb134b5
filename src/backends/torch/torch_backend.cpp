// The LibTorch backend of runForward: the DiseNet module on the prepared graph, on the CPU, a
// chunk of points at a time so that memory stays bounded (per-edge tensors take about 60 KB per
// point at k = 64). Built into libpcl_dise_torch, which registers the backend as it loads
// (backend_registry.h).
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "backend_registry.h"
#include "iteration_zero.h"
#include "pcl_dise/backends/torch/dise_net.h"

namespace pcl_dise {
namespace detail {
namespace {

// One chunk as a graph of its own: the chunk's points first (their neighbourhoods remapped),
// then the other points their neighbourhoods read, with empty neighbourhoods.
struct Chunk {
  std::vector<std::int32_t> nodes;  // local node -> point
  std::size_t num_centers = 0;      // nodes[0 .. num_centers) are the chunk's points
  Neighborhoods neighborhoods;      // over local nodes
  std::vector<float> points;        // local nodes x 3
};

Chunk makeChunk(const PreparedGraph& g, const std::int32_t* centers, std::size_t count,
                std::vector<std::int32_t>& local_of) {
  Chunk chunk;
  chunk.nodes.assign(centers, centers + count);
  chunk.num_centers = count;
  for (std::size_t c = 0; c < count; ++c) local_of[centers[c]] = static_cast<std::int32_t>(c);
  std::vector<std::int32_t> row;
  for (std::size_t c = 0; c < count; ++c) {
    row.clear();
    for (const std::int32_t* j = g.neighborhoods.begin(centers[c]);
         j != g.neighborhoods.begin(centers[c]) + g.neighborhoods.size(centers[c]); ++j) {
      if (local_of[*j] < 0) {
        local_of[*j] = static_cast<std::int32_t>(chunk.nodes.size());
        chunk.nodes.push_back(*j);
      }
      row.push_back(local_of[*j]);
    }
    chunk.neighborhoods.append(row.data(), row.size());
  }
  for (std::size_t n = count; n < chunk.nodes.size(); ++n) chunk.neighborhoods.append(nullptr, 0);
  chunk.points.resize(3 * chunk.nodes.size());
  for (std::size_t n = 0; n < chunk.nodes.size(); ++n) {
    std::copy_n(g.points + 3 * static_cast<std::size_t>(chunk.nodes[n]), 3, chunk.points.data() + 3 * n);
    local_of[chunk.nodes[n]] = -1;  // leaves local_of all -1 for the next chunk
  }
  return chunk;
}

// Rows `nodes` of a row-major table with `width` floats per row, as a tensor.
torch::Tensor gatherRows(const std::vector<float>& table, int width, const std::vector<std::int32_t>& nodes) {
  torch::Tensor t = torch::empty({static_cast<int64_t>(nodes.size()), width}, torch::kFloat32);
  float* out = t.data_ptr<float>();
  for (std::size_t n = 0; n < nodes.size(); ++n)
    std::copy_n(table.data() + width * static_cast<std::size_t>(nodes[n]), width, out + width * n);
  return t;
}

void runTorchIterations(const Model& model, PreparedGraph& g, const ForwardOptions& options, ForwardResult& result) {
  if (options.torch_chunk_points < 1) throw std::invalid_argument("forward pass: torch_chunk_points must be >= 1");
  torch::NoGradGuard no_grad;
  torch::set_num_threads(detail::resolveThreads(options.threads));
  DiseNet net(model);
  net->eval();
  // Chunks are runs of the active points along the Morton curve: compact regions, whose
  // neighbourhoods read few points outside.
  std::vector<std::int32_t> active;
  for (std::int32_t i : g.visit_order)
    if (g.active[i]) active.push_back(i);
  std::vector<float> normals, curvature;
  startingState(g, normals, curvature);
  std::vector<float> weights = std::move(g.initial_weights);
  std::vector<std::int32_t> local_of(g.num_points, -1);
  const std::size_t chunk_points = static_cast<std::size_t>(options.torch_chunk_points);
  for (int iteration = 1; iteration <= options.iterations; ++iteration) {
    std::vector<float> next_normals = normals, next_curvature = curvature, next_weights = weights;
    for (std::size_t first = 0; first < active.size(); first += chunk_points) {
      const Chunk chunk = makeChunk(g, active.data() + first, std::min(chunk_points, active.size() - first), local_of);
      std::vector<float> chunk_scales;
      if (g.edge_scales)
        for (const std::int32_t node : chunk.nodes) chunk_scales.push_back(g.edge_scales[node]);
      const TorchGraph graph =
          TorchGraph::build(chunk.points.data(), chunk.nodes.size(), chunk.neighborhoods, g.edge_scale, torch::kCPU,
                            chunk_scales.empty() ? nullptr : chunk_scales.data());
      // The chunk's weights: its points' entries, in order (the other nodes have none).
      std::vector<float> chunk_weights;
      chunk_weights.reserve(chunk.neighborhoods.numEdges());
      for (std::size_t c = 0; c < chunk.num_centers; ++c) {
        const std::int32_t i = chunk.nodes[c];
        chunk_weights.insert(chunk_weights.end(), weights.begin() + g.neighborhoods.offsets[i],
                             weights.begin() + g.neighborhoods.offsets[i + 1]);
      }
      const TorchState state{
          gatherRows(normals, 3, chunk.nodes),
          torch::from_blob(chunk_weights.data(), {static_cast<int64_t>(chunk_weights.size())}, torch::kFloat32),
          gatherRows(curvature, 1, chunk.nodes).view({-1})};
      const TorchState next = net->iterate(graph, state);
      const std::vector<float> chunk_normals = toFloatVector(next.normals),
                               chunk_curvature = toFloatVector(next.curvature),
                               new_weights = toFloatVector(next.weights);
      for (std::size_t c = 0, entry = 0; c < chunk.num_centers; ++c) {
        const std::int32_t i = chunk.nodes[c];
        std::copy_n(chunk_normals.data() + 3 * c, 3, next_normals.data() + 3 * static_cast<std::size_t>(i));
        next_curvature[i] = chunk_curvature[c];
        const std::int64_t size = g.neighborhoods.size(i);
        std::copy_n(new_weights.data() + entry, size, next_weights.data() + g.neighborhoods.offsets[i]);
        entry += static_cast<std::size_t>(size);
      }
    }
    normals.swap(next_normals);
    curvature.swap(next_curvature);
    weights.swap(next_weights);
    if (options.keep_iterations) result.iteration_normals.push_back(normals);
  }
  result.normals = std::move(normals);
  result.curvature = std::move(curvature);
  result.kernel_weights = std::move(weights);
}

bool torchAvailable(std::string*) { return true; }  // LibTorch on the CPU

const bool registered = (registerBackend(Backend::Torch, {runTorchIterations, torchAvailable}), true);

}  // namespace
}  // namespace detail
}  // namespace pcl_dise

// Linking pcl_dise::torch statically pulls this in (-u), so that its registration runs.
extern "C" const bool pcl_dise_torch_backend_registered = pcl_dise::detail::registered;
