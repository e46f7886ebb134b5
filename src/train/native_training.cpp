// The native training engine: the per-point training pass (point_training.h) over every node,
// gradients summed per chunk of nodes and the chunks summed in order, so that a run gives the
// same numbers on any number of threads.
#include "pcl_dise/train/native_training.h"

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "pcl_dise/core/plane_fit.h"
#include "point_training.h"

namespace pcl_dise {
namespace train {
namespace {

constexpr std::size_t kChunkNodes = 128;

void checkGraph(const ForwardInput& input) {
  if (!input.neighborhoods || (input.num_points > 0 && !input.points))
    throw std::invalid_argument("training iteration: no points or no neighbourhoods");
  const Neighborhoods& nb = *input.neighborhoods;
  if (nb.numNodes() != input.num_points)
    throw std::invalid_argument("training iteration: " + std::to_string(nb.numNodes()) + " neighbourhoods for " +
                                std::to_string(input.num_points) + " points");
  for (std::size_t i = 0; i < nb.numNodes(); ++i)
    if (nb.size(i) < 1)
      throw std::invalid_argument("training iteration: node " + std::to_string(i) + " has no neighbourhood");
  for (const std::int32_t j : nb.indices)
    if (j < 0 || static_cast<std::size_t>(j) >= input.num_points)
      throw std::invalid_argument("training iteration: neighbour index " + std::to_string(j) + " out of range");
}

}  // namespace

TrainingState initialTrainingState(const ForwardInput& input, int threads) {
  checkGraph(input);
  const Neighborhoods& nb = *input.neighborhoods;
  TrainingState state;
  state.normals.resize(3 * input.num_points);
  state.weights.resize(nb.numEdges());
  const auto n = static_cast<std::int64_t>(input.num_points);
#pragma omp parallel for schedule(static) num_threads(detail::resolveThreads(threads))
  for (std::int64_t i = 0; i < n; ++i) {
    float* normal = &state.normals[3 * i];
    float curvature;
    if (!fitPlane<double>(input.points, input.points + 3 * i, nb.begin(i), nullptr, static_cast<int>(nb.size(i)),
                          normal, &curvature)) {
      normal[0] = 1.f;
      normal[1] = normal[2] = 0.f;
    }
    const float weight = 1.f / static_cast<float>(std::max<std::int64_t>(nb.size(i) - 1, 1));
    std::fill(state.weights.begin() + nb.offsets[i], state.weights.begin() + nb.offsets[i + 1], weight);
  }
  return state;
}

std::string toString(NormalLoss loss) {
  switch (loss) {
    case NormalLoss::Chord: return "chord";
    case NormalLoss::SquaredChord: return "squared-chord";
    case NormalLoss::Sine: return "sine";
  }
  return "chord";
}

NormalLoss parseNormalLoss(const std::string& name) {
  for (const NormalLoss loss : {NormalLoss::Chord, NormalLoss::SquaredChord, NormalLoss::Sine})
    if (name == toString(loss)) return loss;
  throw std::invalid_argument("unknown normal loss '" + name + "' (chord, squared-chord or sine)");
}

void TrainingLoss::validate() const {
  if (!(kernel_weights >= 0) || !std::isfinite(kernel_weights))
    throw std::invalid_argument("training loss: the kernel weights' weight must be finite and >= 0");
}

TrainingGradient trainingIteration(const Model& model, const ForwardInput& input, const TrainingState& previous,
                                   const float* targets, std::size_t loss_points,
                                   const std::vector<float>& dropout_scale, int threads, TrainingState& next,
                                   const std::vector<std::uint8_t>& compute, const TrainingLoss& loss) {
  checkGraph(input);
  const Neighborhoods& nb = *input.neighborhoods;
  if (previous.normals.size() != 3 * input.num_points || previous.weights.size() != nb.numEdges())
    throw std::invalid_argument("training iteration: the previous state does not match the graph");
  if (!dropout_scale.empty() && dropout_scale.size() != nb.numEdges())
    throw std::invalid_argument("training iteration: " + std::to_string(dropout_scale.size()) +
                                " dropout factors for " + std::to_string(nb.numEdges()) + " entries");
  if (loss_points > input.num_points || (loss_points > 0 && !targets))
    throw std::invalid_argument("training iteration: the loss points need targets and must be among the nodes");
  if (!compute.empty() && compute.size() != input.num_points)
    throw std::invalid_argument("training iteration: " + std::to_string(compute.size()) + " compute flags for " +
                                std::to_string(input.num_points) + " nodes");
  for (std::size_t i = 0; i < std::min(loss_points, compute.size()); ++i)
    if (!compute[i]) throw std::invalid_argument("training iteration: a loss point is not computed");
  loss.validate();

  const detail::PointTrainingWeights weights(model);
  const detail::PointTrainingFunction pass = detail::pointTraining();
  next.normals = previous.normals;
  next.weights.resize(nb.numEdges());
  const std::size_t chunks = (input.num_points + kChunkNodes - 1) / kChunkNodes;
  std::vector<detail::PointNetworkWeights> chunk_gradients;
  std::vector<double> chunk_loss(chunks, 0.0);
  const std::size_t gradient_chunks = (loss_points + kChunkNodes - 1) / kChunkNodes;
  chunk_gradients.reserve(gradient_chunks);
  for (std::size_t c = 0; c < gradient_chunks; ++c) chunk_gradients.push_back(detail::zeroGradients(model));
  const float loss_scale = loss_points > 0 ? 1.f / static_cast<float>(loss_points) : 0.f;
  int max_count = 1;
  for (std::size_t i = 0; i < nb.numNodes(); ++i) max_count = std::max<int>(max_count, static_cast<int>(nb.size(i)));

#pragma omp parallel num_threads(detail::resolveThreads(threads))
  {
    std::vector<float> scratch(detail::pointTrainingScratchFloats(max_count));
    // Only chunks with loss points accumulate gradients; the others run forward.
    detail::PointNetworkWeights unused_gradients = detail::zeroGradients(model);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
      const std::size_t begin = c * kChunkNodes, end = std::min(begin + kChunkNodes, input.num_points);
      detail::PointNetworkWeights& gradients =
          static_cast<std::size_t>(c) < gradient_chunks ? chunk_gradients[c] : unused_gradients;
      double loss_sum = 0;
      for (std::size_t i = begin; i < end; ++i) {
        if (!compute.empty() && !compute[i]) {
          std::copy(previous.weights.begin() + nb.offsets[i], previous.weights.begin() + nb.offsets[i + 1],
                    next.weights.begin() + nb.offsets[i]);
          continue;
        }
        detail::TrainingNeighborhood point;
        point.network = {input.points,
                         previous.normals.data(),
                         input.edge_scales ? input.edge_scales[i] : input.edge_scale,
                         static_cast<std::int64_t>(i),
                         nb.begin(i),
                         static_cast<int>(nb.size(i)),
                         previous.weights.data() + nb.offsets[i]};
        point.dropout_scale = dropout_scale.empty() ? nullptr : dropout_scale.data() + nb.offsets[i];
        const bool in_loss = i < loss_points;
        point.target = in_loss ? targets + 3 * i : nullptr;
        point.loss_scale = loss_scale;
        point.weight_loss_scale = in_loss ? static_cast<float>(loss.kernel_weights) * loss_scale : 0.f;
        point.normal_loss = loss.normal;
        float chord = 0;
        pass(weights, point, scratch.data(), gradients, next.weights.data() + nb.offsets[i], &next.normals[3 * i],
             &chord);
        if (in_loss) loss_sum += chord;
      }
      chunk_loss[c] = loss_sum;
    }
  }

  TrainingGradient result;
  detail::PointNetworkWeights total = detail::zeroGradients(model);
  for (const detail::PointNetworkWeights& g : chunk_gradients)
    for (const detail::WeightBlock& b : detail::weightBlocks()) {
      detail::DenseWeights& sum = total.*b.block;
      const detail::DenseWeights& part = g.*b.block;
      for (std::size_t k = 0; k < sum.weight_t.size(); ++k) sum.weight_t[k] += part.weight_t[k];
      for (std::size_t k = 0; k < sum.bias.size(); ++k) sum.bias[k] += part.bias[k];
    }
  for (const double l : chunk_loss) result.loss += l;
  result.loss = loss_points > 0 ? result.loss / static_cast<double>(loss_points) : 0.0;
  result.gradient = packParameters(detail::gradientsAsModel(total));
  return result;
}

std::vector<std::vector<std::uint8_t>> nodesNeededPerIteration(const Neighborhoods& graph, std::size_t loss_points,
                                                               int iterations) {
  const std::size_t n = graph.numNodes();
  std::vector<std::vector<std::uint8_t>> masks(std::max(iterations, 0));
  std::vector<std::uint8_t> needed(n, 0);
  std::fill(needed.begin(), needed.begin() + std::min(loss_points, n), 1);
  for (int l = iterations; l >= 1; --l) {
    masks[l - 1] = needed;
    // Iteration l reads, at each node it computes, iteration l - 1's state of its neighbours.
    for (std::size_t i = 0; i < n; ++i)
      if (masks[l - 1][i])
        for (const std::int32_t* j = graph.begin(i); j != graph.begin(i) + graph.size(i); ++j) needed[*j] = 1;
  }
  return masks;
}

std::vector<float> dropoutScales(std::size_t entries, double p, std::uint64_t seed) {
  if (!(p > 0)) return {};
  if (!(p < 1)) throw std::invalid_argument("dropout probability must be in [0, 1)");
  std::vector<float> scales(entries);
  std::mt19937_64 rng(seed);
  const float kept = static_cast<float>(1.0 / (1.0 - p));
  // One 64-bit draw gives the keep decisions of four entries (16 bits each).
  const auto threshold = static_cast<std::uint64_t>(p * 65536.0);
  for (std::size_t e = 0; e < entries; e += 4) {
    std::uint64_t bits = rng();
    for (std::size_t k = e; k < std::min(entries, e + 4); ++k, bits >>= 16)
      scales[k] = (bits & 0xffff) < threshold ? 0.f : kept;
  }
  return scales;
}

void RmsProp::step(std::vector<float>& parameters, const std::vector<float>& gradient, double learning_rate) {
  if (gradient.size() != parameters.size())
    throw std::invalid_argument("RMSprop: " + std::to_string(gradient.size()) + " gradients for " +
                                std::to_string(parameters.size()) + " parameters");
  if (square_average.empty()) square_average.assign(parameters.size(), 0.f);
  const float a = static_cast<float>(alpha), lr = static_cast<float>(learning_rate), e = static_cast<float>(eps);
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const float g = gradient[i];
    square_average[i] = a * square_average[i] + (1.f - a) * g * g;
    parameters[i] -= lr * g / (std::sqrt(square_average[i]) + e);
  }
  ++steps;
}

}  // namespace train
}  // namespace pcl_dise
