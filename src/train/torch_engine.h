#pragma once
// The LibTorch training engine: compiled into dise_train where LibTorch is built, and into no
// installed library, so its declarations live here and not in pcl_dise/train/training_engine.h.
#include <memory>
#include <string>

#include "pcl_dise/train/training_engine.h"

namespace pcl_dise {
namespace train {

/** device: "cpu" or "cuda". */
std::unique_ptr<TrainingEngine> makeTorchEngine(const std::string& device, int threads);
/** The RMSprop state of an optimizer.pt written by earlier LibTorch runs. */
RmsProp readTorchOptimizer(const std::string& path);

}  // namespace train
}  // namespace pcl_dise
