#pragma once
// A whole training run by the published recipe (docs/algorithm.md, docs/models.md): patches of
// PCPNet clouds, L iterations per patch with a loss and an RMSprop step after each, dropout on
// the kernel weights, a learning-rate schedule, weight averaging, checkpoints and resuming, on any
// TrainingEngine. dise_train parses its options into TrainingOptions and calls runTraining.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "pcl_dise/core/model.h"             // EdgeScaleRule
#include "pcl_dise/train/native_training.h"  // RmsProp
#include "pcl_dise/train/training_engine.h"

namespace pcl_dise {
namespace train {

/** A run's recipe and files (dise_train's options of the same names). */
struct TrainingOptions {
  std::string list;                            ///< the PCPNet list of training clouds
  std::string out = "dise_k64.safetensors";    ///< the model written at the end
  std::string checkpoint_dir = "checkpoints";  ///< model, optimizer, average, progress.json
  std::string log = "train_log.csv";           ///< every loss: epoch, patch, cloud, iteration, loss
  int k = 64;                                  ///< neighbours per point (the model's k)
  std::vector<int> k_mix;                      ///< each patch's k drawn from these (empty: k)
  int iterations = 8;                          ///< L during training
  int epochs = 300;                            ///< passes over the clouds
  int patch = 2048;                            ///< points per patch (at least k + 1)
  int patches_per_cloud = 4;                   ///< patches per cloud and epoch
  double lr = 5e-4;                            ///< RMSprop's learning rate
  double lr_final = -1;                        ///< reached at decay_end, linearly from decay_start (< 0: no decay)
  long decay_start = 0;                        ///< the patch at which the learning rate starts to fall
  long decay_end = 0;                          ///< the patch at which it reaches lr_final
  long average_from = -1;                      ///< average the weights from this patch on (< 0: no averaging)
  double dropout = 0.25;                       ///< on the kernel weights
  double minutes = 0;                          ///< stop after this many minutes (0: no limit)
  double checkpoint_minutes = 5;               ///< minutes between checkpoints
  long stop_at = 0;                            ///< stop after this many patches in all (0: after epochs)
  long snapshot_every = 0;                     ///< keep model_<patches>.safetensors every this many patches (0: never)
  std::uint64_t seed = 1;                      ///< the initial weights, the patches and the dropout masks
  bool resume = false;                         ///< continue from checkpoint_dir
  bool fresh_noise = false;                    ///< new noise for every noisy patch (loadTrainingCloud)
  EdgeScaleRule edge_scale = EdgeScaleRule::Global;  ///< how the edges are normalised (written in the model)
  TrainingLoss loss;                                 ///< what the gradient is of (other than the chord: native engine)

  /** Throws std::runtime_error for a recipe that cannot run. */
  void validate() const;
  /** The learning rate of patch `step`: lr until decay_start, then linear down to lr_final at
   *  decay_end, lr_final after it (no decay where lr_final < 0). */
  double learningRate(long step) const;
  /** The k of patch `step`: k, or one of k_mix drawn from (seed, step) alone, so that the
   *  patches' centres and dropout masks are those of the same run without k_mix. */
  int patchK(long step) const;
  /** The k as the log and the recipe name it: "64" or "64 (each patch one of 32,64,128)". */
  std::string kText() const;
  /** The recipe line kept in the model's metadata. */
  std::string recipe() const;
};

/** A uniform running average of the weights after each patch (stochastic weight averaging). */
struct WeightAverage {
  std::vector<float> values;  ///< the average, packed as the model's parameters
  long count = 0;             ///< patches averaged
  /** Adds one patch's weights. */
  void add(const std::vector<float>& current);
};

/** RMSprop's state as a checkpoint file both engines read and write: its running averages of
 *  squared gradients shaped like the model's tensors, the step count in the metadata. */
void saveOptimizer(const RmsProp& state, const std::string& path);
/** Reads saveOptimizer's file; throws std::runtime_error for another file. */
RmsProp loadOptimizer(const std::string& path);

/** Where a run stands after a patch. */
struct TrainingProgress {
  long patch = 0;                ///< patches done
  long total = 0;                ///< patches the run will do
  long epoch = 0;                ///< the patch's epoch (1-based)
  long epochs = 0;               ///< epochs in all
  double loss = 0;               ///< running mean of the patches' last-iteration loss
  double seconds_per_patch = 0;  ///< since this run started
};

/** What a run did. */
struct TrainingResult {
  long patches = 0;   ///< patches done in all (resumed ones included)
  double epochs = 0;  ///< patches / patches per epoch
  long averaged = 0;  ///< patches in the weight average written (0: the last weights were)
};

/** The run: reads options.list (clouds that cannot be read are skipped with a warning), starts from
 *  randomModel(seed) or resumes from the checkpoint folder, trains patch by patch with `engine`,
 *  logs every loss, checkpoints every checkpoint_minutes and at the end, and writes options.out
 *  (the weight average where there is one). after_patch(progress) after every patch: false stops
 *  the run after it, as time and patch limits do (it still checkpoints and writes). messages: what
 *  the run tells ("dise_train: ..." lines). read_torch_optimizer: reads an earlier LibTorch run's
 *  optimizer.pt on resume (nullptr: it cannot be read, the optimiser starts afresh with a warning).
 *  Throws std::runtime_error with a message: a recipe that cannot run, no usable cloud, a loss that
 *  is not finite (the last good checkpoint kept). */
TrainingResult runTraining(const TrainingOptions& options, TrainingEngine& engine,
                           const std::function<bool(const TrainingProgress&)>& after_patch, std::ostream& messages,
                           const std::function<RmsProp(const std::string&)>& read_torch_optimizer = nullptr);

}  // namespace train
}  // namespace pcl_dise
