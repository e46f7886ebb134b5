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
#include <map>

#include <pcl/features/normal_3d_omp.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "pcl_dise/core/angle_error.h"
#include "pcl_dise/feature/normal_pipeline.h"
#include "pcl_dise/train/good_points_plot.h"
#include "pcl_dise/train/jet_normals.h"
#include "pcl_dise/train/paired_comparison.h"
#include "pcl_dise/train/pcpnet_data.h"
#include "pcl_dise/train/pcpnet_protocol.h"

namespace {

using Normals = pcl::PointCloud<pcl::Normal>;
using pcl_dise::train::LoadedCloud;

// Angle errors (degrees) of `normals` at the cloud's pidx (the protocol's rule, pcpnet_protocol.h).
std::vector<double> angleErrors(const Normals& normals, const LoadedCloud& truth) {
  return pcl_dise::train::angleErrorsAt([&](std::size_t i) { return normals[i].normal; }, truth);
}

// One method under evaluation. `estimate` returns the angle errors of each stage of the method for
// one cloud: one stage for PCA and jet, iterations 0..L for DISE (the last is the result).
struct Method {
  std::string name;
  pcl_dise::train::Color color;
  std::function<std::vector<std::vector<double>>(const pcl::PointCloud<pcl::PointXYZ>::Ptr&, const LoadedCloud&)>
      estimate;
  pcl_dise::train::ProtocolScores scores;
};

Method diseMethod(const std::string& name, const std::string& model_path, int k, int iterations, unsigned threads,
                  double settle_degrees, pcl_dise::train::Color color,
                  pcl_dise::Precision precision = pcl_dise::Precision::Float) {
  pcl_dise::NormalSettings settings;
  settings.k = k;
  settings.iterations = iterations;
  settings.model = model_path;
  settings.threads = threads;
  settings.settle_degrees = settle_degrees;
  settings.precision = precision;
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
  return {"jet", {40, 160, 60}, [=](const pcl::PointCloud<pcl::PointXYZ>::Ptr&, const LoadedCloud& truth) {
            const auto normals = pcl_dise::train::jetNormals(truth.cloud.points, static_cast<unsigned>(k + 1));
            return std::vector<std::vector<double>>{
                pcl_dise::train::angleErrorsAt([&](std::size_t i) { return normals[i].data(); }, truth)};
          }};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Evaluates DISE normals by the PCPNet protocol, side by side with PCA (pcl::NormalEstimation) and\n"
      "jet fitting (CGAL) at the same k: per-category angle RMSE (degrees) over each cloud's .pidx\n"
      "points, category means, their average, DISE's RMSE after each iteration and the share of\n"
      "points under 5, 10, ..., 90 degrees (table, --report, --plot)."};
  std::string dir, prefix = "testset", model, other_model, json_out, plot_out;
  int k = 64, iterations = 4;
  unsigned threads = 0;
  double settle = 0;
  bool no_jet = false, bf16 = false;
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
  app.add_flag("--bf16", bf16, "also evaluate the model with --precision bf16 (docs/benchmarks.md#bfloat16)");
  app.add_flag("--no-jet", no_jet, "leave out jet fitting (the slowest of the methods)");
  app.add_option("--report", json_out, "also write the results as JSON to this file (as every tool's --report)");
  app.add_option("--plot", plot_out, "write the good-points curves as a PNG");
  CLI11_PARSE(app, argc, argv);

  try {
    if (k < 5 || iterations < 1) throw std::runtime_error("need --k >= 5 and --iterations >= 1");
    model = pcl_dise::modelPathOrDefault(model, k);
    std::vector<Method> methods{diseMethod("DISE", model, k, iterations, threads, 0, {200, 40, 40})};
    if (settle > 0) methods.push_back(diseMethod("adaptive", model, k, iterations, threads, settle, {230, 150, 20}));
    if (bf16)  // where the processor lacks AVX512_BF16, the library says so once and runs float
      methods.push_back(
          diseMethod("DISE bf16", model, k, iterations, threads, 0, {150, 40, 160}, pcl_dise::Precision::Bf16));
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
    std::vector<pcl_dise::train::GoodPointsPanel> panels;
    std::cout << std::fixed << std::setprecision(2) << std::left << std::setw(22) << "category" << std::right;
    auto column = [](const Method& m) { return static_cast<int>(std::max<std::size_t>(12, m.name.size() + 2)); };
    for (const auto& m : methods) std::cout << std::setw(column(m)) << m.name;
    std::cout << "   DISE per iteration 0.." << iterations << "\n";

    for (const std::string& category : pcl_dise::train::pcpnetCategories()) {
      const std::string list = dir + "/" + prefix + "_" + category + ".txt";
      if (!std::filesystem::exists(list)) {
        std::cerr << "dise_eval: warning: no " << list << ", category skipped\n";
        continue;
      }
      for (const auto& base : pcl_dise::train::readList(list)) {
        LoadedCloud truth;
        try {
          truth = pcl_dise::train::readCloud(base);
        } catch (const std::exception& e) {
          std::cerr << "dise_eval: warning: skipping " << e.what() << "\n";
          continue;
        }
        auto cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
        for (const auto& p : truth.cloud.points) cloud->push_back(pcl::PointXYZ(p[0], p[1], p[2]));
        for (auto& m : methods) {
          try {
            m.scores.add(category, std::filesystem::path(base).filename().string(), m.estimate(cloud, truth));
          } catch (const std::exception& e) {
            throw std::runtime_error(m.name + " on " + base + ": " + e.what());
          }
        }
      }
      const auto& evaluated = methods.front().scores.categories();
      if (std::find(evaluated.begin(), evaluated.end(), category) == evaluated.end()) continue;
      nlohmann::json entry = {{"clouds", methods.front().scores.cloudRmse().at(category).size()}};
      pcl_dise::train::GoodPointsPanel panel{category, {}};
      std::cout << std::left << std::setw(22) << category << std::right;
      for (const auto& m : methods) {
        std::cout << std::setw(column(m)) << m.scores.categoryRmse(category);
        entry[m.name] = {{"rmse", m.scores.categoryRmse(category)},
                         {"good_points", m.scores.goodPoints(category)},
                         {"per_cloud", m.scores.cloudRmse().at(category)}};
        panel.curves.push_back({m.name, m.color, m.scores.goodPoints(category)});
      }
      const std::vector<double> per_iteration = methods.front().scores.stageRmse(category);
      std::cout << "  ";
      for (double rmse : per_iteration) std::cout << ' ' << rmse;
      std::cout << std::endl;
      entry["DISE"]["rmse_per_iteration"] = per_iteration;
      results["categories"][category] = entry;
      panels.push_back(panel);
    }
    if (panels.empty()) throw std::runtime_error("no category list found in " + dir + " with prefix " + prefix);

    std::cout << std::left << std::setw(22) << "average" << std::right;
    for (const auto& m : methods) {
      std::cout << std::setw(column(m)) << m.scores.average();
      results["average"][m.name] = m.scores.average();
    }
    std::cout << "  ";
    for (double rmse : methods.front().scores.stageAverages()) std::cout << ' ' << rmse;
    std::cout << "\n";
    if (std::isfinite(methods.front().scores.thinStructureAverage())) {
      // The same six-category average over the thin-structure shapes alone.
      std::cout << std::left << std::setw(22) << "thin structures" << std::right;
      for (const auto& m : methods) {
        std::map<std::string, double> per_category;
        const double thin = m.scores.thinStructureAverage(&per_category);
        std::cout << std::setw(column(m)) << thin;
        results["thin_structures"][m.name] = {{"average", thin}, {"per_category", per_category}};
      }
      std::cout << "\n";
    }
    if (compared) {
      // The model against --compare-model, shape by shape: is the difference of the averages
      // larger than what varies between shapes?
      const Method& other = methods[compared];
      const auto paired = pcl_dise::train::compareByShape(methods.front().scores.cloudRmse(), other.scores.cloudRmse(),
                                                          pcl_dise::train::pcpnetCategories().front());
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
      pcl_dise::train::plotGoodPoints(panels).writePng(plot_out);
      std::cout << "dise_eval: wrote " << plot_out << "\n";
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "dise_eval: error: " << e.what() << "\n";
    return 1;
  }
}
