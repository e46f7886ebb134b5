#include "pcl_dise/train/paired_comparison.h"

#include <cmath>
#include <vector>

namespace pcl_dise {
namespace train {

namespace {

std::string shapeOf(const std::string& cloud, const std::map<std::string, double>& base_clouds) {
  const std::string* best = nullptr;
  for (const auto& entry : base_clouds) {
    const std::string& shape = entry.first;
    if (cloud.compare(0, shape.size(), shape) == 0 && (!best || shape.size() > best->size())) best = &shape;
  }
  return best ? *best : cloud;
}

}  // namespace

PairedComparison compareByShape(const CloudErrors& a, const CloudErrors& b, const std::string& base_category) {
  static const std::map<std::string, double> kNoBase;
  const auto base = a.find(base_category);
  const auto& base_clouds = base == a.end() ? kNoBase : base->second;
  // shape -> category -> (a - b)
  std::map<std::string, std::map<std::string, double>> differences;
  for (const auto& [category, clouds] : a) {
    const auto other = b.find(category);
    if (other == b.end()) continue;
    for (const auto& [cloud, rmse] : clouds) {
      const auto paired = other->second.find(cloud);
      if (paired != other->second.end()) differences[shapeOf(cloud, base_clouds)][category] = rmse - paired->second;
    }
  }
  std::size_t categories = 0;
  for (const auto& entry : a) categories += b.count(entry.first);

  std::vector<double> per_shape;
  PairedComparison result;
  for (const auto& [shape, by_category] : differences) {
    if (by_category.size() != categories) continue;
    double sum = 0;
    for (const auto& entry : by_category) sum += entry.second;
    per_shape.push_back(sum / categories);
    result.a_better += per_shape.back() < 0;
    result.by_shape[shape] = per_shape.back();
  }
  result.shapes = per_shape.size();
  if (per_shape.empty()) return result;
  double sum = 0;
  for (double d : per_shape) sum += d;
  result.mean_difference = sum / per_shape.size();
  if (per_shape.size() < 2) return result;
  double squares = 0;
  for (double d : per_shape) squares += (d - result.mean_difference) * (d - result.mean_difference);
  result.standard_error = std::sqrt(squares / (per_shape.size() - 1) / per_shape.size());
  return result;
}

}  // namespace train
}  // namespace pcl_dise
