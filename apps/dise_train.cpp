// dise_train: trains a DISE model by the published recipe (docs/algorithm.md) on PCPNet-format
// data, on spatial patches: L iterations per patch, a loss and an RMSprop step after each,
// dropout on the kernel weights, weight averaging, checkpoints and --resume. The native engine
// (the default on the CPU) needs no LibTorch; the LibTorch engine runs on the CPU or a GPU.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>

#include <omp.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "pcl_dise/core/forward.h"
#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/train/pcpnet_data.h"
#include "pcl_dise/train/training_engine.h"
#ifdef PCL_DISE_WITH_TORCH
#include "pcl_dise/train/reusing_cpu_allocator.h"
#include "torch_engine.h"
#endif

namespace {

using Clock = std::chrono::steady_clock;

// Set by SIGINT / SIGTERM: the run finishes its patch, checkpoints and stops, as --minutes does.
volatile std::sig_atomic_t stop_requested = 0;
extern "C" void requestStop(int) { stop_requested = 1; }

struct Options {
  std::string list, out = "dise_k64.safetensors", checkpoint_dir = "checkpoints", device = "cpu", engine,
                    log = "train_log.csv";
  int k = 64, iterations = 8, epochs = 300, patch = 2048, patches_per_cloud = 4, threads = 0;
  double lr = 5e-4, lr_final = -1, dropout = 0.25, minutes = 0, checkpoint_minutes = 5;
  long decay_start = 0, decay_end = 0, average_from = -1, stop_at = 0, snapshot_every = 0;  // patch indices
  std::vector<int> k_mix;  // each patch's k drawn from these (repeats weigh a value); empty: k
  std::uint64_t seed = 1;
  bool resume = false, fresh_noise = false;
};

// A training cloud with its whole-cloud edge scale (docs/algorithm.md: one statistic per cloud).
// With --fresh-noise a noisy cloud is held as its clean cloud and the deviation of its noise,
// drawn afresh for each patch.
struct TrainingCloud {
  std::string name;
  std::vector<float> points, normals;  // N x 3
  float edge_scale;
  std::unique_ptr<pcl_dise::GridSearch> search;
  double noise_deviation = 0;
};

// The largest side of the bounding box of points (N x 3).
double largestSide(const std::vector<float>& points) {
  float lo[3] = {points[0], points[1], points[2]}, hi[3] = {points[0], points[1], points[2]};
  for (std::size_t i = 0; i < points.size(); ++i) {
    lo[i % 3] = std::min(lo[i % 3], points[i]);
    hi[i % 3] = std::max(hi[i % 3], points[i]);
  }
  return std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
}

TrainingCloud loadCloud(const std::string& base, bool fresh_noise) {
  std::string clean;
  const double noise_level = fresh_noise ? pcl_dise::pcpnet::noiseLevelOfName(base, clean) : 0;
  auto loaded = pcl_dise::pcpnet::readCloud(noise_level > 0 ? clean : base);
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
  c.search = std::make_unique<pcl_dise::GridSearch>(pcl_dise::GridSearch::forNearest(c.points.data(), n, 17));
  c.edge_scale = pcl_dise::edgeScale(c.points.data(), c.search->nearest(c.points.data(), n, 17));
  if (noise_level > 0) c.noise_deviation = pcl_dise::pcpnet::noiseDeviation(noise_level, largestSide(c.points));
  return c;
}

// A new noisy copy of a --fresh-noise cloud, as dise_make_dataset would have sampled it: new
// noise of its deviation, and its own search and edge scale.
struct NoisyCopy {
  std::vector<float> points;
  std::unique_ptr<pcl_dise::GridSearch> search;
  float edge_scale;
};

NoisyCopy noisyCopy(const TrainingCloud& c, std::mt19937_64& rng) {
  std::normal_distribution<double> gauss(0.0, c.noise_deviation);
  NoisyCopy copy{c.points, nullptr, 0.f};
  for (float& v : copy.points) v = static_cast<float>(v + gauss(rng));
  const std::size_t n = c.points.size() / 3;
  copy.search = std::make_unique<pcl_dise::GridSearch>(pcl_dise::GridSearch::forNearest(copy.points.data(), n, 17));
  copy.edge_scale = pcl_dise::edgeScale(copy.points.data(), copy.search->nearest(copy.points.data(), n, 17));
  return copy;
}

// A patch: the `size` points nearest to a random centre, their k-NN graph within the patch, and
// the inner half on which the loss is taken (outer points have clipped neighbourhoods).
pcl_dise::TrainingPatch makePatch(const TrainingCloud& c, int size, int k, std::mt19937_64& rng) {
  const std::size_t n = c.points.size() / 3;
  const std::size_t centre = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  std::optional<NoisyCopy> noisy;
  if (c.noise_deviation > 0) noisy = noisyCopy(c, rng);
  const std::vector<float>& points = noisy ? noisy->points : c.points;
  std::vector<std::int32_t> ids;
  std::vector<float> dist2;
  (noisy ? *noisy->search : *c.search).nearest(&points[3 * centre], std::min<std::size_t>(size, n), ids, dist2);
  pcl_dise::TrainingPatch p;
  for (auto i : ids) {
    p.points.insert(p.points.end(), &points[3 * i], &points[3 * i] + 3);
    p.targets.insert(p.targets.end(), &c.normals[3 * i], &c.normals[3 * i] + 3);
  }
  p.graph = pcl_dise::nearestNeighborGraph(p.points.data(), ids.size(), k + 1);
  p.edge_scale = noisy ? noisy->edge_scale : c.edge_scale;
  p.loss_points = ids.size() / 2;
  return p;
}

// The k of patch `step`: o.k, or one of --k-mix drawn from (seed, step) alone, so that the
// patches' centres and dropout masks are those of the same run without it.
int patchK(const Options& o, long step) {
  if (o.k_mix.empty()) return o.k;
  std::mt19937_64 rng(o.seed * 15485863 + step);
  return o.k_mix[std::uniform_int_distribution<std::size_t>(0, o.k_mix.size() - 1)(rng)];
}

// --k-mix as given: "32,64,64,128".
std::string kMixText(const Options& o) {
  std::string mix;
  for (const int k : o.k_mix) mix += (mix.empty() ? "" : ",") + std::to_string(k);
  return mix;
}

// The k of the run as the log and the recipe name it: "64" or "64 (each patch one of 32,64,128)".
std::string kText(const Options& o) {
  return std::to_string(o.k) + (o.k_mix.empty() ? "" : " (each patch one of " + kMixText(o) + ")");
}

// The learning rate of patch `step`: o.lr until decay_start, then linear down to o.lr_final at
// decay_end, o.lr_final after it (no decay when lr_final < 0).
double learningRate(const Options& o, long step) {
  if (o.lr_final < 0 || step <= o.decay_start) return o.lr;
  if (step >= o.decay_end) return o.lr_final;
  const double t = double(step - o.decay_start) / double(o.decay_end - o.decay_start);
  return o.lr + t * (o.lr_final - o.lr);
}

// A uniform running average of the weights after each patch (stochastic weight averaging): it
// smooths the noise of the last constant-rate steps and is what --out receives once it starts.
struct WeightAverage {
  std::vector<float> values;
  long count = 0;

  void add(const std::vector<float>& current) {
    if (count == 0) values.assign(current.size(), 0.f);
    const float rate = static_cast<float>(1.0 / double(count + 1));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] += (current[i] - values[i]) * rate;
    ++count;
  }
};

// RMSprop's state in a checkpoint: its running averages of squared gradients, shaped like the
// model's tensors, with the step count in the metadata; both engines read and write it.
void saveOptimizer(const pcl_dise::RmsProp& state, const std::string& path) {
  pcl_dise::Model m = pcl_dise::unpackParameters(state.square_average);
  m.metadata = {{"optimizer", "RMSprop"},
                {"steps", std::to_string(state.steps)},
                {"alpha", std::to_string(state.alpha)},
                {"eps", std::to_string(state.eps)}};
  pcl_dise::saveModel(m, path);
}

pcl_dise::RmsProp loadOptimizer(const std::string& path) {
  const pcl_dise::Model m = pcl_dise::loadModel(path);
  pcl_dise::RmsProp state;
  if (!m.metadata.count("optimizer") || m.metadata.at("optimizer") != "RMSprop" || !m.metadata.count("steps"))
    throw std::runtime_error("'" + path + "' is not an RMSprop state written by dise_train");
  state.square_average = pcl_dise::packParameters(m);
  state.steps = std::stoll(m.metadata.at("steps"));
  return state;
}

std::string bar(double fraction, int width = 30) {
  const int filled = static_cast<int>(fraction * width);
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]";
}

// The engine --engine names (default: native on the CPU, LibTorch on a GPU).
std::unique_ptr<pcl_dise::TrainingEngine> makeEngine(const Options& o) {
  const std::string engine = o.engine.empty() ? (o.device == "cpu" ? "native" : "torch") : o.engine;
  if (engine == "native") {
    if (o.device != "cpu")
      throw std::runtime_error("the native engine runs on the CPU: use --engine torch for --device " + o.device);
    return pcl_dise::makeNativeEngine(pcl_dise::detail::resolveThreads(o.threads));
  }
  if (engine != "torch") throw std::runtime_error("unknown engine '" + engine + "' (native or torch)");
#ifdef PCL_DISE_WITH_TORCH
  // Every patch repeats the same tensor sizes: keep freed blocks (at most 8 GiB of them) instead
  // of faulting fresh pages in for each tensor.
  pcl_dise::ReusingCpuAllocator::install(std::size_t(8) << 30);
  return pcl_dise::makeTorchEngine(o.device, pcl_dise::detail::resolveThreads(o.threads));
#else
  throw std::runtime_error("this dise_train was built without LibTorch: only --engine native");
#endif
}

// RMSprop's state from a checkpoint folder: optimizer.safetensors, or an earlier LibTorch run's
// optimizer.pt where LibTorch is built; afresh (with a warning) where neither can be read.
pcl_dise::RmsProp resumedOptimizer(const std::string& dir) {
  if (std::filesystem::exists(dir + "/optimizer.safetensors")) return loadOptimizer(dir + "/optimizer.safetensors");
  if (std::filesystem::exists(dir + "/optimizer.pt")) {
#ifdef PCL_DISE_WITH_TORCH
    return pcl_dise::readTorchOptimizer(dir + "/optimizer.pt");
#else
    std::cerr << "dise_train: warning: " << dir
              << "/optimizer.pt needs a build with LibTorch; the optimiser state starts afresh\n";
    return {};
#endif
  }
  std::cerr << "dise_train: warning: no optimiser state in " << dir << ", it starts afresh\n";
  return {};
}

int train(const Options& o) {
  const int largest_k = o.k_mix.empty() ? o.k : *std::max_element(o.k_mix.begin(), o.k_mix.end());
  const int smallest_k = o.k_mix.empty() ? o.k : *std::min_element(o.k_mix.begin(), o.k_mix.end());
  if (smallest_k < 2 || o.iterations < 1 || o.epochs < 1 || o.patch < largest_k + 1)
    throw std::runtime_error("need k >= 2, iterations >= 1, epochs >= 1 and a patch of at least k+1 points");
  if (o.lr_final >= 0 && o.decay_end <= o.decay_start)
    throw std::runtime_error("--lr-final needs --decay-end > --decay-start");
  if (!(o.dropout >= 0 && o.dropout < 1)) throw std::runtime_error("--dropout must be in [0, 1)");
  omp_set_num_threads(pcl_dise::detail::resolveThreads(o.threads));
  const std::unique_ptr<pcl_dise::TrainingEngine> engine = makeEngine(o);
  // Clouds load in parallel (text parsing and k-d trees); the list's order is kept.
  const std::vector<std::string> bases = pcl_dise::pcpnet::readList(o.list);
  std::vector<std::optional<TrainingCloud>> loaded(bases.size());
#pragma omp parallel for schedule(dynamic)
  for (std::size_t i = 0; i < bases.size(); ++i) {
    try {
      loaded[i] = loadCloud(bases[i], o.fresh_noise);
    } catch (const std::exception& e) {
#pragma omp critical
      std::cerr << "dise_train: warning: skipping " << e.what() << "\n";
    }
  }
  std::vector<TrainingCloud> clouds;
  for (auto& c : loaded)
    if (c) clouds.push_back(std::move(*c));
  if (clouds.empty()) throw std::runtime_error("no usable cloud in " + o.list);
  std::cout << "dise_train: " << clouds.size() << " clouds, k = " << kText(o) << ", L = " << o.iterations << ", "
            << o.patches_per_cloud << " patches of " << o.patch << " points per cloud and epoch" << std::endl;

  // Both engines start from the same weights for a seed.
  engine->setParameters(pcl_dise::packParameters(pcl_dise::randomModel(o.seed)));
  std::filesystem::create_directories(o.checkpoint_dir);
  const std::string ckpt_model = o.checkpoint_dir + "/model.safetensors",
                    ckpt_optim = o.checkpoint_dir + "/optimizer.safetensors",
                    ckpt_state = o.checkpoint_dir + "/progress.json",
                    ckpt_average = o.checkpoint_dir + "/average.safetensors";
  WeightAverage average;
  long step = 0;  // patches done
  // Earlier schedules of a resumed run ("until patch N: recipe, on list; ..."), kept in the metadata.
  std::string history, resumed_recipe, resumed_list;
  if (o.resume && std::filesystem::exists(ckpt_state)) {
    const pcl_dise::Model resumed = pcl_dise::loadModel(ckpt_model);
    engine->setParameters(pcl_dise::packParameters(resumed));
    if (resumed.metadata.count("history")) history = resumed.metadata.at("history");
    if (resumed.metadata.count("recipe")) resumed_recipe = resumed.metadata.at("recipe");
    if (resumed.metadata.count("training_list")) resumed_list = resumed.metadata.at("training_list");
    engine->setOptimizer(resumedOptimizer(o.checkpoint_dir));
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
    if (average.count > 0) average.values = pcl_dise::packParameters(pcl_dise::loadModel(ckpt_average));
    std::cout << "dise_train: resumed at patch " << step << std::endl;
  }
  const long steps_per_epoch = static_cast<long>(clouds.size()) * o.patches_per_cloud;
  const long total_steps = o.stop_at > 0 ? std::min(o.stop_at, steps_per_epoch * o.epochs) : steps_per_epoch * o.epochs;
  std::ofstream log(o.log, step > 0 ? std::ios::app : std::ios::trunc);
  if (step == 0) log << "epoch,patch,cloud,iteration,loss\n";

  const std::string recipe =
      "dise_train: RMSprop lr " + std::to_string(o.lr) +
      (o.lr_final >= 0 ? " decaying linearly to " + std::to_string(o.lr_final) + " over patches " +
                             std::to_string(o.decay_start) + ".." + std::to_string(o.decay_end)
                       : std::string()) +
      (o.average_from >= 0 ? ", weights averaged from patch " + std::to_string(o.average_from) : std::string()) +
      ", dropout " + std::to_string(o.dropout) + ", k = " + kText(o) + ", L = " + std::to_string(o.iterations) +
      " with a loss and step after every iteration" + (o.fresh_noise ? ", new noise for every noisy patch" : "") +
      ", seed " + std::to_string(o.seed);
  if (!resumed_recipe.empty() && (resumed_recipe != recipe || resumed_list != o.list))
    history += (history.empty() ? "" : "; ") + std::string("until patch ") + std::to_string(step) + ": " +
               resumed_recipe + (resumed_list.empty() ? std::string() : ", on " + resumed_list);
  auto save = [&](const std::vector<float>& weights, const std::string& path) {
    pcl_dise::Model model = pcl_dise::unpackParameters(weights);
    model.metadata = {{"k_train", std::to_string(o.k)},
                      {"iterations_train", std::to_string(o.iterations)},
                      {"patches", std::to_string(step)},
                      {"epochs", std::to_string(double(step) / steps_per_epoch)},
                      {"patch_points", std::to_string(o.patch)},
                      {"averaged_patches", std::to_string(average.count)},
                      {"training_list", o.list},
                      {"recipe", recipe}};
    if (!o.k_mix.empty()) model.metadata["k_mix"] = kMixText(o);
    if (!history.empty()) model.metadata["history"] = history;
    pcl_dise::saveModel(model, path);
  };
  long saved_step = o.resume && step > 0 ? step : -1;  // the last checkpoint on disk
  auto checkpoint = [&] {
    saved_step = step;
    save(engine->parameters(), ckpt_model);
    if (average.count > 0) save(average.values, ckpt_average);
    const pcl_dise::RmsProp optimizer = engine->optimizer();
    if (!optimizer.square_average.empty()) saveOptimizer(optimizer, ckpt_optim);
    std::ofstream(ckpt_state) << nlohmann::json{{"step", step}, {"averaged", average.count}}.dump();
  };

  const auto start = Clock::now();
  auto last_checkpoint = start;
  const long start_step = step;
  double running = 0;
  for (; step < total_steps; ++step) {
    const long epoch = step / steps_per_epoch;
    // Deterministic per patch: the order of clouds in an epoch, the patch centres and the dropout
    // masks depend on (seed, epoch, patch) alone, so a resumed run continues exactly where it stopped.
    std::mt19937_64 epoch_rng(o.seed * 7919 + epoch);
    std::vector<std::size_t> order(steps_per_epoch);
    for (long i = 0; i < steps_per_epoch; ++i) order[i] = i % clouds.size();
    std::shuffle(order.begin(), order.end(), epoch_rng);
    std::mt19937_64 rng(o.seed * 104729 + step);
    const TrainingCloud& cloud = clouds[order[step % steps_per_epoch]];
    const pcl_dise::TrainingPatch patch = makePatch(cloud, o.patch, patchK(o, step), rng);
    std::vector<double> losses;
    try {
      losses = engine->trainPatch(patch, o.iterations, learningRate(o, step), o.dropout, o.seed * 1000003 + step);
    } catch (const pcl_dise::NonFiniteTraining& e) {
      throw std::runtime_error(std::string(e.what()) + " at patch " + std::to_string(step) + ", iteration " +
                               std::to_string(e.iteration) + " (cloud " + cloud.name + "); stopped, " +
                               (saved_step >= 0 ? "the last good checkpoint (patch " + std::to_string(saved_step) +
                                                      ") is kept in " + o.checkpoint_dir
                                                : std::string("no checkpoint was written yet")));
    }
    const std::string cloud_name = std::filesystem::path(cloud.name).filename().string();
    for (std::size_t it = 0; it < losses.size(); ++it)
      log << epoch << ',' << step << ',' << cloud_name << ',' << it + 1 << ',' << losses[it] << '\n';
    const double patch_loss = losses.back();
    if (o.average_from >= 0 && step >= o.average_from) average.add(engine->parameters());
    running = step == start_step ? patch_loss : 0.95 * running + 0.05 * patch_loss;

    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const double per_step = elapsed / double(step + 1 - start_step);
    // The bar after every patch where patches take over a second, after every fifth otherwise.
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
    if (o.snapshot_every > 0 && (step + 1) % o.snapshot_every == 0) {
      ++step;  // named for the patches done, like a checkpoint
      save(engine->parameters(), o.checkpoint_dir + "/model_" + std::to_string(step) + ".safetensors");
      --step;
    }
    if (o.minutes > 0 && elapsed > 60 * o.minutes) {
      ++step;
      std::cout << "\ndise_train: time budget of " << o.minutes << " min reached\n";
      break;
    }
    if (stop_requested) {
      ++step;
      std::cout << "\ndise_train: stopped by a signal after patch " << step << "\n";
      break;
    }
  }
  checkpoint();
  save(average.count > 0 ? average.values : engine->parameters(), o.out);
  std::cout << "\ndise_train: wrote " << o.out << " after " << step << " patches (" << double(step) / steps_per_epoch
            << " epochs"
            << (average.count > 0 ? ", the average of the last " + std::to_string(average.count) : std::string())
            << ")\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Trains a DISE model (docs/algorithm.md's recipe) on a PCPNet-format list."};
  Options o;
  app.add_option("list", o.list, "list file naming the training clouds")->required()->check(CLI::ExistingFile);
  app.add_option("--out", o.out, "output model")->capture_default_str();
  app.add_option("--k", o.k, "neighbours per point (+ the point itself)")->capture_default_str();
  app.add_option("--k-mix", o.k_mix,
                 "draw each patch's k from these, e.g. 32,64,64,128 (repeats weigh a value); --k still names the "
                 "k the model is for (its metadata)")
      ->delimiter(',');
  app.add_option("--iterations", o.iterations, "L during training")->capture_default_str();
  app.add_option("--epochs", o.epochs, "passes over the clouds")->capture_default_str();
  app.add_option("--patch", o.patch, "points per training patch")->capture_default_str();
  app.add_option("--patches-per-cloud", o.patches_per_cloud, "patches per cloud and epoch")->capture_default_str();
  app.add_option("--lr", o.lr, "RMSprop learning rate")->capture_default_str();
  app.add_option("--lr-final", o.lr_final, "learning rate reached at --decay-end (default: no decay)");
  app.add_option("--decay-start", o.decay_start, "patch at which the learning rate starts to fall")
      ->capture_default_str();
  app.add_option("--decay-end", o.decay_end, "patch at which it reaches --lr-final")->capture_default_str();
  app.add_option("--average-from", o.average_from,
                 "average the weights of every patch from this one on and write the average to --out (default: off)");
  app.add_option("--dropout", o.dropout, "dropout on the kernel weights")->capture_default_str();
  app.add_option("--seed", o.seed, "random seed")->capture_default_str();
  app.add_option("--threads", o.threads, "CPU threads (0: all hardware threads)")->capture_default_str();
  app.add_option("--device", o.device, "cpu or cuda")->capture_default_str();
  app.add_option(
      "--engine", o.engine,
      "native (CPU, no LibTorch) or torch (LibTorch, CPU or CUDA); default: native on the CPU, torch on a GPU");
  app.add_option("--checkpoints", o.checkpoint_dir, "checkpoint folder")->capture_default_str();
  app.add_option("--checkpoint-minutes", o.checkpoint_minutes, "minutes between checkpoints")->capture_default_str();
  app.add_option("--snapshot-every", o.snapshot_every,
                 "also keep the raw weights after every N patches, as model_<patches>.safetensors in the checkpoint "
                 "folder (0: never)");
  app.add_option("--stop-at", o.stop_at, "stop (and save) after this many patches in all (0: after --epochs)");
  app.add_option("--minutes", o.minutes, "stop (and save) after this many minutes (0: no limit)")
      ->capture_default_str();
  app.add_option("--log", o.log, "CSV log of every loss")->capture_default_str();
  app.add_flag("--resume", o.resume, "continue from the checkpoint folder");
  app.add_flag("--fresh-noise", o.fresh_noise,
               "train a listed NAME_noise_white_<level> cloud as NAME (which must exist) with new noise of that "
               "level for each patch, instead of the one noisy sample on disk");
  CLI11_PARSE(app, argc, argv);
  std::signal(SIGINT, requestStop);
  std::signal(SIGTERM, requestStop);
  try {
    return train(o);
  } catch (const std::exception& e) {
    std::cerr << "\ndise_train: error: " << e.what() << "\n";
    return 1;
  }
}
