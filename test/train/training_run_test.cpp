// The training run's parts without the tool: the schedule, k per patch, weight averaging, the
// optimiser's checkpoint file, patches, and a short run with the native engine (a time and a
// caller's stop, checkpoints, resuming).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "pcl_dise/core/edge_scale.h"

#include "pcl_dise/core/model.h"
#include "pcl_dise/train/pcpnet_data.h"
#include "pcl_dise/train/training_clouds.h"
#include "pcl_dise/train/training_run.h"
#include "test_support.h"

namespace {

using pcl_dise::train::TrainingOptions;

TEST(TrainingRun, TheLearningRateHoldsThenFallsLinearly) {
  TrainingOptions o;
  o.lr = 1e-3;
  EXPECT_DOUBLE_EQ(o.learningRate(1000000), 1e-3);  // no decay without lr_final
  o.lr_final = 1e-4, o.decay_start = 100, o.decay_end = 200;
  EXPECT_DOUBLE_EQ(o.learningRate(50), 1e-3);
  EXPECT_DOUBLE_EQ(o.learningRate(150), 0.5 * (1e-3 + 1e-4));
  EXPECT_DOUBLE_EQ(o.learningRate(250), 1e-4);
}

TEST(TrainingRun, EachPatchsKComesFromTheSeedAndThePatchAlone) {
  TrainingOptions o;
  o.k = 64;
  EXPECT_EQ(o.patchK(7), 64);
  EXPECT_EQ(o.kText(), "64");
  o.k_mix = {32, 64, 128};
  std::set<int> seen;
  for (long step = 0; step < 200; ++step) {
    const int k = o.patchK(step);
    EXPECT_EQ(k, o.patchK(step));  // the same every time
    seen.insert(k);
  }
  EXPECT_EQ(seen, (std::set<int>{32, 64, 128}));
  EXPECT_EQ(o.kText(), "64 (each patch one of 32,64,128)");
  EXPECT_NE(o.recipe().find(", k = 64 (each patch one of 32,64,128), L = 8"), std::string::npos) << o.recipe();
}

TEST(TrainingRun, RecipesThatCannotRunAreRefused) {
  TrainingOptions o;
  o.patch = 64;  // needs k + 1 = 65 points
  EXPECT_THROW(o.validate(), std::runtime_error);
  o.patch = 2048, o.lr_final = 1e-4;  // no decay range
  EXPECT_THROW(o.validate(), std::runtime_error);
  o.decay_end = 10, o.dropout = 1;
  EXPECT_THROW(o.validate(), std::runtime_error);
  o.dropout = 0.25;
  EXPECT_NO_THROW(o.validate());
}

TEST(TrainingRun, TheWeightAverageIsTheMeanOfWhatWasAdded) {
  pcl_dise::train::WeightAverage average;
  average.add({1, 2});
  average.add({3, 6});
  average.add({5, 10});
  EXPECT_EQ(average.count, 3);
  EXPECT_FLOAT_EQ(average.values[0], 3);
  EXPECT_FLOAT_EQ(average.values[1], 6);
}

TEST(TrainingRun, TheOptimisersStateReadsBackAndOtherFilesAreRefused) {
  const std::string dir = pcl_dise::test::temporaryDir("training_optimizer");
  pcl_dise::train::RmsProp state;
  state.square_average = pcl_dise::packParameters(pcl_dise::randomModel(3));
  state.steps = 42;
  pcl_dise::train::saveOptimizer(state, dir + "/optimizer.safetensors");
  const pcl_dise::train::RmsProp back = pcl_dise::train::loadOptimizer(dir + "/optimizer.safetensors");
  EXPECT_EQ(back.steps, 42);
  EXPECT_EQ(back.square_average, state.square_average);
  EXPECT_THROW(pcl_dise::train::loadOptimizer(pcl_dise::test::randomModelFile(4)), std::runtime_error);
}

// A list of two small PCPNet clouds (spheres of 600 points) in `dir`.
std::string writeList(const std::string& dir) {
  std::ofstream list(dir + "/train.txt");
  for (int s = 0; s < 2; ++s) {
    const auto sphere = pcl_dise::test::sphereCloud(600, s + 1);
    pcl_dise::train::Cloud cloud;
    for (const auto& p : *sphere) {
      cloud.points.push_back({p.x, p.y, p.z});
      cloud.normals.push_back({p.x, p.y, p.z});
    }
    pcl_dise::train::writeCloud(dir + "/sphere" + std::to_string(s), cloud, {0, 1, 2});
    list << "sphere" << s << "\n";
  }
  return dir + "/train.txt";
}

TEST(TrainingRun, APatchIsTheNearestPointsWithTheirGraph) {
  const std::string dir = pcl_dise::test::temporaryDir("training_patch");
  writeList(dir);
  const pcl_dise::train::TrainingCloud cloud = pcl_dise::train::loadTrainingCloud(dir + "/sphere0", false);
  EXPECT_EQ(cloud.points.size(), 1800u);
  EXPECT_GT(cloud.edge_scale, 0.f);
  std::mt19937_64 rng(1);
  const pcl_dise::train::TrainingPatch patch = pcl_dise::train::makePatch(cloud, 200, 12, rng);
  EXPECT_EQ(patch.points.size(), 600u);
  EXPECT_EQ(patch.targets.size(), 600u);
  EXPECT_EQ(patch.loss_points, 100u);
  EXPECT_EQ(patch.graph.numEdges(), 200u * 13u);
  EXPECT_EQ(patch.edge_scale, cloud.edge_scale);
}

TEST(TrainingRun, APatchUnderTheLocalRuleCarriesEachPointsScale) {
  const std::string dir = pcl_dise::test::temporaryDir("training_patch_local");
  writeList(dir);
  const pcl_dise::train::TrainingCloud cloud = pcl_dise::train::loadTrainingCloud(dir + "/sphere0", false);
  for (int k : {8, 16}) {
    std::mt19937_64 rng(1), same(1);
    const pcl_dise::train::TrainingPatch global = pcl_dise::train::makePatch(cloud, 200, k, rng);
    const pcl_dise::train::TrainingPatch local =
        pcl_dise::train::makePatch(cloud, 200, k, same, pcl_dise::EdgeScaleRule::Local);
    EXPECT_TRUE(global.edge_scales.empty());
    EXPECT_EQ(local.points, global.points);  // the same patch, with its scales
    EXPECT_EQ(local.edge_scales, pcl_dise::localEdgeScales(local.points.data(), 200, local.edge_scale)) << k;
  }
}

TEST(TrainingRun, AListThatNamesACloudTwiceWeighsItAndLoadsItOnce) {
  const std::string dir = pcl_dise::test::temporaryDir("training_run_repeats");
  TrainingOptions o;
  o.list = writeList(dir);
  std::ofstream(o.list, std::ios::app) << "sphere0\n";
  o.out = dir + "/model.safetensors";
  o.checkpoint_dir = dir + "/ckpt";
  o.log = dir + "/log.csv";
  o.k = 16, o.iterations = 2, o.epochs = 1, o.patch = 100, o.patches_per_cloud = 1;
  o.edge_scale = pcl_dise::EdgeScaleRule::Local;
  const auto engine = pcl_dise::train::makeNativeEngine(1);
  std::ostringstream messages;
  const pcl_dise::train::TrainingResult result = pcl_dise::train::runTraining(
      o, *engine, [](const pcl_dise::train::TrainingProgress&) { return true; }, messages);
  EXPECT_EQ(result.patches, 3);  // one per line
  EXPECT_NE(messages.str().find("3 clouds (2 distinct), k = 16"), std::string::npos) << messages.str();
  EXPECT_EQ(pcl_dise::edgeScaleRule(pcl_dise::loadModel(o.out)), pcl_dise::EdgeScaleRule::Local);
}

TEST(TrainingRun, AShortRunCheckpointsStopsWhenAskedAndResumes) {
  const std::string dir = pcl_dise::test::temporaryDir("training_run");
  TrainingOptions o;
  o.list = writeList(dir);
  o.out = dir + "/model.safetensors";
  o.checkpoint_dir = dir + "/ckpt";
  o.log = dir + "/log.csv";
  o.k = 8, o.iterations = 2, o.epochs = 2, o.patch = 100, o.patches_per_cloud = 2, o.average_from = 1;
  const auto engine = pcl_dise::train::makeNativeEngine(1);
  std::ostringstream messages;
  long reported = 0;
  // Stop after the third patch.
  const pcl_dise::train::TrainingResult first = pcl_dise::train::runTraining(
      o, *engine,
      [&](const pcl_dise::train::TrainingProgress& p) {
        reported = p.patch;
        EXPECT_EQ(p.total, 8);
        return p.patch < 3;
      },
      messages);
  EXPECT_EQ(reported, 3);
  EXPECT_EQ(first.patches, 3);
  EXPECT_EQ(first.averaged, 2);  // patches 1 and 2 (0-based)
  EXPECT_NE(messages.str().find("2 clouds, k = 8"), std::string::npos) << messages.str();
  const pcl_dise::Model written = pcl_dise::loadModel(o.out);
  EXPECT_EQ(written.metadata.at("patches"), "3");
  EXPECT_TRUE(std::filesystem::exists(o.checkpoint_dir + "/optimizer.safetensors"));
  // Resumed, it runs to the end of the second epoch.
  o.resume = true;
  const pcl_dise::train::TrainingResult second = pcl_dise::train::runTraining(o, *engine, nullptr, messages);
  EXPECT_EQ(second.patches, 8);
  EXPECT_DOUBLE_EQ(second.epochs, 2.0);
  EXPECT_NE(messages.str().find("resumed at patch 3"), std::string::npos) << messages.str();
  std::ifstream log(o.log);
  std::size_t lines = 0;
  for (std::string line; std::getline(log, line);) ++lines;
  EXPECT_EQ(lines, 1u + 8u * 2u);  // the header, two losses per patch
}

}  // namespace
