// The normals-file job (include/pcl_dise/jobs/normals_file.h) as a unit: where it decides to run in tiles, the
// checks it makes before reading a byte, the default orientation, the same bytes in tiles as in
// memory, and a cancelled run leaving nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "pcl_dise/core/error_bound.h"
#include "pcl_dise/core/errors.h"
#include "pcl_dise/core/model.h"
#include "pcl_dise/io/point_table.h"
#include "pcl_dise/jobs/normals_file.h"
#include "test_support.h"

namespace {

using namespace pcl_dise;
using namespace pcl_dise::test;

// A job on a 3,600-point terrain file (UTM-sized offset: the double path), k = 16, two iterations
// of a random model.
jobs::NormalsFileJob terrainJob(const std::string& dir, const std::string& output) {
  const std::string input = dir + "/terrain.xyz";
  if (!std::filesystem::exists(input)) writeXyzFile(input, terrainPoints({512000.0, 5400000.0, 250.0}));
  jobs::NormalsFileJob job;
  job.input = input;
  job.output = dir + "/" + output;
  job.settings.k = 16;
  job.settings.iterations = 2;
  job.settings.model = randomModelFile(7);
  job.settings.threads = 2;
  return job;
}

std::string problem(const jobs::NormalsFileJob& job) {
  return optionsErrorOf([&] { jobs::checkJob(job); });
}

TEST(NormalsFileJob, RunsInTilesWhereAskedOrWhereTheBudgetIsTooSmall) {
  const std::string dir = temporaryDir("job_tiles_decision");
  jobs::NormalsFileJob job = terrainJob(dir, "out.normals");
  EXPECT_FALSE(jobs::runsInTiles(job));  // no budget: in memory
  job.max_memory_mb = 1e6;
  EXPECT_FALSE(jobs::runsInTiles(job));
  job.max_memory_mb = 1;  // 3,600 points at about 600 bytes each need more than 1 MB
  EXPECT_TRUE(jobs::runsInTiles(job));
  job.max_memory_mb = 0;
  job.tile_points = 1000;
  EXPECT_TRUE(jobs::runsInTiles(job));
  job.tile_points = 0;
  job.always_tiles = true;
  EXPECT_TRUE(jobs::runsInTiles(job));
}

TEST(NormalsFileJob, ChecksItsBudgetAndSettingsWithOneMessageEach) {
  jobs::NormalsFileJob job = terrainJob(temporaryDir("job_checks"), "out.normals");
  EXPECT_EQ(problem(job), "");
  job.max_memory_mb = -1;
  EXPECT_EQ(problem(job), "max_memory must be a number of MB, 0 or more (0: in memory)");
  job.max_memory_mb = NAN;
  EXPECT_EQ(problem(job), "max_memory must be a number of MB, 0 or more (0: in memory)");
  job.max_memory_mb = 0;
  job.settings.radius = 0.5;
  EXPECT_EQ(problem(job), "set k or radius, not both");
}

TEST(NormalsFileJob, ABackendThisMachineLacksIsAnOptionsErrorInMemoryAndInTiles) {
  std::string why;
  if (backendAvailable(Backend::Cuda, &why)) GTEST_SKIP() << "the cuda backend is available here";
  const std::string dir = temporaryDir("job_backend");
  jobs::NormalsFileJob job = terrainJob(dir, "out.pcd");
  job.settings.backend = Backend::Cuda;
  jobs::Collective one_process;
  for (const std::size_t tile_points : {std::size_t(0), std::size_t(700)}) {
    job.tile_points = tile_points;
    EXPECT_EQ(optionsErrorOf([&] { jobs::estimateNormalsFile(job, one_process); }),
              backendUnavailableMessage(Backend::Cuda))
        << tile_points;
    EXPECT_FALSE(std::filesystem::exists(job.output));
  }
}

TEST(NormalsFileJob, TheDefaultOrientationComesFromTheFormatUnlessAViewpointIsGiven) {
  EXPECT_EQ(jobs::defaultOrientationFor("survey.las", false), Orientation::kUp);
  EXPECT_EQ(jobs::defaultOrientationFor("survey.LAZ", false), Orientation::kUp);
  EXPECT_EQ(jobs::defaultOrientationFor("survey.las", true), Orientation::kViewpoint);
  EXPECT_EQ(jobs::defaultOrientationFor("frame.pcd", false), Orientation::kViewpoint);
  EXPECT_EQ(jobs::defaultOrientationFor("notes.txt", false), Orientation::kViewpoint);
}

TEST(NormalsFileJob, InTilesItWritesTheBytesItWritesInMemory) {
  const std::string dir = temporaryDir("job_tiles_equal");
  jobs::Collective one_process;
  const jobs::NormalsFileJob in_memory = terrainJob(dir, "memory.normals");
  const jobs::NormalsFileReport memory_report = jobs::estimateNormalsFile(in_memory, one_process);
  EXPECT_FALSE(memory_report.in_tiles);
  EXPECT_EQ(memory_report.points, 3600u);
  EXPECT_NE(memory_report.offset[0], 0.0);  // UTM-sized: moved before the coordinates became floats

  jobs::NormalsFileJob tiled = terrainJob(dir, "tiles.normals");
  tiled.tile_points = 700;
  const jobs::NormalsFileReport tiles_report = jobs::estimateNormalsFile(tiled, one_process);
  EXPECT_TRUE(tiles_report.in_tiles);
  EXPECT_GT(tiles_report.tiles.tiles.tiles, 1u);
  EXPECT_EQ(tiles_report.points, 3600u);
  EXPECT_EQ(tiles_report.without_normal, memory_report.without_normal);
  const std::string memory_bytes = readFile(in_memory.output);
  ASSERT_FALSE(memory_bytes.empty());
  EXPECT_EQ(readFile(tiled.output), memory_bytes);
}

// Repeated positions in tiles as in memory: twins (every third point stored again) get their
// position's normal, and a position stored more than k + 1 times (a pile) gets none.
TEST(NormalsFileJob, RepeatedPositionsGetInTilesTheBytesTheyGetInMemory) {
  const std::string dir = temporaryDir("job_tiles_repeats");
  std::vector<std::array<double, 3>> points = terrainPoints({512000.0, 5400000.0, 250.0});
  const std::size_t distinct = points.size();
  for (std::size_t i = 0; i < distinct; i += 3) points.push_back(points[i]);
  for (int copy = 0; copy < 20; ++copy) points.push_back(points[1000]);
  writeXyzFile(dir + "/terrain.xyz", points);
  jobs::Collective one_process;
  const jobs::NormalsFileJob in_memory = terrainJob(dir, "memory.normals");
  const jobs::NormalsFileReport memory_report = jobs::estimateNormalsFile(in_memory, one_process);
  EXPECT_EQ(memory_report.without_normal, 21u);  // the pile: point 1000 and its 20 copies
  jobs::NormalsFileJob tiled = terrainJob(dir, "tiles.normals");
  tiled.tile_points = 700;
  const jobs::NormalsFileReport tiles_report = jobs::estimateNormalsFile(tiled, one_process);
  EXPECT_TRUE(tiles_report.in_tiles);
  EXPECT_EQ(tiles_report.without_normal, 21u);
  const std::string memory_bytes = readFile(in_memory.output);
  ASSERT_FALSE(memory_bytes.empty());
  EXPECT_EQ(readFile(tiled.output), memory_bytes);
}

TEST(NormalsFileJob, WhatNeedsTheCloudInMemoryIsRefusedInTiles) {
  const std::string dir = temporaryDir("job_tiles_refusals");
  jobs::Collective one_process;
  jobs::NormalsFileJob job = terrainJob(dir, "out.normals");
  job.tile_points = 700;
  job.indices = {1, 2, 3};
  EXPECT_THROW(jobs::estimateNormalsFile(job, one_process), OptionsError);
  job.indices.clear();
  job.settings.orientation = Orientation::kTree;
  EXPECT_THROW(jobs::estimateNormalsFile(job, one_process), OptionsError);
  job.settings.orientation = Orientation::kViewpoint;
  job.settings.settle_degrees = 1;
  EXPECT_THROW(jobs::estimateNormalsFile(job, one_process), OptionsError);
  EXPECT_FALSE(std::filesystem::exists(job.output));
}

// The values of `name` in the cloud file `path`.
std::vector<double> fieldOf(const std::string& path, const std::string& name) {
  for (const io::PointField& f : io::readPointTable(path).fields)
    if (f.name == name) return f.values;
  ADD_FAILURE() << path << " has no field " << name;
  return {};
}

TEST(NormalsFileJob, TheErrorBoundIsEachNormalsByTheModelsCalibrationInTilesAsInMemory) {
  const std::string dir = temporaryDir("job_error_bound");
  ErrorCalibration calibration;
  calibration.curvature = {1e-4, 1e-2, 0.1};
  calibration.degrees = {1, 5, 20};
  Model model = loadModel(randomModelFile(7));
  setErrorCalibration(model, calibration);
  const std::string calibrated = dir + "/calibrated.safetensors";
  saveModel(model, calibrated);
  jobs::Collective one_process;
  for (const char* extension : {".pcd", ".las"}) {
    SCOPED_TRACE(extension);
    jobs::NormalsFileJob in_memory = terrainJob(dir, std::string("memory") + extension);
    in_memory.settings.model = calibrated;
    in_memory.error_bound = true;
    jobs::estimateNormalsFile(in_memory, one_process);
    jobs::NormalsFileJob tiled = in_memory;
    tiled.output = dir + "/tiles" + extension;
    tiled.tile_points = 700;
    EXPECT_TRUE(jobs::estimateNormalsFile(tiled, one_process).in_tiles);
    EXPECT_EQ(readFile(tiled.output), readFile(in_memory.output));
    const bool las = std::string(extension) == ".las";
    const std::vector<double> bounds = fieldOf(in_memory.output, las ? "NormalErrorBound" : "error_bound");
    const std::vector<double> nx = fieldOf(in_memory.output, las ? "NormalX" : "normal_x");
    const std::vector<double> ny = fieldOf(in_memory.output, las ? "NormalY" : "normal_y");
    const std::vector<double> nz = fieldOf(in_memory.output, las ? "NormalZ" : "normal_z");
    const std::vector<double> curvature = fieldOf(in_memory.output, las ? "Curvature" : "curvature");
    ASSERT_EQ(bounds.size(), 3600u);
    for (std::size_t i = 0; i < bounds.size(); ++i) {
      const float normal[3] = {float(nx[i]), float(ny[i]), float(nz[i])};
      EXPECT_EQ(float(bounds[i]), normalErrorBound(calibration, normal, float(curvature[i]))) << i;
      EXPECT_TRUE(bounds[i] >= 1 && bounds[i] <= 20) << i;
    }
  }
}

TEST(NormalsFileJob, TheErrorBoundNeedsTheIterationsACalibratedModelAndAFormatThatHoldsIt) {
  const std::string dir = temporaryDir("job_error_bound_refusals");
  jobs::NormalsFileJob job = terrainJob(dir, "out.pcd");
  job.error_bound = true;
  EXPECT_EQ(problem(job), "");
  job.settings.iterations = 0;
  EXPECT_EQ(problem(job), "the error bound is DISE's: it needs iterations above 0");
  job.settings.iterations = 2;
  job.output = dir + "/out.normals";
  EXPECT_EQ(problem(job), "'" + job.output + "' cannot hold the error bound (write .pcd, .ply, .las or .laz)");
  job.output = dir + "/out.pcd";
  jobs::Collective one_process;
  for (const std::size_t tile_points : {std::size_t(0), std::size_t(700)}) {
    job.tile_points = tile_points;
    try {
      jobs::estimateNormalsFile(job, one_process);  // a random model: no calibration
      ADD_FAILURE() << "a model without a calibration gave error bounds";
    } catch (const OptionsError& e) {
      EXPECT_EQ(std::string(e.what()), "the model '" + job.settings.model +
                                           "' carries no error calibration, which the error bound needs "
                                           "(scripts/calibrate_error_bound.py adds one)");
    }
    EXPECT_FALSE(std::filesystem::exists(job.output));
  }
}

TEST(NormalsFileJob, ACancelledRunLeavesNoOutput) {
  const std::string dir = temporaryDir("job_cancelled");
  jobs::Collective one_process;
  for (const std::size_t tile_points : {std::size_t(0), std::size_t(700)}) {
    jobs::NormalsFileJob job = terrainJob(dir, "out.normals");
    job.tile_points = tile_points;
    int calls = 0;
    job.progress = [&](const Progress&) { return ++calls < 3; };
    const jobs::NormalsFileReport report = jobs::estimateNormalsFile(job, one_process);
    EXPECT_TRUE(report.cancelled) << tile_points;
    EXPECT_FALSE(std::filesystem::exists(job.output)) << tile_points;
  }
}

}  // namespace
