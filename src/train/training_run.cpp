#include "pcl_dise/train/training_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "pcl_dise/core/model.h"
#include "pcl_dise/core/threads.h"
#include "pcl_dise/train/pcpnet_data.h"
#include "pcl_dise/train/training_clouds.h"

namespace pcl_dise {
namespace train {
namespace {

using Clock = std::chrono::steady_clock;

std::string kMixText(const std::vector<int>& k_mix) {
  std::string mix;
  for (const int k : k_mix) mix += (mix.empty() ? "" : ",") + std::to_string(k);
  return mix;
}

// The clouds of the list, loaded in parallel (text parsing and searches), in the list's order;
// those that cannot be read are skipped with a warning.
// The list's clouds, each loaded once however often the list names it (a repeat weighs it), and
// for each usable line of the list the cloud it names.
struct ListedClouds {
  std::vector<TrainingCloud> clouds;
  std::vector<std::size_t> lines;  // a cloud index per usable line, in the list's order
};

ListedClouds loadClouds(const TrainingOptions& o, std::ostream& messages) {
  const std::vector<std::string> lines = train::readList(o.list);
  std::vector<std::string> bases;
  std::map<std::string, std::size_t> base_index;
  for (const std::string& line : lines)
    if (base_index.emplace(line, bases.size()).second) bases.push_back(line);
  std::vector<std::optional<TrainingCloud>> loaded(bases.size());
#pragma omp parallel for schedule(dynamic)
  for (std::size_t i = 0; i < bases.size(); ++i) {
    try {
      loaded[i] = loadTrainingCloud(bases[i], o.fresh_noise);
    } catch (const std::exception& e) {
#pragma omp critical
      messages << "dise_train: warning: skipping " << e.what() << "\n";
    }
  }
  ListedClouds listed;
  std::vector<std::size_t> cloud_of_base(bases.size(), bases.size());
  for (std::size_t b = 0; b < bases.size(); ++b)
    if (loaded[b]) {
      cloud_of_base[b] = listed.clouds.size();
      listed.clouds.push_back(std::move(*loaded[b]));
    }
  for (const std::string& line : lines)
    if (const std::size_t c = cloud_of_base[base_index.at(line)]; c < bases.size()) listed.lines.push_back(c);
  if (listed.lines.empty()) throw std::runtime_error("no usable cloud in " + o.list);
  return listed;
}

// RMSprop's state from a checkpoint folder: optimizer.safetensors, or an earlier LibTorch run's
// optimizer.pt where a reader is given; afresh (with a warning) where neither can be read.
RmsProp resumedOptimizer(const std::string& dir, const std::function<RmsProp(const std::string&)>& read_torch,
                         std::ostream& messages) {
  if (std::filesystem::exists(dir + "/optimizer.safetensors")) return loadOptimizer(dir + "/optimizer.safetensors");
  if (std::filesystem::exists(dir + "/optimizer.pt")) {
    if (read_torch) return read_torch(dir + "/optimizer.pt");
    messages << "dise_train: warning: " << dir
             << "/optimizer.pt needs a build with LibTorch; the optimiser state starts afresh\n";
    return {};
  }
  messages << "dise_train: warning: no optimiser state in " << dir << ", it starts afresh\n";
  return {};
}

}  // namespace

void TrainingOptions::validate() const {
  const int largest_k = k_mix.empty() ? k : *std::max_element(k_mix.begin(), k_mix.end());
  const int smallest_k = k_mix.empty() ? k : *std::min_element(k_mix.begin(), k_mix.end());
  if (smallest_k < 2 || iterations < 1 || epochs < 1 || patch < largest_k + 1)
    throw std::runtime_error("need k >= 2, iterations >= 1, epochs >= 1 and a patch of at least k+1 points");
  if (lr_final >= 0 && decay_end <= decay_start)
    throw std::runtime_error("--lr-final needs --decay-end > --decay-start");
  if (!(dropout >= 0 && dropout < 1)) throw std::runtime_error("--dropout must be in [0, 1)");
  try {
    loss.validate();
  } catch (const std::invalid_argument&) {
    throw std::runtime_error("--kernel-weight-loss must be finite and >= 0");
  }
}

double TrainingOptions::learningRate(long step) const {
  if (lr_final < 0 || step <= decay_start) return lr;
  if (step >= decay_end) return lr_final;
  const double t = double(step - decay_start) / double(decay_end - decay_start);
  return lr + t * (lr_final - lr);
}

int TrainingOptions::patchK(long step) const {
  if (k_mix.empty()) return k;
  std::mt19937_64 rng(seed * 15485863 + step);
  return k_mix[std::uniform_int_distribution<std::size_t>(0, k_mix.size() - 1)(rng)];
}

std::string TrainingOptions::kText() const {
  return std::to_string(k) + (k_mix.empty() ? "" : " (each patch one of " + kMixText(k_mix) + ")");
}

std::string TrainingOptions::recipe() const {
  return "dise_train: RMSprop lr " + std::to_string(lr) +
         (lr_final >= 0 ? " decaying linearly to " + std::to_string(lr_final) + " over patches " +
                              std::to_string(decay_start) + ".." + std::to_string(decay_end)
                        : std::string()) +
         (average_from >= 0 ? ", weights averaged from patch " + std::to_string(average_from) : std::string()) +
         ", dropout " + std::to_string(dropout) + ", k = " + kText() + ", L = " + std::to_string(iterations) +
         " with a loss and step after every iteration" + (fresh_noise ? ", new noise for every noisy patch" : "") +
         (edge_scale != EdgeScaleRule::Global ? ", " + toString(edge_scale) + " edge scale" : std::string()) +
         (loss.normal != NormalLoss::Chord ? ", loss " + toString(loss.normal) : std::string()) +
         (loss.kernel_weights > 0 ? ", supervised kernel weights (lambda " + std::to_string(loss.kernel_weights) + ")"
                                  : std::string()) +
         ", seed " + std::to_string(seed);
}

void WeightAverage::add(const std::vector<float>& current) {
  if (count == 0) values.assign(current.size(), 0.f);
  const float rate = static_cast<float>(1.0 / double(count + 1));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] += (current[i] - values[i]) * rate;
  ++count;
}

void saveOptimizer(const RmsProp& state, const std::string& path) {
  Model m = unpackParameters(state.square_average);
  m.metadata = {{"optimizer", "RMSprop"},
                {"steps", std::to_string(state.steps)},
                {"alpha", std::to_string(state.alpha)},
                {"eps", std::to_string(state.eps)}};
  saveModel(m, path);
}

RmsProp loadOptimizer(const std::string& path) {
  const Model m = loadModel(path);
  RmsProp state;
  if (!m.metadata.count("optimizer") || m.metadata.at("optimizer") != "RMSprop" || !m.metadata.count("steps"))
    throw std::runtime_error("'" + path + "' is not an RMSprop state written by dise_train");
  state.square_average = packParameters(m);
  state.steps = std::stoll(m.metadata.at("steps"));
  return state;
}

TrainingResult runTraining(const TrainingOptions& o, TrainingEngine& engine,
                           const std::function<bool(const TrainingProgress&)>& after_patch, std::ostream& messages,
                           const std::function<RmsProp(const std::string&)>& read_torch_optimizer) {
  o.validate();
  const ListedClouds listed = loadClouds(o, messages);
  const std::vector<TrainingCloud>& clouds = listed.clouds;
  messages << "dise_train: " << listed.lines.size() << " clouds"
           << (clouds.size() < listed.lines.size() ? " (" + std::to_string(clouds.size()) + " distinct)" : "")
           << ", k = " << o.kText() << ", L = " << o.iterations << ", " << o.patches_per_cloud << " patches of "
           << o.patch << " points per cloud and epoch" << std::endl;

  // Both engines start from the same weights for a seed.
  engine.setParameters(packParameters(randomModel(o.seed)));
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
    const Model resumed = loadModel(ckpt_model);
    engine.setParameters(packParameters(resumed));
    if (resumed.metadata.count("history")) history = resumed.metadata.at("history");
    if (resumed.metadata.count("recipe")) resumed_recipe = resumed.metadata.at("recipe");
    if (resumed.metadata.count("training_list")) resumed_list = resumed.metadata.at("training_list");
    engine.setOptimizer(resumedOptimizer(o.checkpoint_dir, read_torch_optimizer, messages));
    const auto progress = nlohmann::json::parse(std::ifstream(ckpt_state));
    step = progress["step"].get<long>();
    average.count = progress.value("averaged", 0L);
    if (average.count > 0 && (o.average_from < 0 || step <= o.average_from)) {
      // A new schedule whose average starts later (a warm restart): the old average is not part of it.
      messages << "dise_train: the checkpoint's average of " << average.count << " patches is dropped, "
               << (o.average_from < 0 ? "no averaging" : "averaging starts at patch " + std::to_string(o.average_from))
               << std::endl;
      average.count = 0;
    }
    if (average.count > 0) average.values = packParameters(loadModel(ckpt_average));
    messages << "dise_train: resumed at patch " << step << std::endl;
  }
  const long steps_per_epoch = static_cast<long>(listed.lines.size()) * o.patches_per_cloud;
  const long total_steps = o.stop_at > 0 ? std::min(o.stop_at, steps_per_epoch * o.epochs) : steps_per_epoch * o.epochs;
  std::ofstream log(o.log, step > 0 ? std::ios::app : std::ios::trunc);
  if (step == 0) log << "epoch,patch,cloud,iteration,loss\n";

  const std::string recipe = o.recipe();
  if (!resumed_recipe.empty() && (resumed_recipe != recipe || resumed_list != o.list))
    history += (history.empty() ? "" : "; ") + std::string("until patch ") + std::to_string(step) + ": " +
               resumed_recipe + (resumed_list.empty() ? std::string() : ", on " + resumed_list);
  auto save = [&](const std::vector<float>& weights, const std::string& path, long patches) {
    Model model = unpackParameters(weights);
    model.metadata = {{"k_train", std::to_string(o.k)},
                      {"iterations_train", std::to_string(o.iterations)},
                      {"patches", std::to_string(patches)},
                      {"epochs", std::to_string(double(patches) / steps_per_epoch)},
                      {"patch_points", std::to_string(o.patch)},
                      {"averaged_patches", std::to_string(average.count)},
                      {"training_list", o.list},
                      {"recipe", recipe}};
    if (!o.k_mix.empty()) model.metadata["k_mix"] = kMixText(o.k_mix);
    if (!history.empty()) model.metadata["history"] = history;
    if (o.edge_scale != EdgeScaleRule::Global) setEdgeScaleRule(model, o.edge_scale);
    saveModel(model, path);
  };
  long saved_step = o.resume && step > 0 ? step : -1;  // the last checkpoint on disk
  auto checkpoint = [&](long patches) {
    saved_step = patches;
    save(engine.parameters(), ckpt_model, patches);
    if (average.count > 0) save(average.values, ckpt_average, patches);
    const RmsProp optimizer = engine.optimizer();
    if (!optimizer.square_average.empty()) saveOptimizer(optimizer, ckpt_optim);
    std::ofstream(ckpt_state) << nlohmann::json{{"step", patches}, {"averaged", average.count}}.dump();
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
    for (long i = 0; i < steps_per_epoch; ++i) order[i] = listed.lines[i % listed.lines.size()];
    std::shuffle(order.begin(), order.end(), epoch_rng);
    std::mt19937_64 rng(o.seed * 104729 + step);
    const TrainingCloud& cloud = clouds[order[step % steps_per_epoch]];  // order holds cloud indices
    const TrainingPatch patch = makePatch(cloud, o.patch, o.patchK(step), rng, o.edge_scale);
    std::vector<double> losses;
    try {
      losses = engine.trainPatch(patch, o.iterations, o.learningRate(step), o.dropout, o.seed * 1000003 + step);
    } catch (const NonFiniteTraining& e) {
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
    if (o.average_from >= 0 && step >= o.average_from) average.add(engine.parameters());
    running = step == start_step ? patch_loss : 0.95 * running + 0.05 * patch_loss;

    const long done = step + 1;  // patches done, this one included
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const bool go_on = !after_patch || after_patch({done, total_steps, epoch + 1, o.epochs, running,
                                                    elapsed / double(done - start_step)});
    if (std::chrono::duration<double>(now - last_checkpoint).count() > 60 * o.checkpoint_minutes) {
      checkpoint(done);
      last_checkpoint = now;
    }
    if (o.snapshot_every > 0 && done % o.snapshot_every == 0)
      save(engine.parameters(), o.checkpoint_dir + "/model_" + std::to_string(done) + ".safetensors", done);
    if (o.minutes > 0 && elapsed > 60 * o.minutes) {
      ++step;
      messages << "\ndise_train: time budget of " << o.minutes << " min reached\n";
      break;
    }
    if (!go_on) {
      ++step;
      break;
    }
  }
  checkpoint(step);
  save(average.count > 0 ? average.values : engine.parameters(), o.out, step);
  return {step, double(step) / steps_per_epoch, average.count};
}

}  // namespace train
}  // namespace pcl_dise
