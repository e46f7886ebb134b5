#include "pcl_dise/train/pcpnet_protocol.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "pcl_dise/core/angle_error.h"

namespace pcl_dise {
namespace train {
namespace {

constexpr int kThresholds = 18;  // 5, 10, ..., 90 degrees

double mean(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

}  // namespace

const std::vector<std::string>& pcpnetCategories() {
  static const std::vector<std::string> categories{"no_noise",   "low_noise",          "med_noise",
                                                   "high_noise", "vardensity_striped", "vardensity_gradient"};
  return categories;
}

std::vector<double> angleErrorsAt(const std::function<const float*(std::size_t)>& normal,
                                  const train::LoadedCloud& truth) {
  std::vector<double> errors;
  errors.reserve(truth.pidx.size());
  for (const auto i : truth.pidx)
    errors.push_back(angleErrorDegrees(normal(static_cast<std::size_t>(i)), truth.cloud.normals[i].data()));
  return errors;
}

double rootMeanSquare(const std::vector<double>& errors) {
  if (errors.empty()) return std::nan("");
  double sum = 0;
  for (double e : errors) sum += e * e;
  return std::sqrt(sum / double(errors.size()));
}

std::vector<double> goodPointShares(const std::vector<double>& errors) {
  std::vector<double> shares(kThresholds);
  for (int t = 0; t < kThresholds; ++t)
    shares[t] = double(std::count_if(errors.begin(), errors.end(), [&](double e) { return e < 5.0 * (t + 1); })) /
                double(std::max<std::size_t>(errors.size(), 1));
  return shares;
}

bool isThinStructure(const std::string& cloud) { return cloud.rfind("thin_", 0) == 0; }

void ProtocolScores::add(const std::string& category, const std::string& cloud,
                         const std::vector<std::vector<double>>& stage_errors) {
  if (stage_errors.empty()) throw std::invalid_argument("ProtocolScores::add: no stage for " + cloud);
  Category& c = by_category_[category];
  if (c.stage_rmse.empty()) {
    categories_.push_back(category);
    c.stage_rmse.resize(stage_errors.size());
  } else if (c.stage_rmse.size() != stage_errors.size()) {
    throw std::invalid_argument("ProtocolScores::add: " + std::to_string(stage_errors.size()) + " stages for " + cloud +
                                ", " + std::to_string(c.stage_rmse.size()) + " before");
  }
  for (std::size_t s = 0; s < stage_errors.size(); ++s) c.stage_rmse[s].push_back(rootMeanSquare(stage_errors[s]));
  c.last_errors.insert(c.last_errors.end(), stage_errors.back().begin(), stage_errors.back().end());
  cloud_rmse_[category][cloud] = c.stage_rmse.back().back();
}

std::vector<double> ProtocolScores::stageRmse(const std::string& category) const {
  const auto found = by_category_.find(category);
  if (found == by_category_.end()) throw std::out_of_range("ProtocolScores: no cloud in category " + category);
  std::vector<double> means;
  for (const auto& stage : found->second.stage_rmse) means.push_back(mean(stage));
  return means;
}

double ProtocolScores::average() const {
  std::vector<double> per_category;
  for (const auto& category : categories_) per_category.push_back(categoryRmse(category));
  return mean(per_category);
}

std::vector<double> ProtocolScores::stageAverages() const {
  std::vector<std::vector<double>> per_stage;
  for (const auto& category : categories_) {
    const std::vector<double> stages = stageRmse(category);
    per_stage.resize(stages.size());
    for (std::size_t s = 0; s < stages.size(); ++s) per_stage[s].push_back(stages[s]);
  }
  std::vector<double> averages;
  for (const auto& stage : per_stage) averages.push_back(mean(stage));
  return averages;
}

std::vector<double> ProtocolScores::goodPoints(const std::string& category) const {
  const auto found = by_category_.find(category);
  if (found == by_category_.end()) throw std::out_of_range("ProtocolScores: no cloud in category " + category);
  return goodPointShares(found->second.last_errors);
}

double ProtocolScores::thinStructureAverage(std::map<std::string, double>* per_category) const {
  std::vector<double> category_means;
  for (const auto& category : categories_) {
    std::vector<double> thin;
    for (const auto& [cloud, rmse] : cloud_rmse_.at(category))
      if (isThinStructure(cloud)) thin.push_back(rmse);
    if (thin.empty()) continue;
    category_means.push_back(mean(thin));
    if (per_category) (*per_category)[category] = category_means.back();
  }
  return mean(category_means);
}

}  // namespace train
}  // namespace pcl_dise
