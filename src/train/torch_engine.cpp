// dise_train's LibTorch engine: DiseNet (dise_net.h) and LibTorch's RMSprop, on the CPU or a GPU.
#include <cmath>

#include "pcl_dise/backends/torch/dise_net.h"
#include "torch_engine.h"

namespace pcl_dise {
namespace train {
namespace {

torch::Tensor fromVector(const std::vector<float>& v, std::vector<int64_t> shape, const torch::Device& device) {
  return torch::from_blob(const_cast<float*>(v.data()), shape, torch::kFloat32).clone().to(device);
}

// LibTorch keys an optimizer's per-parameter state by the parameter's TensorImpl.
std::string stateKey(const torch::Tensor& p) { return c10::guts::to_string(p.unsafeGetTensorImpl()); }

class TorchEngine : public TrainingEngine {
 public:
  TorchEngine(const std::string& device, int threads)
      : device_(device), net_(randomModel(0)), optimizer_(net_->parameters(), torch::optim::RMSpropOptions(1e-3)) {
    if (threads > 0) torch::set_num_threads(threads);
    net_->to(device_);
    net_->train();
  }

  std::vector<double> trainPatch(const TrainingPatch& patch, int iterations, double learning_rate, double dropout,
                                 std::uint64_t seed) override {
    for (auto& group : optimizer_.param_groups())
      static_cast<torch::optim::RMSpropOptions&>(group.options()).lr(learning_rate);
    const auto m = static_cast<int64_t>(patch.points.size() / 3), inner = static_cast<int64_t>(patch.loss_points);
    const TorchGraph graph = TorchGraph::build(patch.points.data(), m, patch.graph, patch.edge_scale, device_,
                                               patch.edge_scales.empty() ? nullptr : patch.edge_scales.data());
    const torch::Tensor target = fromVector(patch.targets, {m, 3}, device_).slice(0, 0, inner);
    TorchState state;
    {
      torch::NoGradGuard no_grad;
      state = initialState(graph);
    }
    std::vector<double> losses;
    for (int it = 1; it <= iterations; ++it) {
      const std::vector<float> scale = dropoutScales(patch.graph.numEdges(), dropout, dropoutSeed(seed, it));
      const torch::Tensor scale_tensor =
          scale.empty() ? torch::ones({static_cast<int64_t>(patch.graph.numEdges())}, torch::TensorOptions(device_))
                        : fromVector(scale, {static_cast<int64_t>(scale.size())}, device_);
      TorchState next = net_->iterate(graph, state, 0.0, scale_tensor);
      torch::Tensor loss = unorientedNormalLoss(next.normals.slice(0, 0, inner), target);
      const double value = loss.item<double>();
      if (!std::isfinite(value)) throw NonFiniteTraining(it, "the loss is " + std::to_string(value));
      optimizer_.zero_grad();
      loss.backward();
      for (const auto& p : net_->parameters())
        if (!torch::isfinite(p.grad()).all().item<bool>()) throw NonFiniteTraining(it, "a gradient is not finite");
      optimizer_.step();
      losses.push_back(value);
      state = {next.normals.detach(), next.weights.detach(), next.curvature.detach()};
    }
    return losses;
  }

  std::vector<float> parameters() const override { return packParameters(net_->toModel()); }
  void setParameters(const std::vector<float>& packed) override { net_->load(unpackParameters(packed)); }

  RmsProp optimizer() const override {
    RmsProp state;
    for (const auto& p : net_->parameters()) {
      auto found = optimizer_.state().find(stateKey(p));
      if (found == optimizer_.state().end()) return RmsProp{};  // no step taken yet
      const auto& s = static_cast<const torch::optim::RMSpropParamState&>(*found->second);
      const std::vector<float> values = toFloatVector(s.square_avg());
      state.square_average.insert(state.square_average.end(), values.begin(), values.end());
      state.steps = s.step();
    }
    return state;
  }

  /** The state an optimizer.pt of an earlier LibTorch run holds. */
  RmsProp readOptimizerFile(const std::string& path) {
    torch::load(optimizer_, path);
    return optimizer();
  }

  void setOptimizer(const RmsProp& state) override {
    optimizer_.state().clear();
    if (state.square_average.empty()) return;
    std::size_t at = 0;
    for (const auto& p : net_->parameters()) {
      auto s = std::make_unique<torch::optim::RMSpropParamState>();
      const std::vector<float> part(state.square_average.begin() + at, state.square_average.begin() + at + p.numel());
      at += p.numel();
      s->square_avg(fromVector(part, p.sizes().vec(), device_));
      s->step(state.steps);
      optimizer_.state()[stateKey(p)] = std::move(s);
    }
  }

 private:
  torch::Device device_;
  DiseNet net_;
  torch::optim::RMSprop optimizer_;
};

}  // namespace

std::unique_ptr<TrainingEngine> makeTorchEngine(const std::string& device, int threads) {
  return std::make_unique<TorchEngine>(device, threads);
}

RmsProp readTorchOptimizer(const std::string& path) {
  TorchEngine engine("cpu", 0);
  return engine.readOptimizerFile(path);
}

}  // namespace train
}  // namespace pcl_dise
