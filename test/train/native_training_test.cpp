// The native training engine (native_training.h): its gradients against LibTorch autograd of
// DiseNet (in double) on k-NN and uneven radius neighbourhoods, coincident points, large logits
// and a fixed dropout mask, for each normal loss and the supervised kernel weights; every instruction set this
// processor runs; RMSprop against LibTorch's; independence of the thread count; a short run that lowers the loss; bad
// input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "pcl_dise/train/native_training.h"
#include "pcl_dise/train/training_engine.h"
#include "point_training.h"
#ifdef PCL_DISE_WITH_TORCH
#include "pcl_dise/backends/torch/dise_net.h"
#endif

namespace {

using namespace pcl_dise;
using namespace pcl_dise::train;

// A noisy folded sheet (a crease at x = 0) in a box of side about 2: points N x 3.
std::vector<float> foldedSheet(int n, unsigned seed, float noise = 0.01f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::normal_distribution<float> g(0.f, noise);
  std::vector<float> p;
  for (int i = 0; i < n; ++i) {
    const float x = u(rng), y = u(rng);
    p.insert(p.end(), {x, y, 0.6f * std::fabs(x) + 0.1f * std::sin(3 * y) + g(rng)});
  }
  return p;
}

float distance2(const float* a, const float* b) {
  return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
}

// Each point's k_with_self nearest points (itself first), by brute force.
Neighborhoods knnGraph(const std::vector<float>& p, int k_with_self) {
  const int n = static_cast<int>(p.size() / 3);
  std::vector<std::vector<std::int32_t>> rows(n);
  for (int i = 0; i < n; ++i) {
    std::vector<std::int32_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      if (a == i || b == i) return a == i && b != i;
      return distance2(&p[3 * i], &p[3 * a]) < distance2(&p[3 * i], &p[3 * b]);
    });
    rows[i].assign(order.begin(), order.begin() + std::min(n, k_with_self));
  }
  return Neighborhoods::fromRows(rows);
}

// Every point within a radius that grows along x (uneven sizes), itself first; the 4 nearest
// where the ball holds fewer (a plane through fewer than 3 points is not defined).
Neighborhoods unevenRadiusGraph(const std::vector<float>& p) {
  const int n = static_cast<int>(p.size() / 3);
  const Neighborhoods nearest4 = knnGraph(p, 4);
  std::vector<std::vector<std::int32_t>> rows(n);
  for (int i = 0; i < n; ++i) {
    const float r = 0.12f + 0.1f * (p[3 * i] + 1.f);
    rows[i].push_back(i);
    for (int j = 0; j < n; ++j)
      if (j != i && distance2(&p[3 * i], &p[3 * j]) <= r * r) rows[i].push_back(j);
    if (rows[i].size() < 4) rows[i].assign(nearest4.begin(i), nearest4.begin(i) + 4);
  }
  return Neighborhoods::fromRows(rows);
}

// The true normals of foldedSheet without noise, for the loss.
std::vector<float> sheetNormals(const std::vector<float>& p) {
  std::vector<float> t;
  for (std::size_t i = 0; i < p.size(); i += 3) {
    const float dx = p[i] >= 0 ? 0.6f : -0.6f, dy = 0.3f * std::cos(3 * p[i + 1]);
    const float len = std::sqrt(dx * dx + dy * dy + 1);
    t.insert(t.end(), {-dx / len, -dy / len, 1 / len});
  }
  return t;
}

struct Case {
  std::vector<float> points;
  Neighborhoods graph;
  ForwardInput input() const { return {points.data(), points.size() / 3, &graph, 1.3f}; }
};

Case knnCase(int n = 240, int k = 16, unsigned seed = 1) {
  Case c;
  c.points = foldedSheet(n, seed);
  c.graph = knnGraph(c.points, k + 1);
  return c;
}

// The state after one native iteration without dropout: non-uniform weights, as in training.
TrainingState warmState(const Model& model, const Case& c) {
  const TrainingState zero = initialTrainingState(c.input());
  TrainingState next;
  trainingIteration(model, c.input(), zero, nullptr, 0, {}, 0, next);
  return next;
}

double relativeError(const float* a, const float* b, std::size_t n) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < n; ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

TEST(NativeTraining, PackAndUnpackAreInverse) {
  const Model m = randomModel(4);
  EXPECT_EQ(packParameters(unpackParameters(packParameters(m))), packParameters(m));
  EXPECT_THROW(unpackParameters(std::vector<float>(10)), std::invalid_argument);
}

TEST(NativeTraining, GradientLayoutRoundTrips) {
  // Model -> the training pass's layout -> Model keeps every parameter in its place.
  const Model m = randomModel(5);
  EXPECT_EQ(packParameters(pcl_dise::detail::gradientsAsModel(pcl_dise::detail::PointNetworkWeights(m))),
            packParameters(m));
}

TEST(NativeTraining, RmsPropFollowsLibTorchsFormula) {
  RmsProp opt;
  std::vector<float> p{1.f, -2.f, 0.5f}, g{0.1f, -0.3f, 0.f};
  opt.step(p, g, 0.01);
  // s = 0.01 g^2, p -= lr g / (sqrt(s) + eps) = lr sign(g) / 0.1 where g != 0
  EXPECT_NEAR(p[0], 1.f - 0.1f, 1e-6);
  EXPECT_NEAR(p[1], -2.f + 0.1f, 1e-6);
  EXPECT_EQ(p[2], 0.5f);
  EXPECT_EQ(opt.steps, 1);
  EXPECT_THROW(opt.step(p, std::vector<float>(2), 0.01), std::invalid_argument);
}

TEST(NativeTraining, DropoutScalesAreSeededAndKeepThreeQuarters) {
  const auto a = dropoutScales(100000, 0.25, 7), b = dropoutScales(100000, 0.25, 7);
  EXPECT_EQ(a, b);
  const double kept = std::count(a.begin(), a.end(), 1.f / 0.75f) / 100000.0;
  EXPECT_NEAR(kept, 0.75, 0.01);
  EXPECT_EQ(std::count(a.begin(), a.end(), 0.f) + std::count(a.begin(), a.end(), 1.f / 0.75f), 100000);
  EXPECT_TRUE(dropoutScales(10, 0.0, 1).empty());
  EXPECT_THROW(dropoutScales(10, 1.0, 1), std::invalid_argument);
}

TEST(NativeTraining, EveryInstructionSetGivesTheSameGradient) {
  const Model model = randomModel(6);
  const Case c = knnCase();
  const TrainingState state = warmState(model, c);
  const std::vector<float> targets = sheetNormals(c.points);
  const auto implementations = pcl_dise::detail::pointTrainingImplementations();
  ASSERT_FALSE(implementations.empty());
  std::vector<std::vector<float>> gradients;
  for (const auto& [name, pass] : implementations) {
    const pcl_dise::detail::PointTrainingWeights weights(model);
    pcl_dise::detail::PointNetworkWeights g = pcl_dise::detail::zeroGradients(model);
    std::vector<float> scratch(pcl_dise::detail::pointTrainingScratchFloats(17)), w(17);
    for (std::int64_t i = 0; i < 60; ++i) {
      pcl_dise::detail::TrainingNeighborhood point;
      point.network = {
          c.points.data(), state.normals.data(), 1.3f, i, c.graph.begin(i), 17, state.weights.data() + 17 * i};
      point.target = &targets[3 * i];
      point.loss_scale = 1.f / 60;
      float normal[3], loss;
      pass(weights, point, scratch.data(), g, w.data(), normal, &loss);
    }
    gradients.push_back(packParameters(pcl_dise::detail::gradientsAsModel(g)));
    SCOPED_TRACE(name);
    EXPECT_LT(relativeError(gradients.back().data(), gradients.front().data(), gradients.front().size()), 1e-5);
  }
}

TEST(NativeTraining, ResultDoesNotDependOnThreads) {
  const Model model = randomModel(7);
  const Case c = knnCase(600);
  const TrainingState state = warmState(model, c);
  const std::vector<float> targets = sheetNormals(c.points);
  const auto dropout = dropoutScales(c.graph.numEdges(), 0.25, 3);
  TrainingState one, two;
  const TrainingGradient g1 = trainingIteration(model, c.input(), state, targets.data(), 300, dropout, 1, one);
  const TrainingGradient g2 = trainingIteration(model, c.input(), state, targets.data(), 300, dropout, 2, two);
  EXPECT_EQ(g1.loss, g2.loss);
  EXPECT_EQ(g1.gradient, g2.gradient);
  EXPECT_EQ(one.normals, two.normals);
  EXPECT_EQ(one.weights, two.weights);
}

TEST(NativeTraining, SkippingNodesNoLaterLossReadsChangesNothing) {
  // Four iterations with every node computed, and with only the nodes each iteration's later
  // losses read: the same losses and gradients, bit for bit, on fewer nodes.
  const Model model = randomModel(17);
  Case c;
  // Points sorted along x, so that the loss points (the first ones) are one end of the sheet.
  const std::vector<float> unsorted = foldedSheet(500, 8);
  std::vector<int> order(500);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return unsorted[3 * a] < unsorted[3 * b]; });
  for (int i : order) c.points.insert(c.points.end(), unsorted.begin() + 3 * i, unsorted.begin() + 3 * i + 3);
  c.graph = knnGraph(c.points, 13);
  const std::vector<float> targets = sheetNormals(c.points);
  const std::size_t loss_points = 120;
  const auto masks = nodesNeededPerIteration(c.graph, loss_points, 4);
  ASSERT_EQ(masks.size(), 4u);
  EXPECT_EQ(std::count(masks[3].begin(), masks[3].end(), 1), static_cast<long>(loss_points));
  for (int l = 1; l < 4; ++l)
    for (std::size_t i = 0; i < masks[l].size(); ++i) ASSERT_LE(masks[l][i], masks[l - 1][i]);
  EXPECT_LT(std::count(masks[0].begin(), masks[0].end(), 1), 500);
  TrainingState all = initialTrainingState(c.input()), some = all;
  for (int it = 1; it <= 4; ++it) {
    const auto dropout = dropoutScales(c.graph.numEdges(), 0.25, 40 + it);
    TrainingState next_all, next_some;
    const TrainingGradient a =
        trainingIteration(model, c.input(), all, targets.data(), loss_points, dropout, 0, next_all);
    const TrainingGradient b =
        trainingIteration(model, c.input(), some, targets.data(), loss_points, dropout, 0, next_some, masks[it - 1]);
    EXPECT_EQ(a.loss, b.loss) << it;
    EXPECT_EQ(a.gradient, b.gradient) << it;
    all = std::move(next_all);
    some = std::move(next_some);
  }
  TrainingState next;
  std::vector<std::uint8_t> no_loss_point(500, 1);
  no_loss_point[3] = 0;
  EXPECT_THROW(trainingIteration(model, c.input(), all, targets.data(), loss_points, {}, 0, next, no_loss_point),
               std::invalid_argument);
}

TEST(NativeTraining, ShortRunLowersTheLoss) {
  // Twenty steps of L = 2 iterations on one sheet: the loss of the last iteration falls.
  std::vector<float> params = packParameters(randomModel(8));
  const Case c = knnCase(400, 16, 2);
  const std::vector<float> targets = sheetNormals(c.points);
  RmsProp opt;
  double first = 0, last = 0;
  for (int step = 0; step < 20; ++step) {
    TrainingState state = initialTrainingState(c.input());
    for (int it = 1; it <= 2; ++it) {
      TrainingState next;
      const TrainingGradient g =
          trainingIteration(unpackParameters(params), c.input(), state, targets.data(), 200, {}, 0, next);
      opt.step(params, g.gradient, 2e-3);
      if (it == 2) (step == 0 ? first : last) = g.loss;
      state = std::move(next);
    }
  }
  EXPECT_LT(last, 0.8 * first) << first << " -> " << last;
}

TEST(NativeTraining, MalformedInputThrows) {
  const Model model = randomModel(9);
  Case c = knnCase(60, 8);
  const TrainingState state = initialTrainingState(c.input());
  TrainingState next;
  const std::vector<float> targets(3 * 60, 0.f);
  EXPECT_THROW(trainingIteration(model, c.input(), state, targets.data(), 61, {}, 0, next), std::invalid_argument);
  EXPECT_THROW(trainingIteration(model, c.input(), state, nullptr, 10, {}, 0, next), std::invalid_argument);
  EXPECT_THROW(trainingIteration(model, c.input(), state, targets.data(), 10, std::vector<float>(5, 1.f), 0, next),
               std::invalid_argument);
  TrainingState short_state = state;
  short_state.weights.pop_back();
  EXPECT_THROW(trainingIteration(model, c.input(), short_state, targets.data(), 10, {}, 0, next),
               std::invalid_argument);
  c.graph.indices[3] = 60;
  EXPECT_THROW(trainingIteration(model, c.input(), state, targets.data(), 10, {}, 0, next), std::invalid_argument);
}

TEST(KernelWeightTargets, FavourThePointsOwnFaceAtAFoldAndSpreadOnAPlane) {
  // A fold: the point at the crease's side of face z = 0, neighbours on that face and on the
  // face x = 0 beyond the crease.
  const std::vector<float> points = {0.2f, 0, 0, 0.5f, 0.1f, 0, 0.3f, -0.2f, 0, 0, 0.1f, 0.3f, 0, -0.1f, 0.4f};
  const std::vector<std::int32_t> neighbors = {0, 1, 2, 3, 4};
  const float up[3] = {0, 0, 1};
  std::vector<float> w(5);
  pcl_dise::detail::kernelWeightTargets(points.data(), points.data(), neighbors.data(), 5, up, w.data());
  EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 1.0, 1e-6);
  for (int e : {3, 4})
    for (int f : {0, 1, 2}) EXPECT_LT(w[e], 0.2f * w[f]) << e << " against " << f;
  // Every neighbour on the tangent plane: all alike.
  const std::vector<float> flat = {0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0};
  std::vector<float> even(4);
  pcl_dise::detail::kernelWeightTargets(flat.data(), flat.data(), neighbors.data(), 4, up, even.data());
  for (float v : even) EXPECT_FLOAT_EQ(v, 0.25f);
  // The point alone: weight 1.
  float alone = 0;
  pcl_dise::detail::kernelWeightTargets(flat.data(), flat.data(), neighbors.data(), 1, up, &alone);
  EXPECT_FLOAT_EQ(alone, 1.f);
}

// Supervised kernel weights and the other normal losses change the gradient, not the normals nor
// the loss logged (the chord's).
TEST(NativeTraining, OtherLossesChangeTheGradientNotTheLoggedLoss) {
  const Model model = randomModel(18);
  const Case c = knnCase(240, 16, 9);
  const TrainingState state = warmState(model, c);
  const std::vector<float> targets = sheetNormals(c.points);
  TrainingState chord_next, other_next;
  const TrainingGradient chord = trainingIteration(model, c.input(), state, targets.data(), 120, {}, 0, chord_next);
  const TrainingLoss others[] = {
      {NormalLoss::Chord, 0.5}, {NormalLoss::SquaredChord, 0}, {NormalLoss::Sine, 0}, {NormalLoss::Sine, 0.5}};
  for (const TrainingLoss& other : others) {
    const TrainingGradient g =
        trainingIteration(model, c.input(), state, targets.data(), 120, {}, 0, other_next, {}, other);
    const std::string name = toString(other.normal) + " with kernel weights " + std::to_string(other.kernel_weights);
    EXPECT_EQ(g.loss, chord.loss) << name;
    EXPECT_EQ(other_next.normals, chord_next.normals) << name;
    EXPECT_GT(relativeError(chord.gradient.data(), g.gradient.data(), chord.gradient.size()), 1e-3) << name;
  }
  EXPECT_THROW(
      trainingIteration(model, c.input(), state, targets.data(), 120, {}, 0, chord_next, {}, {NormalLoss::Chord, -1.0}),
      std::invalid_argument);
}

TEST(NativeTraining, NormalLossNames) {
  for (const NormalLoss loss : {NormalLoss::Chord, NormalLoss::SquaredChord, NormalLoss::Sine})
    EXPECT_EQ(parseNormalLoss(toString(loss)), loss);
  EXPECT_THROW(parseNormalLoss("cosine"), std::invalid_argument);
  EXPECT_TRUE(TrainingLoss{}.published());
  EXPECT_FALSE((TrainingLoss{NormalLoss::Sine, 0}).published());
  EXPECT_THROW(makeNativeEngine(1, {NormalLoss::Chord, std::nan("")}), std::invalid_argument);
}

#ifdef PCL_DISE_WITH_TORCH

// LibTorch autograd of DiseNet in double on the same graph, state and dropout mask: the loss
// over the first loss_points nodes, the gradient in packParameters' order, the new normals.
struct Reference {
  double loss;
  std::vector<float> gradient, normals;
};

Reference torchReference(const Model& model, const Case& c, const TrainingState& state,
                         const std::vector<float>& targets, std::size_t loss_points, const std::vector<float>& dropout,
                         const TrainingLoss& training_loss) {
  const auto f64 = torch::kFloat64;
  DiseNet net(model);
  net->to(f64);
  net->train();
  TorchGraph graph = TorchGraph::build(c.points.data(), c.points.size() / 3, c.graph, 1.3f);
  graph.points = graph.points.to(f64);
  const auto m = static_cast<int64_t>(c.points.size() / 3), e = static_cast<int64_t>(state.weights.size());
  auto tensor = [](const std::vector<float>& v, std::vector<int64_t> shape) {
    return torch::from_blob(const_cast<float*>(v.data()), shape, torch::kFloat32).clone().to(torch::kFloat64);
  };
  const TorchState previous{tensor(state.normals, {m, 3}), tensor(state.weights, {e}), torch::zeros({m}, f64)};
  const torch::Tensor scale = dropout.empty() ? torch::Tensor() : tensor(dropout, {e});
  const TorchState next = net->iterate(graph, previous, 0.0, scale);
  const auto n = static_cast<int64_t>(loss_points);
  const torch::Tensor normals = next.normals.slice(0, 0, n), truth = tensor(targets, {m, 3}).slice(0, 0, n);
  const torch::Tensor loss = unorientedNormalLoss(normals, truth);
  torch::Tensor objective = loss;
  if (training_loss.normal == NormalLoss::SquaredChord)
    objective = torch::minimum((normals - truth).pow(2).sum(1), (normals + truth).pow(2).sum(1)).mean();
  if (training_loss.normal == NormalLoss::Sine) {
    // |n x t| with the gradient 0 where it is 0 (a fit on the true plane), as the native engine's.
    const torch::Tensor squared = torch::cross(normals, truth, 1).pow(2).sum(1);
    objective = torch::where(squared > 0, squared.clamp_min(1e-300).sqrt(), torch::zeros_like(squared)).mean();
  }
  if (training_loss.kernel_weights > 0) {
    // lambda times the mean over the loss points of KL(w* || w), w the (undropped) softmax weights.
    const std::int64_t entries = c.graph.offsets[loss_points];
    std::vector<float> wanted(static_cast<std::size_t>(entries));
    for (std::size_t i = 0; i < loss_points; ++i)
      pcl_dise::detail::kernelWeightTargets(c.points.data(), c.points.data() + 3 * i, c.graph.begin(i),
                                            static_cast<int>(c.graph.size(i)), targets.data() + 3 * i,
                                            wanted.data() + c.graph.offsets[i]);
    const torch::Tensor w_star = tensor(wanted, {entries});
    const torch::Tensor kl =
        (w_star * (torch::log(w_star.clamp_min(1e-30)) - torch::log(next.weights.slice(0, 0, entries)))).sum() /
        static_cast<double>(loss_points);
    objective = objective + training_loss.kernel_weights * kl;
  }
  objective.backward();
  Reference r;
  r.loss = loss.item<double>();
  for (const auto& p : net->parameters()) {
    const std::vector<float> g = toFloatVector(p.grad());
    r.gradient.insert(r.gradient.end(), g.begin(), g.end());
  }
  r.normals = toFloatVector(next.normals);
  return r;
}

// Native against the double reference: the loss, the gradient of every tensor (relative
// error at most 1e-3) and the new normals.
void expectMatchesTorch(const Model& model, const Case& c, const TrainingState& state, std::size_t loss_points,
                        const std::vector<float>& dropout, const TrainingLoss& training_loss = {}) {
  const std::vector<float> targets = sheetNormals(c.points);
  const Reference ref = torchReference(model, c, state, targets, loss_points, dropout, training_loss);
  TrainingState next;
  const TrainingGradient native =
      trainingIteration(model, c.input(), state, targets.data(), loss_points, dropout, 0, next, {}, training_loss);
  EXPECT_NEAR(native.loss, ref.loss, 1e-5 * std::max(1.0, ref.loss));
  ASSERT_EQ(native.gradient.size(), ref.gradient.size());
  // Each tensor's error relative to its gradient's norm, or to a 1e-3 share of the whole
  // gradient's where its own is (nearly) zero, as layer4.2.bias's is (softmax ignores a shift).
  const double whole =
      relativeError(ref.gradient.data(), std::vector<float>(ref.gradient.size()).data(), ref.gradient.size());
  std::size_t at = 0;
  for (const auto& [name, mlp] : model.namedMlps())
    for (const Linear* l : {&mlp->first, &mlp->second})
      for (const std::size_t size : {l->weight.size(), l->bias.size()}) {
        double diff = 0, norm = 0;
        for (std::size_t i = at; i < at + size; ++i) {
          diff += (double(native.gradient[i]) - ref.gradient[i]) * (double(native.gradient[i]) - ref.gradient[i]);
          norm += double(ref.gradient[i]) * ref.gradient[i];
        }
        EXPECT_LT(std::sqrt(diff) / std::max(std::sqrt(norm), 1e-3 * whole), 1e-3)
            << name << (l == &mlp->first ? ".0" : ".2") << (size == l->bias.size() ? ".bias" : ".weight");
        at += size;
      }
  double worst = 0;
  std::size_t worst_at = 0;
  for (std::size_t i = 0; i < next.normals.size(); ++i)
    if (std::fabs(double(next.normals[i]) - ref.normals[i]) > worst) {
      worst = std::fabs(double(next.normals[i]) - ref.normals[i]);
      worst_at = i / 3;
    }
  EXPECT_LT(worst, 1e-4) << "node " << worst_at << " of " << c.graph.size(worst_at) << " entries";
}

TEST(NativeTrainingAgainstTorch, KnnNeighbourhoods) {
  const Model model = randomModel(11);
  const Case c = knnCase();
  expectMatchesTorch(model, c, warmState(model, c), 120, {});
}

TEST(NativeTrainingAgainstTorch, FromIterationZero) {
  const Model model = randomModel(12);
  const Case c = knnCase(200, 24, 3);
  expectMatchesTorch(model, c, initialTrainingState(c.input()), 200, {});
}

TEST(NativeTrainingAgainstTorch, UnevenRadiusNeighbourhoods) {
  const Model model = randomModel(13);
  Case c;
  c.points = foldedSheet(260, 4);
  c.graph = unevenRadiusGraph(c.points);
  std::int64_t smallest = 1 << 30, largest = 0;
  for (std::size_t i = 0; i < c.graph.numNodes(); ++i) {
    smallest = std::min(smallest, c.graph.size(i));
    largest = std::max(largest, c.graph.size(i));
  }
  ASSERT_GT(largest, 2 * smallest);  // uneven indeed
  expectMatchesTorch(model, c, warmState(model, c), 130, {});
}

TEST(NativeTrainingAgainstTorch, CoincidentPoints) {
  const Model model = randomModel(14);
  Case c;
  c.points = foldedSheet(200, 5);
  for (int i = 0; i < 40; ++i)  // 40 points duplicated: zero edges, ties in the neighbour order
    c.points.insert(c.points.end(), c.points.begin() + 3 * i, c.points.begin() + 3 * i + 3);
  c.graph = knnGraph(c.points, 17);
  expectMatchesTorch(model, c, warmState(model, c), 240, {});
}

TEST(NativeTrainingAgainstTorch, LargeLogits) {
  Model model = randomModel(15);
  for (float& w : model.layer4.second.weight) w *= 40.f;  // softmax close to one-hot
  const Case c = knnCase(240, 16, 6);
  expectMatchesTorch(model, c, warmState(model, c), 120, {});
}

TEST(NativeTrainingAgainstTorch, FixedDropoutMask) {
  const Model model = randomModel(16);
  const Case c = knnCase(240, 16, 7);
  expectMatchesTorch(model, c, warmState(model, c), 120, dropoutScales(c.graph.numEdges(), 0.25, 5));
}

TEST(NativeTrainingAgainstTorch, SupervisedKernelWeights) {
  const Model model = randomModel(17);
  const Case c = knnCase(240, 16, 8);
  expectMatchesTorch(model, c, warmState(model, c), 120, {}, {NormalLoss::Chord, 0.5});
}

TEST(NativeTrainingAgainstTorch, SquaredChordLoss) {
  const Model model = randomModel(20);
  const Case c = knnCase(240, 16, 11);
  expectMatchesTorch(model, c, warmState(model, c), 120, {}, {NormalLoss::SquaredChord, 0});
}

TEST(NativeTrainingAgainstTorch, SineLossWithSupervisedKernelWeights) {
  const Model model = randomModel(21);
  const Case c = knnCase(240, 16, 12);
  expectMatchesTorch(model, c, warmState(model, c), 120, {}, {NormalLoss::Sine, 0.3});
}

#endif  // PCL_DISE_WITH_TORCH

}  // namespace
