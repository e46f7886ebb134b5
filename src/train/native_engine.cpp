// dise_train's native engine: native_training.h on packed parameters.
#include <cmath>

#include "pcl_dise/train/training_engine.h"

namespace pcl_dise {
namespace train {

std::uint64_t dropoutSeed(std::uint64_t patch_seed, int iteration) {
  return patch_seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(iteration);
}

namespace {

class NativeEngine : public TrainingEngine {
 public:
  NativeEngine(int threads, const TrainingLoss& loss)
      : threads_(threads), loss_(loss), parameters_(packParameters(randomModel(0))) {
    loss_.validate();
  }

  std::vector<double> trainPatch(const TrainingPatch& patch, int iterations, double learning_rate, double dropout,
                                 std::uint64_t seed) override {
    ForwardInput input{patch.points.data(), patch.points.size() / 3, &patch.graph, patch.edge_scale};
    input.edge_scales = patch.edge_scales.empty() ? nullptr : patch.edge_scales.data();
    TrainingState state = initialTrainingState(input, threads_);
    // Late iterations skip the outer points whose state no later loss reads.
    const auto needed = nodesNeededPerIteration(patch.graph, patch.loss_points, iterations);
    std::vector<double> losses;
    for (int it = 1; it <= iterations; ++it) {
      TrainingState next;
      const TrainingGradient g = trainingIteration(
          unpackParameters(parameters_), input, state, patch.targets.data(), patch.loss_points,
          dropoutScales(patch.graph.numEdges(), dropout, dropoutSeed(seed, it)), threads_, next, needed[it - 1], loss_);
      if (!std::isfinite(g.loss)) throw NonFiniteTraining(it, "the loss is " + std::to_string(g.loss));
      for (const float v : g.gradient)
        if (!std::isfinite(v)) throw NonFiniteTraining(it, "a gradient is not finite");
      optimizer_.step(parameters_, g.gradient, learning_rate);
      losses.push_back(g.loss);
      state = std::move(next);
    }
    return losses;
  }

  std::vector<float> parameters() const override { return parameters_; }
  void setParameters(const std::vector<float>& packed) override { parameters_ = packed; }
  RmsProp optimizer() const override { return optimizer_; }
  void setOptimizer(const RmsProp& state) override { optimizer_ = state; }

 private:
  int threads_;
  TrainingLoss loss_;
  std::vector<float> parameters_;
  RmsProp optimizer_;
};

}  // namespace

std::unique_ptr<TrainingEngine> makeNativeEngine(int threads, const TrainingLoss& loss) {
  return std::make_unique<NativeEngine>(threads, loss);
}

}  // namespace train
}  // namespace pcl_dise
