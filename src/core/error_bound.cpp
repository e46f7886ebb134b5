#include "pcl_dise/core/error_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace pcl_dise {
namespace {

constexpr const char* kErrorBoundKey = "error_bound";
constexpr double kSmallestStep = 1e-6;  // degrees between knots at the least

// The q-quantile of `values` (sorted in place), linear between order statistics.
double quantile(std::vector<double>& values, double q) {
  std::sort(values.begin(), values.end());
  const double at = q * double(values.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (at - double(below)) * (values[above] - values[below]);
}

}  // namespace

float ErrorCalibration::bound(float c) const {
  if (empty() || std::isnan(c)) return std::numeric_limits<float>::quiet_NaN();
  if (c <= curvature.front()) return static_cast<float>(degrees.front());
  if (c >= curvature.back()) return static_cast<float>(degrees.back());
  const std::size_t upper =
      static_cast<std::size_t>(std::upper_bound(curvature.begin(), curvature.end(), double(c)) - curvature.begin());
  const double lo = std::log(curvature[upper - 1]), hi = std::log(curvature[upper]);
  const double t = (std::log(double(c)) - lo) / (hi - lo);
  return static_cast<float>(degrees[upper - 1] + t * (degrees[upper] - degrees[upper - 1]));
}

std::string ErrorCalibration::toJson() const {
  nlohmann::json j;
  j["level"] = level;
  j["curvature"] = curvature;
  j["degrees"] = degrees;
  return j.dump();
}

ErrorCalibration ErrorCalibration::fromJson(const std::string& text) {
  ErrorCalibration c;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    c.level = j.at("level").get<double>();
    c.curvature = j.at("curvature").get<std::vector<double>>();
    c.degrees = j.at("degrees").get<std::vector<double>>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("the error bound's calibration cannot be read: ") + e.what());
  }
  const auto fail = [](const std::string& what) {
    throw std::runtime_error("the error bound's calibration is not valid: " + what);
  };
  if (!(c.level > 0 && c.level < 1)) fail("its level must lie in (0, 1)");
  if (c.curvature.size() != c.degrees.size() || c.curvature.size() < 2) fail("it needs 2 or more knots, each a bound");
  for (std::size_t i = 0; i < c.curvature.size(); ++i) {
    if (!(c.curvature[i] > 0) || !std::isfinite(c.curvature[i]) || !std::isfinite(c.degrees[i]) || c.degrees[i] < 0)
      fail("knot " + std::to_string(i) + " is not a positive curvature with a bound of 0 or more");
    if (i > 0 && !(c.curvature[i] > c.curvature[i - 1])) fail("its curvatures must increase");
    if (i > 0 && c.degrees[i] < c.degrees[i - 1]) fail("its bounds must not decrease");
  }
  return c;
}

ErrorCalibration fitErrorCalibration(const std::vector<double>& curvature, const std::vector<double>& errors_degrees,
                                     double level, std::size_t bins) {
  if (curvature.size() != errors_degrees.size())
    throw std::invalid_argument("fitErrorCalibration: as many errors as curvatures are needed");
  if (!(level > 0 && level < 1)) throw std::invalid_argument("fitErrorCalibration: the level must lie in (0, 1)");
  std::vector<std::pair<double, double>> pairs;  // (curvature, error), the usable ones
  for (std::size_t i = 0; i < curvature.size(); ++i)
    if (std::isfinite(curvature[i]) && std::isfinite(errors_degrees[i]))
      pairs.emplace_back(std::max(curvature[i], 1e-12), errors_degrees[i]);  // a plane's exact 0: the smallest knot
  if (pairs.size() < 2) throw std::invalid_argument("fitErrorCalibration: fewer than 2 usable normals");
  std::sort(pairs.begin(), pairs.end());
  bins = std::max<std::size_t>(2, std::min(bins, pairs.size()));
  ErrorCalibration c;
  c.level = level;
  for (std::size_t b = 0; b < bins; ++b) {
    const std::size_t begin = b * pairs.size() / bins, end = (b + 1) * pairs.size() / bins;
    std::vector<double> errors;
    for (std::size_t i = begin; i < end; ++i) errors.push_back(pairs[i].second);
    const double at = pairs[begin + (end - begin) / 2].first;
    double bound = quantile(errors, level);
    // More variation never bounds tighter, and always a little wider: the bound then ranks
    // normals exactly as the curvature does (no ties where the quantiles level off).
    if (!c.degrees.empty()) bound = std::max(bound, c.degrees.back() + kSmallestStep);
    if (!c.curvature.empty() && !(at > c.curvature.back())) {  // a run of equal curvatures: one knot
      c.degrees.back() = bound;
      continue;
    }
    c.curvature.push_back(at);
    c.degrees.push_back(bound);
  }
  if (c.curvature.size() < 2) {  // every curvature equal: a flat bound over a tiny span
    c.curvature.push_back(c.curvature.back() * 2);
    c.degrees.push_back(c.degrees.back() + kSmallestStep);
  }
  return c;
}

ErrorCalibration errorCalibrationOf(const Model& model) {
  const auto entry = model.metadata.find(kErrorBoundKey);
  return entry == model.metadata.end() ? ErrorCalibration{} : ErrorCalibration::fromJson(entry->second);
}

void setErrorCalibration(Model& model, const ErrorCalibration& calibration) {
  model.metadata[kErrorBoundKey] = calibration.toJson();
}

float normalErrorBound(const ErrorCalibration& calibration, const float* normal, float curvature) {
  if (!(std::isfinite(normal[0]) && std::isfinite(normal[1]) && std::isfinite(normal[2])))
    return std::numeric_limits<float>::quiet_NaN();
  return calibration.bound(curvature);
}

std::string errorBoundUnavailable(int iterations, const Model* model, const std::string& model_path) {
  if (iterations == 0) return "the error bound is DISE's: it needs iterations above 0";
  if (model && errorCalibrationOf(*model).empty())
    return "the model '" + model_path +
           "' carries no error calibration, which the error bound needs (scripts/calibrate_error_bound.py adds one)";
  return "";
}

std::vector<float> boundWeights(const std::vector<float>& degrees) {
  std::vector<float> finite;
  for (float d : degrees)
    if (std::isfinite(d)) finite.push_back(d);
  std::vector<float> weights(degrees.size(), 0.f);
  if (finite.empty()) return weights;
  std::nth_element(finite.begin(), finite.begin() + finite.size() / 2, finite.end());
  const double median = finite[finite.size() / 2];
  for (std::size_t i = 0; i < degrees.size(); ++i) {
    if (!std::isfinite(degrees[i])) continue;
    const double relative = degrees[i] > median ? median / degrees[i] : 1.0;
    weights[i] = static_cast<float>(relative * relative);
  }
  return weights;
}

}  // namespace pcl_dise
