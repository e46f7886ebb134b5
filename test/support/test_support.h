#pragma once
// Shared helpers for the tests: reference data, synthetic clouds, angle comparisons.
#include <array>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <pcl/point_cloud.h>
#include <pcl/point_types.h>

#include "pcl_dise/core/model.h"  // EdgeScaleRule

namespace pcl_dise {
namespace test {

/** ../shared beside the checkout (configurable with -DPCL_DISE_SHARED_DIR). */
std::string sharedDir();
/** The T stored at byte `offset` of `bytes` (this machine's byte order: little-endian, as LAS). */
template <typename T>
T valueAt(const std::string& bytes, std::size_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}
/** Stores `v` at byte `offset` of `bytes`. */
template <typename T>
void putAt(std::string& bytes, std::size_t offset, T v) {
  std::memcpy(&bytes[offset], &v, sizeof v);
}
/** Whether `relative` exists under sharedDir(). */
bool sharedFileExists(const std::string& relative);
/** Whether the machine has an NVIDIA GPU by its driver's device files (whatever our CUDA code
 *  thinks): where it does, a CUDA backend that is not available is a failure, not a skip. */
bool nvidiaDevicePresent();
/** The build tree (tools live in apps/). */
std::string binaryDir();
/** The source tree (the repository's own data: data/clouds/, data/models/). */
std::string sourceDir();
/** A fresh temporary folder for one test, removed when the test program exits
 *  (kept where the environment variable PCL_DISE_KEEP_TEST_FILES is set). */
std::string temporaryDir(const std::string& name);

/** Points $PCL_DISE_MODEL_DIR (the first folder defaultModelPath searches) at `dir` for its
 *  lifetime and restores the earlier value after it. */
class ScopedModelDir {
 public:
  explicit ScopedModelDir(const std::string& dir);
  ~ScopedModelDir();
  ScopedModelDir(const ScopedModelDir&) = delete;
  ScopedModelDir& operator=(const ScopedModelDir&) = delete;

 private:
  bool had_previous_ = false;
  std::string previous_;
};

/** What a shell command printed (stdout and stderr) and its exit code. */
struct CommandResult {
  int exit_code;
  std::string output;
};
CommandResult runCommand(const std::string& command);

/** The message of the OptionsError `run` throws, "" where it throws none (other errors pass). */
std::string optionsErrorOf(const std::function<void()>& run);

/** A whole file as text ("" where it cannot be read). */
std::string readFile(const std::string& path);

/** An .xyz file as a cloud. */
pcl::PointCloud<pcl::PointXYZ>::Ptr readXyz(const std::string& path);

/** A random model (seeded) written to a temporary .safetensors file; returns its path. */
std::string randomModelFile(unsigned seed);
/** The same model, marked as trained with `rule` (EdgeScaleRule), in a file of its own. */
std::string randomModelFile(unsigned seed, EdgeScaleRule rule);

/** Unoriented angle between two directions in degrees; 90 where either is not finite. */
double unorientedAngleDeg(const float* a, const float* b);

/** n points on the unit sphere (deterministic). */
pcl::PointCloud<pcl::PointXYZ>::Ptr sphereCloud(int n, unsigned seed = 1);
/** Points sampled on the surface of an axis-aligned box of side `side` (deterministic). */
pcl::PointCloud<pcl::PointXYZ>::Ptr boxCloud(int n, float side = 1.f, unsigned seed = 2);

/** A LiDAR-like terrain, 60×60 points 0.5 m apart with a ridge and a step, `offset` added to
 *  every coordinate (georeferenced where the offset is UTM-sized). */
std::vector<std::array<double, 3>> terrainPoints(const std::array<double, 3>& offset);
/** Writes points as an .xyz file in full double precision. */
void writeXyzFile(const std::string& path, const std::vector<std::array<double, 3>>& points);
/** Writes sphereCloud(n) as an .xyz file. */
void writeSphereXyzFile(const std::string& path, int n);

/** Percentile (0..100) of values. */
double percentile(std::vector<double> values, double pct);

}  // namespace test
}  // namespace pcl_dise
