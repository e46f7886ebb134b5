#include "pcl_dise/train/pcpnet_evaluation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "pcl_dise/train/paired_comparison.h"

namespace pcl_dise {
namespace train {

namespace {

int columnWidth(const EvaluatedMethod& m) { return static_cast<int>(std::max<std::size_t>(12, m.name.size() + 2)); }

// Every readable cloud of one category's list through every method; false where there is no list.
bool evaluateCategory(const PcpnetEvaluationSetup& setup, const std::string& category,
                      std::vector<EvaluatedMethod>& methods) {
  const std::string list = setup.dir + "/" + setup.prefix + "_" + category + ".txt";
  if (!std::filesystem::exists(list)) {
    std::cerr << "dise_eval: warning: no " << list << ", category skipped\n";
    return false;
  }
  for (const auto& base : readList(list)) {
    LoadedCloud truth;
    try {
      truth = readCloud(base);
    } catch (const std::exception& e) {
      std::cerr << "dise_eval: warning: skipping " << e.what() << "\n";
      continue;
    }
    for (auto& m : methods) {
      try {
        m.scores.add(category, std::filesystem::path(base).filename().string(), m.estimate(truth));
      } catch (const std::exception& e) {
        throw std::runtime_error(m.name + " on " + base + ": " + e.what());
      }
    }
  }
  return true;
}

// The category's row of the table and its entry of the report.
void reportCategory(const std::string& category, const std::vector<EvaluatedMethod>& methods, std::ostream& table,
                    nlohmann::json& results, std::vector<GoodPointsPanel>& panels) {
  const ProtocolScores& first = methods.front().scores;
  nlohmann::json entry = {{"clouds", first.cloudRmse().at(category).size()}};
  GoodPointsPanel panel{category, {}};
  table << std::left << std::setw(22) << category << std::right;
  for (const auto& m : methods) {
    table << std::setw(columnWidth(m)) << m.scores.categoryRmse(category);
    entry[m.name] = {{"rmse", m.scores.categoryRmse(category)},
                     {"good_points", m.scores.goodPoints(category)},
                     {"per_cloud", m.scores.cloudRmse().at(category)}};
    panel.curves.push_back({m.name, m.color, m.scores.goodPoints(category)});
  }
  const std::vector<double> per_iteration = first.stageRmse(category);
  table << "  ";
  for (double rmse : per_iteration) table << ' ' << rmse;
  table << std::endl;
  entry[methods.front().name]["rmse_per_iteration"] = per_iteration;
  results["categories"][category] = entry;
  panels.push_back(panel);
}

// The average row, and the same six-category average over the thin-structure shapes alone.
void reportAverages(const std::vector<EvaluatedMethod>& methods, std::ostream& table, nlohmann::json& results) {
  table << std::left << std::setw(22) << "average" << std::right;
  for (const auto& m : methods) {
    table << std::setw(columnWidth(m)) << m.scores.average();
    results["average"][m.name] = m.scores.average();
  }
  table << "  ";
  for (double rmse : methods.front().scores.stageAverages()) table << ' ' << rmse;
  table << "\n";
  if (!std::isfinite(methods.front().scores.thinStructureAverage())) return;
  table << std::left << std::setw(22) << "thin structures" << std::right;
  for (const auto& m : methods) {
    std::map<std::string, double> per_category;
    const double thin = m.scores.thinStructureAverage(&per_category);
    table << std::setw(columnWidth(m)) << thin;
    results["thin_structures"][m.name] = {{"average", thin}, {"per_category", per_category}};
  }
  table << "\n";
}

// The first method against another, shape by shape: is the difference of the averages larger than
// what varies between shapes?
void reportPaired(const EvaluatedMethod& first, const EvaluatedMethod& other, std::ostream& table,
                  nlohmann::json& results) {
  const auto paired = compareByShape(first.scores.cloudRmse(), other.scores.cloudRmse(), pcpnetCategories().front());
  table << first.name << " - " << other.name << " over " << paired.shapes << " shapes in every category: mean "
        << std::setprecision(3) << std::showpos << paired.mean_difference << std::noshowpos << ", standard error "
        << paired.standard_error << std::setprecision(2) << ", " << first.name << " better on " << paired.a_better
        << "\n";
  const auto worst = std::max_element(paired.by_shape.begin(), paired.by_shape.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
  if (worst != paired.by_shape.end())
    table << "largest loss of " << first.name << ": " << worst->first << " " << std::setprecision(3) << std::showpos
          << worst->second << std::noshowpos << std::setprecision(2) << "\n";
  results["paired"] = {{"other", other.name},
                       {"shapes", paired.shapes},
                       {"mean_difference", paired.mean_difference},
                       {"standard_error", paired.standard_error},
                       {"better_on", paired.a_better},
                       {"by_shape", paired.by_shape}};
}

}  // namespace

PcpnetEvaluation evaluatePcpnet(const PcpnetEvaluationSetup& setup, std::vector<EvaluatedMethod>& methods,
                                std::ostream& table) {
  if (methods.empty()) throw std::invalid_argument("PCPNet evaluation: no method");
  nlohmann::json results = {{"model", setup.model},
                            {"k", setup.k},
                            {"iterations", setup.iterations},
                            {"categories", nlohmann::json::object()}};
  if (!setup.compare_model.empty()) results["compare_model"] = setup.compare_model;
  table << std::fixed << std::setprecision(2) << std::left << std::setw(22) << "category" << std::right;
  for (const auto& m : methods) table << std::setw(columnWidth(m)) << m.name;
  table << "   " << methods.front().name << " per iteration 0.." << setup.iterations << "\n";

  PcpnetEvaluation evaluation;
  for (const std::string& category : pcpnetCategories()) {
    if (!evaluateCategory(setup, category, methods)) continue;
    const auto& evaluated = methods.front().scores.categories();
    if (std::find(evaluated.begin(), evaluated.end(), category) == evaluated.end()) continue;
    reportCategory(category, methods, table, results, evaluation.panels);
  }
  if (evaluation.panels.empty())
    throw std::runtime_error("no category list found in " + setup.dir + " with prefix " + setup.prefix);
  reportAverages(methods, table, results);
  if (setup.compared > 0 && setup.compared < methods.size())
    reportPaired(methods.front(), methods[setup.compared], table, results);
  evaluation.report = results.dump(2) + "\n";
  return evaluation;
}

}  // namespace train
}  // namespace pcl_dise
