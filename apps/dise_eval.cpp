// dise_eval: the PCPNet evaluation protocol (docs/algorithm.md) for DISE models, side by side with
// PCL's PCA and CGAL's jet fitting at the same neighbourhood size: a table, JSON and a PNG plot
// of the good-points curves.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <numeric>

#include <pcl/features/normal_3d_omp.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "pcl_dise/core/angle_error.h"
#include "pcl_dise/feature/normal_pipeline.h"
#include "pcl_dise/train/good_points_plot.h"
#include "pcl_dise/train/jet_normals.h"
#include "pcl_dise/train/paired_comparison.h"
#include "pcl_dise/train/pcpnet_data.h"

namespace {

using Normals = pcl::PointCloud<pcl::Normal>;
using pcl_dise::pcpnet::LoadedCloud;

constexpr const char* kCategories[] = {"no_noise",   "low_noise",          "med_noise",
                                       "high_noise", "vardensity_striped", "vardensity_gradient"};
constexpr int kThresholds = 18;  // good-point shares under 5, 10, ..., 90 degrees

// Angle errors (degrees) of `normals` (N x 3) at the cloud's pidx: unoriented, 90 where missing or NaN.
std::vector<double> angleErrors(const std::function<const float*(std::size_t)>& normal, const LoadedCloud& truth) {
  std::vector<double> errors;
  for (auto i : truth.pidx) errors.push_back(pcl_dise::angleErrorDegrees(normal(i), truth.cloud.normals[i].data()));
  return errors;
}

std::vector<double> angleErrors(const Normals& normals, const LoadedCloud& truth) {
  return angleErrors([&](std::size_t i) { return normals[i].normal; }, truth);
}

double rmse(const std::vector<double>& e) {
  double s = 0;
  for (double x : e) s += x * x;
  return std::sqrt(s / e.size());
}

double mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }

// Clouds of thin structures (dise_make_dataset --thin) are reported as a row of their own.
bool isThinStructure(const std::string& cloud) { return cloud.rfind("thin_", 0) == 0; }

// The mean over the categories of the mean RMSE of a category's thin-structure clouds; NaN where none.
double thinStructureAverage(const pcl_dise::eval::CloudErrors& errors, nlohmann::json& per_category) {
  std::vector<double> category_means;
  for (const auto& [category, clouds] : errors) {
    std::vector<double> thin;
    for (const auto& [cloud, rmse] : clouds)
      if (isThinStructure(cloud)) thin.push_back(rmse);
    if (thin.empty()) continue;
    category_means.push_back(mean(thin));
    per_category[category] = category_means.back();
  }
  return category_means.empty() ? std::nan("") : mean(category_means);
}

std::vector<double> goodShares(const std::vector<double>& e) {
  std::vector<double> shares(kThresholds);
  for (int t = 0; t < kThresholds; ++t)
    shares[t] = std::count_if(e.begin(), e.end(), [&](double x) { return x < 5.0 * (t + 1); }) / double(e.size());
  return shares;
}

// One method under evaluation. `estimate` returns the angle errors of each stage of the method for
// one cloud: one stage for PCA and jet, iterations 0..L for DISE (the last is the result).
struct Method {
  std::string name;
  pcl_dise::eval::Color color;
  std::function<std::vector<std::vector<double>>(const pcl::PointCloud<pcl::PointXYZ>::Ptr&, const LoadedCloud&)>
      estimate;
  // Per category: RMSE of each cloud per stage (in the list's order), and the final stage's errors
  // of all clouds.
  std::vector<std::vector<double>> stage_rmse;
  std::vector<double> errors;
  std::vector<double> category_rmse;       // means over categories
  pcl_dise::eval::CloudErrors cloud_rmse;  // final stage, per category and cloud
};

Method diseMethod(const std::string& name, const std::string& model_path, int k, int iterations, unsigned threads,
                  double settle_degrees, pcl_dise::eval::Color color) {
  pcl_dise::NormalSettings settings;
  settings.k = k;
  settings.iterations = iterations;
  settings.model = model_path;
  settings.threads = threads;
  settings.settle_degrees = settle_degrees;
  auto pipeline = std::make_shared<pcl_dise::NormalPipeline>(settings);  // validated, the model loaded once
  pipeline->estimator().setStoreIterations(true);
  return {name, color, [=](const pcl::PointCloud<pcl::PointXYZ>::Ptr& cloud, const LoadedCloud& truth) {
            Normals normals;
            pipeline->compute(cloud, normals);
            std::vector<std::vector<double>> stages;
            for (int it = 0; it <= iterations; ++it) {
              pipeline->estimator().getIterationNormals(it, normals);
              stages.push_back(angleErrors(normals, truth));
            }
            return stages;
          }};
}

Method pcaMethod(int k, unsigned threads) {
  return {"PCA", {90, 90, 90}, [=](const pcl::PointCloud<pcl::PointXYZ>::Ptr& cloud, const LoadedCloud& truth) {
            pcl::NormalEstimationOMP<pcl::PointXYZ, pcl::Normal> pca(threads);
            pca.setInputCloud(cloud);
            pca.setKSearch(k + 1);  // DISE's k neighbours plus the point
            Normals normals;
            pca.compute(normals);
            return std::vector<std::vector<double>>{angleErrors(normals, truth)};
          }};
}

Method jetMethod(int k) {
  return {
      "jet", {40, 160, 60}, [=](const pcl::PointCloud<pcl::PointXYZ>::Ptr&, const LoadedCloud& truth) {
        const auto normals = pcl_dise::eval::jetNormals(truth.cloud.points, static_cast<unsigned>(k + 1));
        return std::vector<std::vector<double>>{angleErrors([&](std::size_t i) { return normals[i].data(); }, truth)};
      }};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Evaluates DISE normals by the PCPNet protocol, side by side with PCA (pcl::NormalEstimation) and\n"
      "jet fitting (CGAL) at the same k: per-category angle RMSE (degrees) over each cloud's .pidx\n"
      "points, category means, their average, DISE's RMSE after each iteration and the share of\n"
      "points under 5, 10, ..., 90 degrees (table, --json, --plot)."};
  std::string dir, prefix = "testset", model, other_model, json_out, plot_out;
  int k = 64, iterations = 4;
  unsigned threads = 0;
  double settle = 0;
  bool no_jet = false;
  app.add_option("dir", dir, "folder holding PREFIX_<category>.txt lists and their clouds")
      ->required()
      ->check(CLI::ExistingDirectory);
  app.add_option("--prefix", prefix, "list prefix")->capture_default_str();
  app.add_option("--model", model, "DISE model (default: the shipped model for --k)");
  app.add_option("--compare-model", other_model, "a second DISE model evaluated beside the first");
  app.add_option("--k", k, "neighbours (+ the point itself); PCA and jet use the same k+1 points")
      ->capture_default_str();
  app.add_option("--iterations", iterations, "DISE iterations")->capture_default_str();
  app.add_option("--threads", threads, "threads (0: all)")->capture_default_str();
  app.add_option("--settle", settle, "also evaluate the model in adaptive mode with this settle angle (degrees)");
  app.add_flag("--no-jet", no_jet, "leave out jet fitting (the slowest of the methods)");
  app.add_option("--json", json_out, "write the results as JSON");
  app.add_option("--plot", plot_out, "write the good-points curves as a PNG");
  CLI11_PARSE(app, argc, argv);

  try {
    if (k < 5 || iterations < 1) throw std::runtime_error("need --k >= 5 and --iterations >= 1");
    model = pcl_dise::modelPathOrDefault(model, k);
    std::vector<Method> methods{diseMethod("DISE", model, k, iterations, threads, 0, {200, 40, 40})};
    if (settle > 0) methods.push_back(diseMethod("adaptive", model, k, iterations, threads, settle, {230, 150, 20}));
    std::size_t compared = 0;  // index of --compare-model's method; 0: none
    if (!other_model.empty()) {
      compared = methods.size();
      methods.push_back(diseMethod(std::filesystem::path(other_model).stem().string(), other_model, k, iterations,
                                   threads, 0, {40, 90, 200}));
    }
    methods.push_back(pcaMethod(k, threads));
    if (!no_jet) methods.push_back(jetMethod(k));

    nlohmann::json results = {
        {"model", model}, {"k", k}, {"iterations", iterations}, {"categories", nlohmann::json::object()}};
    if (!other_model.empty()) results["compare_model"] = other_model;
    std::vector<pcl_dise::eval::GoodPointsPanel> panels;
    std::vector<std::vector<double>> iteration_means(iterations + 1);  // of the first model, per category
    std::vector<std::string> done;
    std::vector<std::string> clouds;  // names of the current category's evaluated clouds
    std::cout << std::fixed << std::setprecision(2) << std::left << std::setw(22) << "category" << std::right;
    auto column = [](const Method& m) { return static_cast<int>(std::max<std::size_t>(12, m.name.size() + 2)); };
    for (const auto& m : methods) std::cout << std::setw(column(m)) << m.name;
    std::cout << "   DISE per iteration 0.." << iterations << "\n";

    for (const char* category : kCategories) {
      const std::string list = dir + "/" + prefix + "_" + category + ".txt";
      if (!std::filesystem::exists(list)) {
        std::cerr << "dise_eval: warning: no " << list << ", category skipped\n";
        continue;
      }
      for (auto& m : methods) m.stage_rmse.clear(), m.errors.clear();
      clouds.clear();
      for (const auto& base : pcl_dise::pcpnet::readList(list)) {
        LoadedCloud truth;
        try {
          truth = pcl_dise::pcpnet::readCloud(base);
        } catch (const std::exception& e) {
          std::cerr << "dise_eval: warning: skipping " << e.what() << "\n";
          continue;
        }
        auto cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
        for (const auto& p : truth.cloud.points) cloud->push_back(pcl::PointXYZ(p[0], p[1], p[2]));
        for (auto& m : methods) {
          std::vector<std::vector<double>> stages;
          try {
            stages = m.estimate(cloud, truth);
          } catch (const std::exception& e) {
            throw std::runtime_error(m.name + " on " + base + ": " + e.what());
          }
          m.stage_rmse.resize(stages.size());
          for (std::size_t s = 0; s < stages.size(); ++s) m.stage_rmse[s].push_back(rmse(stages[s]));
          m.errors.insert(m.errors.end(), stages.back().begin(), stages.back().end());
        }
        clouds.push_back(std::filesystem::path(base).filename().string());
      }
      if (methods.front().stage_rmse.empty()) continue;
      done.push_back(category);
      nlohmann::json entry = {{"clouds", methods.front().stage_rmse.back().size()}};
      pcl_dise::eval::GoodPointsPanel panel{category, {}};
      std::cout << std::left << std::setw(22) << category << std::right;
      for (auto& m : methods) {
        m.category_rmse.push_back(mean(m.stage_rmse.back()));
        std::cout << std::setw(column(m)) << m.category_rmse.back();
        for (std::size_t c = 0; c < clouds.size(); ++c) m.cloud_rmse[category][clouds[c]] = m.stage_rmse.back()[c];
        entry[m.name] = {{"rmse", m.category_rmse.back()},
                         {"good_points", goodShares(m.errors)},
                         {"per_cloud", m.cloud_rmse[category]}};
        panel.curves.push_back({m.name, m.color, goodShares(m.errors)});
      }
      nlohmann::json per_iteration = nlohmann::json::array();
      std::cout << "  ";
      for (int it = 0; it <= iterations; ++it) {
        iteration_means[it].push_back(mean(methods.front().stage_rmse[it]));
        per_iteration.push_back(iteration_means[it].back());
        std::cout << ' ' << iteration_means[it].back();
      }
      std::cout << std::endl;
      entry["DISE"]["rmse_per_iteration"] = per_iteration;
      results["categories"][category] = entry;
      panels.push_back(panel);
    }
    if (done.empty()) throw std::runtime_error("no category list found in " + dir + " with prefix " + prefix);

    std::cout << std::left << std::setw(22) << "average" << std::right;
    for (const auto& m : methods) {
      std::cout << std::setw(column(m)) << mean(m.category_rmse);
      results["average"][m.name] = mean(m.category_rmse);
    }
    std::cout << "  ";
    for (int it = 0; it <= iterations; ++it) std::cout << ' ' << mean(iteration_means[it]);
    std::cout << "\n";
    nlohmann::json probe;
    if (std::isfinite(thinStructureAverage(methods.front().cloud_rmse, probe))) {
      // The same six-category average over the thin-structure shapes alone.
      std::cout << std::left << std::setw(22) << "thin structures" << std::right;
      for (const auto& m : methods) {
        nlohmann::json per_category;
        const double thin = thinStructureAverage(m.cloud_rmse, per_category);
        std::cout << std::setw(column(m)) << thin;
        results["thin_structures"][m.name] = {{"average", thin}, {"per_category", per_category}};
      }
      std::cout << "\n";
    }
    if (compared) {
      // The model against --compare-model, shape by shape: is the difference of the averages
      // larger than what varies between shapes?
      const Method& other = methods[compared];
      const auto paired = pcl_dise::eval::compareByShape(methods.front().cloud_rmse, other.cloud_rmse, kCategories[0]);
      std::cout << methods.front().name << " - " << other.name << " over " << paired.shapes
                << " shapes in every category: mean " << std::setprecision(3) << std::showpos << paired.mean_difference
                << std::noshowpos << ", standard error " << paired.standard_error << std::setprecision(2) << ", "
                << methods.front().name << " better on " << paired.a_better << "\n";
      const auto worst = std::max_element(paired.by_shape.begin(), paired.by_shape.end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
      if (worst != paired.by_shape.end())
        std::cout << "largest loss of " << methods.front().name << ": " << worst->first << " " << std::setprecision(3)
                  << std::showpos << worst->second << std::noshowpos << std::setprecision(2) << "\n";
      results["paired"] = {{"other", other.name},
                           {"shapes", paired.shapes},
                           {"mean_difference", paired.mean_difference},
                           {"standard_error", paired.standard_error},
                           {"better_on", paired.a_better},
                           {"by_shape", paired.by_shape}};
    }
    if (!json_out.empty()) std::ofstream(json_out) << results.dump(2) << "\n";
    if (!plot_out.empty()) {
      pcl_dise::eval::plotGoodPoints(panels).writePng(plot_out);
      std::cout << "dise_eval: wrote " << plot_out << "\n";
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "dise_eval: error: " << e.what() << "\n";
    return 1;
  }
}
