// dise_train: trains a DISE model by the published recipe (ALGORITHM.md) on PCPNet-format data,
// on spatial patches so that it fits a laptop CPU: L iterations per patch, a loss and an RMSprop
// step after each, dropout on the kernel weights, checkpoints and --resume.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "pcl_dise/forward.h"
#include "pcl_dise/torch/dise_net.h"
#include "training/knn_graph.h"
#include "training/pcpnet_data.h"
#include "training/reusing_cpu_allocator.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string list, out = "dise_k64.safetensors", checkpoint_dir = "checkpoints", device = "cpu", log = "train_log.csv";
  int k = 64, iterations = 8, epochs = 300, patch = 2048, patches_per_cloud = 4, threads = 0;
  double lr = 5e-4, lr_final = -1, dropout = 0.25, minutes = 0, checkpoint_minutes = 5;
  long decay_start = 0, decay_end = 0, average_from = -1, stop_at = 0;  // patch indices
  std::uint64_t seed = 1;
  bool resume = false;
};

// A training cloud with its whole-cloud edge scale (ALGORITHM.md: one statistic per cloud).
struct TrainingCloud {
  std::string name;
  std::vector<float> points, normals;  // N x 3
  float edge_scale;
  std::unique_ptr<pcl_dise::PointKdTree> tree;
};

TrainingCloud loadCloud(const std::string& base) {
  auto loaded = pcl_dise::pcpnet::readCloud(base);
  TrainingCloud c;
  c.name = base;
  for (std::size_t i = 0; i < loaded.cloud.points.size(); ++i) {
    c.points.insert(c.points.end(), loaded.cloud.points[i].begin(), loaded.cloud.points[i].end());
    c.normals.insert(c.normals.end(), loaded.cloud.normals[i].begin(), loaded.cloud.normals[i].end());
  }
  // Centre the cloud: float keeps its precision in the local frame.
  double mean[3] = {0, 0, 0};
  const std::size_t n = c.points.size() / 3;
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) mean[d] += c.points[3 * i + d] / double(n);
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) c.points[3 * i + d] -= static_cast<float>(mean[d]);
  c.tree = std::make_unique<pcl_dise::PointKdTree>(c.points.data(), n);
  c.edge_scale = pcl_dise::edgeScale(c.points.data(), c.tree->graph(17));
  return c;
}

// A patch: the `size` points nearest to a random centre, their k-NN graph within the patch, and
// the inner half on which the loss is taken (outer points have clipped neighbourhoods).
struct Patch {
  pcl_dise::TorchGraph graph;
  torch::Tensor target, inner;
};

Patch makePatch(const TrainingCloud& c, int size, int k, std::mt19937_64& rng, const torch::Device& device) {
  const std::size_t n = c.points.size() / 3;
  const std::size_t centre = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  const std::vector<std::int32_t> ids = c.tree->nearest(&c.points[3 * centre], std::min<std::size_t>(size, n));
  std::vector<float> points, normals;
  for (auto i : ids) {
    points.insert(points.end(), &c.points[3 * i], &c.points[3 * i] + 3);
    normals.insert(normals.end(), &c.normals[3 * i], &c.normals[3 * i] + 3);
  }
  const pcl_dise::PointKdTree patch_tree(points.data(), ids.size());
  Patch p;
  p.graph = pcl_dise::TorchGraph::build(points.data(), ids.size(), patch_tree.graph(k + 1), c.edge_scale, device);
  p.target = torch::from_blob(normals.data(), {static_cast<int64_t>(ids.size()), 3}, torch::kFloat32).clone().to(device);
  p.inner = torch::arange(static_cast<int64_t>(ids.size() / 2), torch::TensorOptions(torch::kInt64).device(device));
  return p;
}

// The learning rate of patch `step`: o.lr until decay_start, then linear down to o.lr_final at
// decay_end, o.lr_final after it (no decay when lr_final < 0).
double learningRate(const Options& o, long step) {
  if (o.lr_final < 0 || step <= o.decay_start) return o.lr;
  if (step >= o.decay_end) return o.lr_final;
  const double t = double(step - o.decay_start) / double(o.decay_end - o.decay_start);
  return o.lr + t * (o.lr_final - o.lr);
}

void setLearningRate(torch::optim::RMSprop& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) static_cast<torch::optim::RMSpropOptions&>(group.options()).lr(lr);
}

// A uniform running average of the weights after each patch (stochastic weight averaging): it
// smooths the noise of the last constant-rate steps and is what --out receives once it starts.
struct WeightAverage {
  pcl_dise::DiseNet net;
  long count = 0;

  void add(const pcl_dise::DiseNet& current) {
    torch::NoGradGuard no_grad;
    const auto dst = net->parameters(), src = current->parameters();
    for (std::size_t i = 0; i < dst.size(); ++i) dst[i].add_(src[i] - dst[i], 1.0 / double(count + 1));
    ++count;
  }
};

std::string bar(double fraction, int width = 30) {
  const int filled = static_cast<int>(fraction * width);
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]";
}

int train(const Options& o) {
  if (o.k < 2 || o.iterations < 1 || o.epochs < 1 || o.patch < o.k + 1)
    throw std::runtime_error("need k >= 2, iterations >= 1, epochs >= 1 and a patch of at least k+1 points");
  if (o.lr_final >= 0 && o.decay_end <= o.decay_start)
    throw std::runtime_error("--lr-final needs --decay-end > --decay-start");
  torch::set_num_threads(pcl_dise::detail::resolveThreads(o.threads));
  // Every patch repeats the same tensor sizes: keep freed blocks (at most 8 GiB of them) instead
  // of faulting fresh pages in for each tensor.
  pcl_dise::ReusingCpuAllocator::install(std::size_t(8) << 30);
  const torch::Device device(o.device);
  // Clouds load in parallel (text parsing and k-d trees); the list's order is kept.
  const std::vector<std::string> bases = pcl_dise::pcpnet::readList(o.list);
  std::vector<std::optional<TrainingCloud>> loaded(bases.size());
#pragma omp parallel for schedule(dynamic)
  for (std::size_t i = 0; i < bases.size(); ++i) {
    try {
      loaded[i] = loadCloud(bases[i]);
    } catch (const std::exception& e) {
#pragma omp critical
      std::cerr << "dise_train: warning: skipping " << e.what() << "\n";
    }
  }
  std::vector<TrainingCloud> clouds;
  for (auto& c : loaded)
    if (c) clouds.push_back(std::move(*c));
  if (clouds.empty()) throw std::runtime_error("no usable cloud in " + o.list);
  std::cout << "dise_train: " << clouds.size() << " clouds, k = " << o.k << ", L = " << o.iterations << ", "
            << o.patches_per_cloud << " patches of " << o.patch << " points per cloud and epoch" << std::endl;

  torch::manual_seed(o.seed);
  pcl_dise::DiseNet net;
  net->to(device);
  torch::optim::RMSprop optimizer(net->parameters(), torch::optim::RMSpropOptions(o.lr));
  std::filesystem::create_directories(o.checkpoint_dir);
  const std::string ckpt_model = o.checkpoint_dir + "/model.safetensors", ckpt_optim = o.checkpoint_dir + "/optimizer.pt",
                    ckpt_state = o.checkpoint_dir + "/progress.json", ckpt_average = o.checkpoint_dir + "/average.safetensors";
  WeightAverage average;
  average.net->to(device);
  long step = 0;  // patches done
  // Earlier schedules of a resumed run ("until patch N: recipe, on list; ..."), kept in the metadata.
  std::string history, resumed_recipe, resumed_list;
  if (o.resume && std::filesystem::exists(ckpt_state)) {
    const pcl_dise::Model resumed = pcl_dise::loadModel(ckpt_model);
    net->load(resumed);
    if (resumed.metadata.count("history")) history = resumed.metadata.at("history");
    if (resumed.metadata.count("recipe")) resumed_recipe = resumed.metadata.at("recipe");
    if (resumed.metadata.count("training_list")) resumed_list = resumed.metadata.at("training_list");
    if (std::filesystem::exists(ckpt_optim))
      torch::load(optimizer, ckpt_optim, device);  // a GPU run's state resumes on the CPU and vice versa
    else  // e.g. a checkpoint committed without it: RMSprop's running averages start afresh
      std::cerr << "dise_train: warning: no " << ckpt_optim << ", the optimiser state starts afresh\n";
    const auto progress = nlohmann::json::parse(std::ifstream(ckpt_state));
    step = progress["step"].get<long>();
    average.count = progress.value("averaged", 0L);
    if (average.count > 0 && (o.average_from < 0 || step <= o.average_from)) {
      // A new schedule whose average starts later (a warm restart): the old average is not part of it.
      std::cout << "dise_train: the checkpoint's average of " << average.count << " patches is dropped, "
                << (o.average_from < 0 ? "no averaging" : "averaging starts at patch " + std::to_string(o.average_from))
                << std::endl;
      average.count = 0;
    }
    if (average.count > 0) average.net->load(pcl_dise::loadModel(ckpt_average));
    std::cout << "dise_train: resumed at patch " << step << std::endl;
  }
  const long steps_per_epoch = static_cast<long>(clouds.size()) * o.patches_per_cloud;
  const long total_steps = o.stop_at > 0 ? std::min(o.stop_at, steps_per_epoch * o.epochs) : steps_per_epoch * o.epochs;
  std::ofstream log(o.log, step > 0 ? std::ios::app : std::ios::trunc);
  if (step == 0) log << "epoch,patch,cloud,iteration,loss\n";

  const std::string recipe = "dise_train: RMSprop lr " + std::to_string(o.lr) +
                             (o.lr_final >= 0 ? " decaying linearly to " + std::to_string(o.lr_final) + " over patches " +
                                                    std::to_string(o.decay_start) + ".." + std::to_string(o.decay_end)
                                              : std::string()) +
                             (o.average_from >= 0 ? ", weights averaged from patch " + std::to_string(o.average_from)
                                                  : std::string()) +
                             ", dropout " + std::to_string(o.dropout) +
                             ", k = " + std::to_string(o.k) + ", L = " + std::to_string(o.iterations) +
                             " with a loss and step after every iteration, seed " +
                             std::to_string(o.seed);
  if (!resumed_recipe.empty() && (resumed_recipe != recipe || resumed_list != o.list))
    history += (history.empty() ? "" : "; ") + std::string("until patch ") + std::to_string(step) + ": " + resumed_recipe +
               (resumed_list.empty() ? std::string() : ", on " + resumed_list);
  auto save = [&](const pcl_dise::DiseNet& weights, const std::string& path) {
    pcl_dise::Model model = weights->toModel();
    model.metadata = {{"k_train", std::to_string(o.k)},
                      {"iterations_train", std::to_string(o.iterations)},
                      {"patches", std::to_string(step)},
                      {"epochs", std::to_string(double(step) / steps_per_epoch)},
                      {"patch_points", std::to_string(o.patch)},
                      {"averaged_patches", std::to_string(average.count)},
                      {"training_list", o.list},
                      {"recipe", recipe}};
    if (!history.empty()) model.metadata["history"] = history;
    pcl_dise::saveModel(model, path);
  };
  auto checkpoint = [&] {
    save(net, ckpt_model);
    if (average.count > 0) save(average.net, ckpt_average);
    torch::save(optimizer, ckpt_optim);
    std::ofstream(ckpt_state) << nlohmann::json{{"step", step}, {"averaged", average.count}}.dump();
  };

  const auto start = Clock::now();
  auto last_checkpoint = start;
  const long start_step = step;
  double running = 0;
  net->train();
  for (; step < total_steps; ++step) {
    const long epoch = step / steps_per_epoch;
    // Deterministic per patch: the order of clouds in an epoch and the patch centres depend on
    // (seed, epoch, patch) alone, so a resumed run continues exactly where it stopped.
    std::mt19937_64 epoch_rng(o.seed * 7919 + epoch);
    std::vector<std::size_t> order(steps_per_epoch);
    for (long i = 0; i < steps_per_epoch; ++i) order[i] = i % clouds.size();
    std::shuffle(order.begin(), order.end(), epoch_rng);
    std::mt19937_64 rng(o.seed * 104729 + step);
    torch::manual_seed(o.seed * 1000003 + step);  // dropout masks, likewise
    const TrainingCloud& cloud = clouds[order[step % steps_per_epoch]];
    const Patch patch = makePatch(cloud, o.patch, o.k, rng, device);

    pcl_dise::TorchState state;
    {
      torch::NoGradGuard no_grad;
      state = pcl_dise::initialState(patch.graph);
    }
    double patch_loss = 0;
    setLearningRate(optimizer, learningRate(o, step));
    for (int it = 1; it <= o.iterations; ++it) {
      pcl_dise::TorchState next = net->iterate(patch.graph, state, o.dropout);
      torch::Tensor loss = pcl_dise::unorientedNormalLoss(next.normals.index_select(0, patch.inner),
                                                          patch.target.index_select(0, patch.inner));
      const double value = loss.item<double>();
      if (!std::isfinite(value)) {
        checkpoint();
        throw std::runtime_error("loss became " + std::to_string(value) + " at patch " + std::to_string(step) +
                                 " (cloud " + cloud.name + "); stopped, last checkpoint in " + o.checkpoint_dir);
      }
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      log << epoch << ',' << step << ',' << std::filesystem::path(cloud.name).filename().string() << ',' << it << ','
          << value << '\n';
      patch_loss = value;
      state = {next.normals.detach(), next.weights.detach(), next.curvature.detach()};
    }
    if (o.average_from >= 0 && step >= o.average_from) average.add(net);
    running = step == start_step ? patch_loss : 0.95 * running + 0.05 * patch_loss;

    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const double per_step = elapsed / double(step + 1 - start_step);
    // The bar after every patch where patches take over a second (CPU), after every fifth otherwise.
    if (per_step > 1 || (step + 1) % 5 == 0 || step + 1 == total_steps) {
      std::cout << "\r" << bar(double(step + 1) / total_steps) << " epoch " << epoch + 1 << "/" << o.epochs << " patch "
                << step + 1 << "/" << total_steps << " loss " << running << " " << per_step << " s/patch, ETA "
                << static_cast<long>(per_step * (total_steps - step - 1) / 60) << " min   " << std::flush;
    }
    if (std::chrono::duration<double>(now - last_checkpoint).count() > 60 * o.checkpoint_minutes) {
      ++step;  // this patch is done
      checkpoint();
      --step;
      last_checkpoint = now;
    }
    if (o.minutes > 0 && elapsed > 60 * o.minutes) {
      ++step;
      std::cout << "\ndise_train: time budget of " << o.minutes << " min reached\n";
      break;
    }
  }
  checkpoint();
  save(average.count > 0 ? average.net : net, o.out);
  std::cout << "\ndise_train: wrote " << o.out << " after " << step << " patches (" << double(step) / steps_per_epoch
            << " epochs" << (average.count > 0 ? ", the average of the last " + std::to_string(average.count) : std::string())
            << ")\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Trains a DISE model (ALGORITHM.md's recipe) on a PCPNet-format list."};
  Options o;
  app.add_option("list", o.list, "list file naming the training clouds")->required()->check(CLI::ExistingFile);
  app.add_option("--out", o.out, "output model")->capture_default_str();
  app.add_option("--k", o.k, "neighbours per point (+ the point itself)")->capture_default_str();
  app.add_option("--iterations", o.iterations, "L during training")->capture_default_str();
  app.add_option("--epochs", o.epochs, "passes over the clouds")->capture_default_str();
  app.add_option("--patch", o.patch, "points per training patch")->capture_default_str();
  app.add_option("--patches-per-cloud", o.patches_per_cloud, "patches per cloud and epoch")->capture_default_str();
  app.add_option("--lr", o.lr, "RMSprop learning rate")->capture_default_str();
  app.add_option("--lr-final", o.lr_final, "learning rate reached at --decay-end (default: no decay)");
  app.add_option("--decay-start", o.decay_start, "patch at which the learning rate starts to fall")->capture_default_str();
  app.add_option("--decay-end", o.decay_end, "patch at which it reaches --lr-final")->capture_default_str();
  app.add_option("--average-from", o.average_from,
                 "average the weights of every patch from this one on and write the average to --out (default: off)");
  app.add_option("--dropout", o.dropout, "dropout on the kernel weights")->capture_default_str();
  app.add_option("--seed", o.seed, "random seed")->capture_default_str();
  app.add_option("--threads", o.threads, "CPU threads (0: all hardware threads)")->capture_default_str();
  app.add_option("--device", o.device, "cpu or cuda")->capture_default_str();
  app.add_option("--checkpoints", o.checkpoint_dir, "checkpoint folder")->capture_default_str();
  app.add_option("--checkpoint-minutes", o.checkpoint_minutes, "minutes between checkpoints")->capture_default_str();
  app.add_option("--stop-at", o.stop_at, "stop (and save) after this many patches in all (0: after --epochs)");
  app.add_option("--minutes", o.minutes, "stop (and save) after this many minutes (0: no limit)")->capture_default_str();
  app.add_option("--log", o.log, "CSV log of every loss")->capture_default_str();
  app.add_flag("--resume", o.resume, "continue from the checkpoint folder");
  CLI11_PARSE(app, argc, argv);
  try {
    return train(o);
  } catch (const std::exception& e) {
    std::cerr << "\ndise_train: error: " << e.what() << "\n";
    return 1;
  }
}
