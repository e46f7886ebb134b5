#include "pcl_dise/core/setting_declarations.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "pcl_dise/core/forward.h"  // backendFromString, precisionFromString, backendNames

namespace pcl_dise {
namespace {

[[noreturn]] void notOfItsKind(const char* name, const char* kind, const std::string& text) {
  throw OptionsError(std::string(name) + " must be " + kind + ", not '" + text + "'");
}

long long integerFrom(const char* name, const std::string& text, long long smallest) {
  errno = 0;
  char* end = nullptr;
  const long long value = text.empty() ? 0 : std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || value < smallest || value > INT_MAX)
    notOfItsKind(name, smallest >= 0 ? "a whole number, 0 or more" : "a whole number", text);
  return value;
}

double numberFrom(const char* name, const std::string& text) {
  char* end = nullptr;
  const double value = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') notOfItsKind(name, "a number", text);
  return value;
}

std::string numberText(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

std::array<double, 3> pointFrom(const char* name, const std::string& text) {
  std::array<double, 3> point{};
  std::istringstream in(text);
  std::string part;
  int parts = 0;
  while (std::getline(in, part, ',')) {
    if (parts == 3) notOfItsKind(name, "3 numbers X,Y,Z", text);
    point[parts++] = numberFrom(name, part);
  }
  if (parts != 3) notOfItsKind(name, "3 numbers X,Y,Z", text);
  return point;
}

// A function's static, not a global: other files' static objects may ask for it.
const std::vector<SettingDeclaration>& declarations() {
  static const std::vector<SettingDeclaration> kDeclarations = {
      {"k",
       "k_search",
       "setKSearch",
       SettingKind::kInteger,
       {},
       "neighbours per point, the point itself not counted (not set: 64, or every point within radius)",
       true,
       false,
       kEverySurface,
       [](NormalSettings& s, const std::string& t) { s.k = t.empty() ? 0 : int(integerFrom("k", t, 0)); },
       [](const NormalSettings& s) { return s.k > 0 ? std::to_string(s.k) : std::string(); }},
      {"radius",
       "radius_search",
       "setRadiusSearch",
       SettingKind::kNumber,
       {},
       "every point within this distance instead of the k nearest (not with k)",
       true,
       false,
       kEverySurface,
       [](NormalSettings& s, const std::string& t) { s.radius = t.empty() ? 0 : numberFrom("radius", t); },
       [](const NormalSettings& s) { return s.radius > 0 ? numberText(s.radius) : std::string(); }},
      {"max_neighbors",
       "max_neighbors",
       "setMaxNeighbors",
       SettingKind::kInteger,
       {},
       "with radius: keep at most the nearest this many (0: all)",
       false,
       false,
       kEverySurface,
       [](NormalSettings& s, const std::string& t) { s.max_neighbors = int(integerFrom("max_neighbors", t, INT_MIN)); },
       [](const NormalSettings& s) { return std::to_string(s.max_neighbors); }},
      {"iterations",
       "iterations",
       "setIterations",
       SettingKind::kInteger,
       {},
       "DISE iterations after the PCA, 0 .. 255 (0: plain PCA)",
       false,
       false,
       kEverySurface,
       [](NormalSettings& s, const std::string& t) { s.iterations = int(integerFrom("iterations", t, INT_MIN)); },
       [](const NormalSettings& s) { return std::to_string(s.iterations); }},
      {"model",
       "model",
       "setModelPath",
       SettingKind::kPath,
       {},
       "model file (.safetensors; not set: the shipped model for k, the k = 64 one for radius)",
       true,
       false,
       kEverySurface,
       [](NormalSettings& s, const std::string& t) { s.model = t; },
       [](const NormalSettings& s) { return s.model; }},
      {"backend", "backend", "setBackend", SettingKind::kName, backendNames(),
       "where the iterations run: native (CPU), torch or cuda where this build has them", false, false, kEverySurface,
       [](NormalSettings& s, const std::string& t) { s.backend = backendFromString(t); },
       [](const NormalSettings& s) { return toString(s.backend); }},
      {"threads",
       "threads",
       "setNumberOfThreads",
       SettingKind::kInteger,
       {},
       "CPU threads (0: every core)",
       false,
       false,
       kEverySurface,
       [](NormalSettings& s, const std::string& t) { s.threads = unsigned(integerFrom("threads", t, 0)); },
       [](const NormalSettings& s) { return std::to_string(s.threads); }},
      {"settle",
       "settle",
       "setSettleAngle",
       SettingKind::kNumber,
       {},
       "adaptive mode: a point stops iterating once its normal turns by less than this many degrees (0: exact)",
       false,
       false,
       kEverySurface,
       [](NormalSettings& s, const std::string& t) { s.settle_degrees = numberFrom("settle", t); },
       [](const NormalSettings& s) { return numberText(s.settle_degrees); }},
      {"precision", "precision", "setPrecision", SettingKind::kName,
       toString(Precision::Float) + " or " + toString(Precision::Bf16),
       "float, or bf16: the network's products in bfloat16 where the processor has AVX512_BF16 (faster; accuracy "
       "in docs/benchmarks.md; elsewhere it runs in float and says so)",
       false, false, kEverySurface,
       [](NormalSettings& s, const std::string& t) { s.precision = precisionFromString(t); },
       [](const NormalSettings& s) { return toString(s.precision); }},
      {"orient", "orient", "setNormalSign; ConsistentNormalOrientation", SettingKind::kName, orientationNames(),
       "viewpoint: each normal faces the viewpoint; up: faces +z (aerial LiDAR); mst: one consistent side along "
       "a minimum spanning tree (closed shapes face outward); closed: mst, then each point takes the side an outside "
       "grid shows it (closed shapes, not scans); none: the plane fit's own sign. Files: up for .las and .laz "
       "without a viewpoint, else viewpoint",
       false, true, kEverySurface,
       [](NormalSettings& s, const std::string& t) { s.orientation = orientationFromName(t); },
       [](const NormalSettings& s) { return std::string(orientationName(s.orientation)); }},
      {"viewpoint",
       "viewpoint",
       "setViewPoint",
       SettingKind::kPoint,
       {},
       "X,Y,Z the normals face, in the cloud's coordinates (not set: the cloud's sensor origin; with mst or "
       "closed, the seed)",
       true,
       false,
       kEverySurface,
       [](NormalSettings& s, const std::string& t) {
         if (t.empty())
           s.viewpoint.reset();
         else
           s.viewpoint = pointFrom("viewpoint", t);
       },
       [](const NormalSettings& s) {
         return s.viewpoint ? numberText((*s.viewpoint)[0]) + "," + numberText((*s.viewpoint)[1]) + "," +
                                  numberText((*s.viewpoint)[2])
                            : std::string();
       }},
      {"orient_neighbors",
       "orient_neighbors",
       "ConsistentNormalOrientation::setKSearch",
       SettingKind::kInteger,
       {},
       "mst, closed: the neighbours of each point in the spanning tree's graph",
       false,
       false,
       kEverySurface,
       [](NormalSettings& s, const std::string& t) {
         s.orientation_neighbors = int(integerFrom("orient_neighbors", t, INT_MIN));
       },
       [](const NormalSettings& s) { return std::to_string(s.orientation_neighbors); }},
      {"orient_seed",
       "orient_seed",
       "ConsistentNormalOrientation::setSeedIndex",
       SettingKind::kInteger,
       {},
       "mst, closed: a point whose normal is taken as oriented (-1: the viewpoint's nearest, else the topmost)",
       false,
       false,
       kInMemorySurface | kFileSurface,
       [](NormalSettings& s, const std::string& t) { s.orientation_seed = integerFrom("orient_seed", t, INT_MIN); },
       [](const NormalSettings& s) { return std::to_string(s.orientation_seed); }},
  };
  return kDeclarations;
}

}  // namespace

const std::vector<SettingDeclaration>& settingDeclarations() { return declarations(); }

const SettingDeclaration& settingDeclaration(const std::string& name) {
  std::string names;
  for (const SettingDeclaration& d : declarations()) {
    if (name == d.name) return d;
    names += (names.empty() ? "" : ", ") + std::string(d.name);
  }
  throw OptionsError("unknown setting '" + name + "' (the settings: " + names + ")");
}

std::string commandLineFlag(const SettingDeclaration& declaration) {
  std::string flag = std::string("--") + declaration.name;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

std::string defaultText(const SettingDeclaration& declaration) { return declaration.show(NormalSettings{}); }

}  // namespace pcl_dise
