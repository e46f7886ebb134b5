#include "test_support.h"

#include "pcl_dise/core/angle_error.h"

#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include "pcl_dise/core/errors.h"
#include "pcl_dise/core/model.h"
#include "pcl_dise/io/text_io.h"

namespace pcl_dise {
namespace test {

std::string sharedDir() { return PCL_DISE_SHARED_DIR; }

bool sharedFileExists(const std::string& relative) { return std::filesystem::exists(sharedDir() + "/" + relative); }

bool nvidiaDevicePresent() {
  std::error_code ignored;
  return std::filesystem::exists("/dev/nvidiactl", ignored) || std::filesystem::exists("/dev/nvidia0", ignored);
}

std::string binaryDir() { return PCL_DISE_BINARY_DIR; }

std::string sourceDir() { return PCL_DISE_SOURCE_DIR; }

namespace {
// The folders temporaryDir() made, removed when the test program exits (kept for a look where
// PCL_DISE_KEEP_TEST_FILES is set).
struct TemporaryDirs {
  std::set<std::filesystem::path> made;
  ~TemporaryDirs() {
    if (std::getenv("PCL_DISE_KEEP_TEST_FILES")) return;
    std::error_code ignored;
    for (const auto& dir : made) std::filesystem::remove_all(dir, ignored);
  }
};
TemporaryDirs temporary_dirs;
}  // namespace

std::string temporaryDir(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("pcl_dise_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  temporary_dirs.made.insert(dir);
  return dir.string();
}

ScopedModelDir::ScopedModelDir(const std::string& dir) {
  if (const char* previous = std::getenv("PCL_DISE_MODEL_DIR")) {
    had_previous_ = true;
    previous_ = previous;
  }
  setenv("PCL_DISE_MODEL_DIR", dir.c_str(), 1);
}

ScopedModelDir::~ScopedModelDir() {
  if (had_previous_)
    setenv("PCL_DISE_MODEL_DIR", previous_.c_str(), 1);
  else
    unsetenv("PCL_DISE_MODEL_DIR");
}

CommandResult runCommand(const std::string& command) {
  const std::string log = temporaryDir("command") + "/output.txt";
  const int status = std::system((command + " > " + log + " 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

std::string optionsErrorOf(const std::function<void()>& run) {
  try {
    run();
  } catch (const OptionsError& e) {
    return e.what();
  }
  return "";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

pcl::PointCloud<pcl::PointXYZ>::Ptr readXyz(const std::string& path) {
  auto cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
  for (const auto& r : io::readTextTriples(path)) cloud->push_back(pcl::PointXYZ(r[0], r[1], r[2]));
  return cloud;
}

std::string randomModelFile(unsigned seed) {
  const std::string path = temporaryDir("model_" + std::to_string(seed)) + "/random.safetensors";
  saveModel(randomModel(seed), path);
  return path;
}

std::string randomModelFile(unsigned seed, EdgeScaleRule rule) {
  const std::string path = temporaryDir("model_" + std::to_string(seed) + "_" + toString(rule)) + "/random.safetensors";
  Model model = randomModel(seed);
  setEdgeScaleRule(model, rule);
  saveModel(model, path);
  return path;
}

double unorientedAngleDeg(const float* a, const float* b) { return angleErrorDegrees(a, b); }

pcl::PointCloud<pcl::PointXYZ>::Ptr sphereCloud(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g;
  auto cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
  for (int i = 0; i < n; ++i) {
    Eigen::Vector3f v(g(rng), g(rng), g(rng));
    v.normalize();
    cloud->push_back(pcl::PointXYZ(v.x(), v.y(), v.z()));
  }
  return cloud;
}

pcl::PointCloud<pcl::PointXYZ>::Ptr boxCloud(int n, float side, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, side);
  std::uniform_int_distribution<int> face(0, 5);
  auto cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
  for (int i = 0; i < n; ++i) {
    const int f = face(rng);
    float p[3] = {u(rng), u(rng), u(rng)};
    p[f % 3] = f < 3 ? 0.f : side;
    cloud->push_back(pcl::PointXYZ(p[0], p[1], p[2]));
  }
  return cloud;
}

std::vector<std::array<double, 3>> terrainPoints(const std::array<double, 3>& offset) {
  std::vector<std::array<double, 3>> points;
  for (int i = 0; i < 60; ++i)
    for (int j = 0; j < 60; ++j) {
      const double x = 0.5 * i, y = 0.5 * j;
      const double z = 3.0 * std::exp(-0.02 * (x - 15) * (x - 15)) + (y > 20 ? 1.5 : 0.0) + 0.2 * std::sin(0.7 * x);
      points.push_back({x + offset[0], y + offset[1], z + offset[2]});
    }
  return points;
}

void writeXyzFile(const std::string& path, const std::vector<std::array<double, 3>>& points) {
  std::ofstream out(path);
  out.precision(17);
  for (const auto& p : points) out << p[0] << ' ' << p[1] << ' ' << p[2] << '\n';
}

void writeSphereXyzFile(const std::string& path, int n) {
  const auto sphere = sphereCloud(n);  // held: a temporary's points would not outlive the loop's start
  std::vector<std::array<double, 3>> points;
  for (const auto& p : *sphere) points.push_back({p.x, p.y, p.z});
  writeXyzFile(path, points);
}

double percentile(std::vector<double> values, double pct) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double pos = pct / 100.0 * (values.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(values.size() - 1, lo + 1);
  return values[lo] + (pos - lo) * (values[hi] - values[lo]);
}

}  // namespace test
}  // namespace pcl_dise
