#include "pcl_dise/core/normal_settings.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "pcl_dise/core/model.h"

namespace pcl_dise {
namespace {

struct NamedOrientation {
  Orientation orientation;
  const char* name;
};
constexpr NamedOrientation kOrientations[] = {{Orientation::kViewpoint, "viewpoint"},
                                              {Orientation::kUp, "up"},
                                              {Orientation::kTree, "mst"},
                                              {Orientation::kClosed, "closed"},
                                              {Orientation::kNone, "none"}};

template <typename T>
std::string text(T value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

const char* orientationNames() { return "viewpoint, up, mst, closed or none"; }

Orientation orientationFromName(const std::string& name) {
  for (const NamedOrientation& o : kOrientations)
    if (name == o.name) return o.orientation;
  throw OptionsError(std::string("orient must be one of ") + orientationNames() + ", not '" + name + "'");
}

const char* orientationName(Orientation orientation) {
  for (const NamedOrientation& o : kOrientations)
    if (orientation == o.orientation) return o.name;
  return "?";
}

bool orientsWholeCloud(Orientation orientation) {
  return orientation == Orientation::kTree || orientation == Orientation::kClosed;
}

NormalSign normalSignOf(Orientation orientation) {
  switch (orientation) {
    case Orientation::kViewpoint: return NormalSign::kTowardsViewpoint;
    case Orientation::kUp: return NormalSign::kUp;
    default: return NormalSign::kPlaneFit;
  }
}

std::string NormalSettings::modelPath() const { return modelPathOrDefault(model, neighbors()); }

void NormalSettings::validate(bool check_model_file) const {
  if (k < 0) throw OptionsError("k must not be negative (0: the 64 nearest), not " + text(k));
  if (!(radius >= 0) || !std::isfinite(radius))
    throw OptionsError("radius must be a positive number (0: k nearest instead), not " + text(radius));
  if (k > 0 && radius > 0) throw OptionsError("set k or radius, not both");
  if (max_neighbors < 0) throw OptionsError("max_neighbors must not be negative, not " + text(max_neighbors));
  if (max_neighbors > 0 && radius == 0) throw OptionsError("max_neighbors needs radius");
  if (iterations < 0 || iterations > 255) throw OptionsError("iterations must be in 0..255, not " + text(iterations));
  if (!(settle_degrees >= 0) || !std::isfinite(settle_degrees))
    throw OptionsError("settle must be at least 0 degrees, not " + text(settle_degrees));
  checkBackendSupports(backend, settle_degrees, precision);
  if (orientation_seed < -1)
    throw OptionsError("orient_seed must be a point index (0 or more), or -1 for none, not " + text(orientation_seed));
  if (orientation_neighbors < 1)
    throw OptionsError("orient_neighbors must be at least 1, not " + text(orientation_neighbors));
  if (viewpoint &&
      !(std::isfinite((*viewpoint)[0]) && std::isfinite((*viewpoint)[1]) && std::isfinite((*viewpoint)[2])))
    throw OptionsError("viewpoint must be 3 finite numbers");
  if (check_model_file && iterations > 0 && !std::ifstream(modelPath()).good())
    throw FileError(missingModelHelp(modelPath()));
}

}  // namespace pcl_dise
