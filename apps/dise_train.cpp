// dise_train: trains a DISE model by the published recipe (docs/algorithm.md) on PCPNet-format
// data, on spatial patches: L iterations per patch, a loss and an RMSprop step after each,
// dropout on the kernel weights, weight averaging, checkpoints and --resume (the run is
// pcl_dise/train/training_run.h's). The native engine (the default on the CPU) needs no LibTorch;
// the LibTorch engine runs on the CPU or a GPU.
#include <csignal>
#include <functional>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include <omp.h>

#include <CLI/CLI.hpp>

#include "pcl_dise/core/threads.h"
#include "pcl_dise/train/training_engine.h"
#include "pcl_dise/train/training_run.h"
#ifdef PCL_DISE_WITH_TORCH
#include "pcl_dise/train/reusing_cpu_allocator.h"
#include "torch_engine.h"
#endif

namespace {

// Set by SIGINT / SIGTERM: the run finishes its patch, checkpoints and stops, as --minutes does.
volatile std::sig_atomic_t stop_requested = 0;
extern "C" void requestStop(int) { stop_requested = 1; }

// The options: the run's recipe and files (TrainingOptions) and where it runs.
struct Options {
  pcl_dise::train::TrainingOptions run;
  std::string device = "cpu", engine;
  int threads = 0;
};

std::string bar(double fraction, int width = 30) {
  const int filled = static_cast<int>(fraction * width);
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]";
}

// The engine --engine names (default: native on the CPU, LibTorch on a GPU).
std::unique_ptr<pcl_dise::train::TrainingEngine> makeEngine(const Options& o) {
  const std::string engine = o.engine.empty() ? (o.device == "cpu" ? "native" : "torch") : o.engine;
  if (engine == "native") {
    if (o.device != "cpu")
      throw std::runtime_error("the native engine runs on the CPU: use --engine torch for --device " + o.device);
    return pcl_dise::train::makeNativeEngine(pcl_dise::detail::resolveThreads(o.threads), o.run.loss);
  }
  if (engine != "torch") throw std::runtime_error("unknown engine '" + engine + "' (native or torch)");
  if (!o.run.loss.published())
    throw std::runtime_error(
        "--kernel-weight-loss and --normal-loss train on the native engine only (--engine native)");
#ifdef PCL_DISE_WITH_TORCH
  // Every patch repeats the same tensor sizes: keep freed blocks (at most 8 GiB of them) instead
  // of faulting fresh pages in for each tensor.
  pcl_dise::train::ReusingCpuAllocator::install(std::size_t(8) << 30);
  return pcl_dise::train::makeTorchEngine(o.device, pcl_dise::detail::resolveThreads(o.threads));
#else
  throw std::runtime_error("this dise_train was built without LibTorch: only --engine native");
#endif
}

int train(const Options& o) {
  o.run.validate();
  omp_set_num_threads(pcl_dise::detail::resolveThreads(o.threads));
  const std::unique_ptr<pcl_dise::train::TrainingEngine> engine = makeEngine(o);
  std::function<pcl_dise::train::RmsProp(const std::string&)> read_torch_optimizer;
#ifdef PCL_DISE_WITH_TORCH
  read_torch_optimizer = pcl_dise::train::readTorchOptimizer;
#endif
  // The bar after every patch where patches take over a second, after every fifth otherwise; a
  // signal stops the run after its patch.
  auto report = [&](const pcl_dise::train::TrainingProgress& p) {
    if (p.seconds_per_patch > 1 || p.patch % 5 == 0 || p.patch == p.total)
      std::cout << "\r" << bar(double(p.patch) / p.total) << " epoch " << p.epoch << "/" << p.epochs << " patch "
                << p.patch << "/" << p.total << " loss " << p.loss << " " << p.seconds_per_patch << " s/patch, ETA "
                << static_cast<long>(p.seconds_per_patch * (p.total - p.patch) / 60) << " min   " << std::flush;
    if (!stop_requested) return true;
    std::cout << "\ndise_train: stopped by a signal after patch " << p.patch << "\n";
    return false;
  };
  const pcl_dise::train::TrainingResult r =
      pcl_dise::train::runTraining(o.run, *engine, report, std::cout, read_torch_optimizer);
  std::cout << "\ndise_train: wrote " << o.run.out << " after " << r.patches << " patches (" << r.epochs << " epochs"
            << (r.averaged > 0 ? ", the average of the last " + std::to_string(r.averaged) : std::string()) << ")\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Trains a DISE model (docs/algorithm.md's recipe) on a PCPNet-format list."};
  Options o;
  app.add_option("list", o.run.list, "list file naming the training clouds")->required()->check(CLI::ExistingFile);
  app.add_option("--out", o.run.out, "output model")->capture_default_str();
  app.add_option("--k", o.run.k, "neighbours per point (+ the point itself)")->capture_default_str();
  app.add_option("--k-mix", o.run.k_mix,
                 "draw each patch's k from these, e.g. 32,64,64,128 (repeats weigh a value); --k still names the "
                 "k the model is for (its metadata)")
      ->delimiter(',');
  app.add_option("--iterations", o.run.iterations, "L during training")->capture_default_str();
  app.add_option("--epochs", o.run.epochs, "passes over the clouds")->capture_default_str();
  app.add_option("--patch", o.run.patch, "points per training patch")->capture_default_str();
  app.add_option("--patches-per-cloud", o.run.patches_per_cloud, "patches per cloud and epoch")->capture_default_str();
  app.add_option("--lr", o.run.lr, "RMSprop learning rate")->capture_default_str();
  app.add_option("--lr-final", o.run.lr_final, "learning rate reached at --decay-end (default: no decay)");
  app.add_option("--decay-start", o.run.decay_start, "patch at which the learning rate starts to fall")
      ->capture_default_str();
  app.add_option("--decay-end", o.run.decay_end, "patch at which it reaches --lr-final")->capture_default_str();
  app.add_option("--average-from", o.run.average_from,
                 "average the weights of every patch from this one on and write the average to --out (default: off)");
  app.add_option("--dropout", o.run.dropout, "dropout on the kernel weights")->capture_default_str();
  app.add_option("--seed", o.run.seed, "random seed")->capture_default_str();
  app.add_option("--threads", o.threads, "CPU threads (0: all hardware threads)")->capture_default_str();
  app.add_option("--device", o.device, "cpu or cuda")->capture_default_str();
  app.add_option(
      "--engine", o.engine,
      "native (CPU, no LibTorch) or torch (LibTorch, CPU or CUDA); default: native on the CPU, torch on a GPU");
  app.add_option("--checkpoints", o.run.checkpoint_dir, "checkpoint folder")->capture_default_str();
  app.add_option("--checkpoint-minutes", o.run.checkpoint_minutes, "minutes between checkpoints")
      ->capture_default_str();
  app.add_option("--snapshot-every", o.run.snapshot_every,
                 "also keep the raw weights after every N patches, as model_<patches>.safetensors in the checkpoint "
                 "folder (0: never)");
  app.add_option("--stop-at", o.run.stop_at, "stop (and save) after this many patches in all (0: after --epochs)");
  app.add_option("--minutes", o.run.minutes, "stop (and save) after this many minutes (0: no limit)")
      ->capture_default_str();
  app.add_option("--log", o.run.log, "CSV log of every loss")->capture_default_str();
  app.add_flag("--resume", o.run.resume, "continue from the checkpoint folder");
  app.add_flag("--fresh-noise", o.run.fresh_noise,
               "train a listed NAME_noise_white_<level> cloud as NAME (which must exist) with new noise of that "
               "level for each patch, instead of the one noisy sample on disk");
  std::string edge_scale = "global";
  app.add_option("--edge-scale", edge_scale,
                 "how the network's edges are normalised: global (one scale for the whole cloud, the published "
                 "recipe) or local (each point's own, from its surroundings' spacing: docs/algorithm.md); written "
                 "in the model")
      ->check(CLI::IsMember({"global", "local"}))
      ->capture_default_str();
  app.add_option("--kernel-weight-loss", o.run.loss.kernel_weights,
                 "lambda > 0: also pull each iteration's kernel weights towards weights that favour the neighbours "
                 "near the true tangent plane (lambda times KL(w* || w), docs/models.md); native engine")
      ->capture_default_str();
  std::string normal_loss = "chord";
  app.add_option("--normal-loss", normal_loss,
                 "the normals' loss: chord (min |n -+ t|, the paper's), squared-chord or sine (|n x t|); the log "
                 "shows the chord whichever it is (docs/algorithm.md, section 6); other than chord: native engine")
      ->check([](const std::string& name) {
        try {
          pcl_dise::train::parseNormalLoss(name);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      })
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  o.run.loss.normal = pcl_dise::train::parseNormalLoss(normal_loss);
  o.run.edge_scale = edge_scale == "local" ? pcl_dise::EdgeScaleRule::Local : pcl_dise::EdgeScaleRule::Global;
  std::signal(SIGINT, requestStop);
  std::signal(SIGTERM, requestStop);
  try {
    return train(o);
  } catch (const std::exception& e) {
    std::cerr << "\ndise_train: error: " << e.what() << "\n";
    return 1;
  }
}
