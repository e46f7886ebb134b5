// The tiled run (include/pcl_dise/jobs/out_of_core_normals.h) as a unit: its options from the
// settings, what it refuses before reading a byte, a budget too small for one tile, the progress it
// reports and a cancelled run leaving no output.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "pcl_dise/core/errors.h"
#include "pcl_dise/core/model.h"
#include "pcl_dise/jobs/out_of_core_normals.h"
#include "test_support.h"

namespace {

using namespace pcl_dise;
using namespace pcl_dise::test;

// A 3,600-point terrain file (UTM-sized offset) in `dir`.
std::string terrainFile(const std::string& dir) {
  const std::string input = dir + "/terrain.xyz";
  if (!std::filesystem::exists(input)) writeXyzFile(input, terrainPoints({512000.0, 5400000.0, 250.0}));
  return input;
}

std::string refusal(const NormalSettings& settings) {
  return optionsErrorOf([&] { jobs::outOfCoreOptions(settings); });
}

TEST(OutOfCoreNormals, TakesItsOptionsFromTheSettings) {
  NormalSettings settings;
  settings.k = 16;
  settings.iterations = 3;
  settings.threads = 2;
  settings.orientation = Orientation::kUp;
  settings.viewpoint = std::array<double, 3>{1.0, 2.0, 3.0};
  const jobs::OutOfCoreOptions options = jobs::outOfCoreOptions(settings);
  EXPECT_EQ(options.forward.neighbors, 17u);  // the point itself too
  EXPECT_EQ(options.forward.iterations, 3);
  EXPECT_EQ(options.forward.threads, 2);
  EXPECT_EQ(options.sign, normalSignOf(Orientation::kUp));
  EXPECT_TRUE(options.has_viewpoint);
  EXPECT_EQ(options.viewpoint[2], 3.0);
  EXPECT_EQ(options.backend, settings.backend);
}

TEST(OutOfCoreNormals, RefusesWhatNeedsTheWholeCloudWithTheReason) {
  NormalSettings settings;
  settings.settle_degrees = 1.0;
  EXPECT_EQ(refusal(settings), jobs::needsCloudInMemory(settings));
  EXPECT_NE(refusal(settings).find("settle"), std::string::npos);
  settings.settle_degrees = 0;
  settings.orientation = Orientation::kTree;
  EXPECT_NE(refusal(settings).find("needs it in memory"), std::string::npos);
  settings.orientation = Orientation::kViewpoint;
  EXPECT_EQ(refusal(settings), "");
  EXPECT_EQ(jobs::needsCloudInMemory(settings), "");
}

TEST(OutOfCoreNormals, ABudgetTooSmallForOneTileIsAnErrorAndWritesNothing) {
  const std::string dir = temporaryDir("out_of_core_budget");
  const std::string output = dir + "/out.normals";
  jobs::OutOfCoreOptions options;
  options.forward.neighbors = 17;
  options.forward.iterations = 0;  // PCA: no model needed
  options.memory_budget_mb = 10;   // less than the fixed part
  jobs::Collective one_process;
  try {
    jobs::estimateNormalsOutOfCore(Model(), terrainFile(dir), output, options, one_process);
    FAIL() << "a 10 MB budget ran";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is too small"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST(OutOfCoreNormals, ReportsItsStagesInOrderAndStopsWhenTold) {
  const std::string dir = temporaryDir("out_of_core_progress");
  jobs::OutOfCoreOptions options;
  options.forward.neighbors = 17;
  options.forward.iterations = 2;
  options.forward.tile_points = 700;
  options.forward.threads = 2;
  std::vector<Progress> told;
  options.progress = [&](const Progress& p) {
    told.push_back(p);
    return true;
  };
  jobs::Collective one_process;
  const Model model = loadModel(randomModelFile(7));
  const jobs::OutOfCoreReport report =
      jobs::estimateNormalsOutOfCore(model, terrainFile(dir), dir + "/out.normals", options, one_process);
  EXPECT_EQ(report.points, 3600u);
  EXPECT_EQ(report.missing, 0u);
  EXPECT_GT(report.tiles.tiles, 1u);
  ASSERT_FALSE(told.empty());
  for (std::size_t i = 1; i < told.size(); ++i) EXPECT_GE(told[i].done, told[i - 1].done) << i;
  EXPECT_EQ(std::string(told.front().stage), "reading");
  EXPECT_EQ(std::string(told.back().stage), "writing");
  EXPECT_EQ(told.back().done, 1.0);

  // Stopped while its tiles run: Cancelled, and neither an output nor a scratch file left.
  options.progress = [](const Progress& p) { return p.done < 0.5; };
  EXPECT_THROW(jobs::estimateNormalsOutOfCore(model, terrainFile(dir), dir + "/stopped.normals", options, one_process),
               Cancelled);
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) left.push_back(entry.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"out.normals", "terrain.xyz"}));
}

}  // namespace
