// dise_eval: the PCPNet evaluation protocol (ALGORITHM.md) for a DISE model, side by side with
// PCL's PCA at the same neighbourhood size.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <numeric>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <pcl/features/normal_3d_omp.h>

#include "pcl_dise/deep_iterative_normal_estimation.h"
#include "training/pcpnet_data.h"

namespace {

constexpr const char* kCategories[] = {"no_noise", "low_noise", "med_noise", "high_noise", "vardensity_striped",
                                       "vardensity_gradient"};
constexpr int kThresholds = 18;  // good-point shares under 5, 10, ..., 90 degrees

// Angle errors (degrees) of `normals` at `pidx`: unoriented, 90 where missing or NaN.
std::vector<double> angleErrors(const pcl::PointCloud<pcl::Normal>& normals, const pcl_dise::pcpnet::LoadedCloud& truth) {
  std::vector<double> errors;
  for (auto i : truth.pidx) {
    const auto& n = normals[i].getNormalVector3fMap();
    const auto& t = truth.cloud.normals[i];
    const double dot = (n.x() * t[0] + n.y() * t[1] + n.z() * t[2]) / (n.norm() * std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]));
    errors.push_back(std::isfinite(dot) ? std::acos(std::min(1.0, std::fabs(dot))) * 180.0 / M_PI : 90.0);
  }
  return errors;
}

double rmse(const std::vector<double>& e) {
  double s = 0;
  for (double x : e) s += x * x;
  return std::sqrt(s / e.size());
}

std::vector<double> goodShares(const std::vector<double>& e) {
  std::vector<double> shares(kThresholds);
  for (int t = 0; t < kThresholds; ++t)
    shares[t] = std::count_if(e.begin(), e.end(), [&](double x) { return x < 5.0 * (t + 1); }) / double(e.size());
  return shares;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Evaluates DISE and PCA normals by the PCPNet protocol: per-category angle RMSE (degrees) over\n"
               "each cloud's .pidx points, category means, their average, RMSE after each iteration and\n"
               "the share of points under 5, 10, ..., 90 degrees."};
  std::string dir, prefix = "testset", model = pcl_dise::defaultModelPath(), json_out;
  int k = 64, iterations = 4;
  unsigned threads = 0;
  app.add_option("dir", dir, "folder holding PREFIX_<category>.txt lists and their clouds")->required()->check(CLI::ExistingDirectory);
  app.add_option("--prefix", prefix, "list prefix")->capture_default_str();
  app.add_option("--model", model, "DISE model")->capture_default_str();
  app.add_option("--k", k, "neighbours (+ the point itself); PCA uses the same k+1 points")->capture_default_str();
  app.add_option("--iterations", iterations, "DISE iterations")->capture_default_str();
  app.add_option("--threads", threads, "threads (0: all)")->capture_default_str();
  app.add_option("--json", json_out, "write the results as JSON");
  CLI11_PARSE(app, argc, argv);

  try {
    if (!std::ifstream(model).good()) throw std::runtime_error(pcl_dise::missingModelHelp(model));
    const auto weights = std::make_shared<const pcl_dise::Model>(pcl_dise::loadModel(model));
    nlohmann::json results = {{"model", model}, {"k", k}, {"iterations", iterations}, {"categories", nlohmann::json::object()}};
    std::vector<double> dise_means, pca_means;
    std::vector<std::vector<double>> iteration_means(iterations + 1);
    std::cout << std::fixed << std::setprecision(2);
    std::cout << std::left << std::setw(22) << "category" << std::right << std::setw(8) << "DISE" << std::setw(8) << "PCA"
              << "   per iteration 0.." << iterations << "\n";
    for (const char* category : kCategories) {
      const std::string list = dir + "/" + prefix + "_" + category + ".txt";
      if (!std::filesystem::exists(list)) {
        std::cerr << "dise_eval: warning: no " << list << ", category skipped\n";
        continue;
      }
      std::vector<double> dise_rmse, pca_rmse, dise_errors_all, pca_errors_all;
      std::vector<std::vector<double>> per_iteration(iterations + 1);
      for (const auto& base : pcl_dise::pcpnet::readList(list)) {
        pcl_dise::pcpnet::LoadedCloud truth;
        try {
          truth = pcl_dise::pcpnet::readCloud(base);
        } catch (const std::exception& e) {
          std::cerr << "dise_eval: warning: skipping " << e.what() << "\n";
          continue;
        }
        auto cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
        for (const auto& p : truth.cloud.points) cloud->push_back(pcl::PointXYZ(p[0], p[1], p[2]));

        pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> dise;
        dise.setInputCloud(cloud);
        dise.setKSearch(k);
        dise.setIterations(iterations);
        dise.setModel(weights);
        dise.setNumberOfThreads(threads);
        dise.setStoreIterations(true);
        pcl::PointCloud<pcl::Normal> normals;
        dise.compute(normals);
        if (normals.size() != cloud->size()) throw std::runtime_error("DISE failed on " + base);
        const auto dise_errors = angleErrors(normals, truth);
        dise_rmse.push_back(rmse(dise_errors));
        dise_errors_all.insert(dise_errors_all.end(), dise_errors.begin(), dise_errors.end());
        for (int it = 0; it <= iterations; ++it) {
          pcl::PointCloud<pcl::Normal> stored;
          dise.getIterationNormals(it, stored);
          per_iteration[it].push_back(rmse(angleErrors(stored, truth)));
        }

        pcl::NormalEstimationOMP<pcl::PointXYZ, pcl::Normal> pca(threads);
        pca.setInputCloud(cloud);
        pca.setKSearch(k + 1);
        pcl::PointCloud<pcl::Normal> pca_normals;
        pca.compute(pca_normals);
        const auto pca_errors = angleErrors(pca_normals, truth);
        pca_rmse.push_back(rmse(pca_errors));
        pca_errors_all.insert(pca_errors_all.end(), pca_errors.begin(), pca_errors.end());
      }
      if (dise_rmse.empty()) continue;
      auto mean = [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); };
      dise_means.push_back(mean(dise_rmse));
      pca_means.push_back(mean(pca_rmse));
      std::cout << std::left << std::setw(22) << category << std::right << std::setw(8) << dise_means.back() << std::setw(8)
                << pca_means.back() << "  ";
      nlohmann::json per_it = nlohmann::json::array();
      for (int it = 0; it <= iterations; ++it) {
        iteration_means[it].push_back(mean(per_iteration[it]));
        per_it.push_back(iteration_means[it].back());
        std::cout << ' ' << iteration_means[it].back();
      }
      std::cout << "\n";
      results["categories"][category] = {{"clouds", dise_rmse.size()},   {"dise_rmse", dise_means.back()},
                                         {"pca_rmse", pca_means.back()}, {"dise_rmse_per_iteration", per_it},
                                         {"dise_good_points", goodShares(dise_errors_all)},
                                         {"pca_good_points", goodShares(pca_errors_all)}};
    }
    if (dise_means.empty()) throw std::runtime_error("no category list found in " + dir + " with prefix " + prefix);
    auto mean = [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); };
    std::cout << std::left << std::setw(22) << "average" << std::right << std::setw(8) << mean(dise_means) << std::setw(8)
              << mean(pca_means) << "  ";
    for (int it = 0; it <= iterations; ++it) std::cout << ' ' << mean(iteration_means[it]);
    std::cout << "\n";
    results["average"] = {{"dise_rmse", mean(dise_means)}, {"pca_rmse", mean(pca_means)}};
    if (!json_out.empty()) std::ofstream(json_out) << results.dump(2) << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "dise_eval: error: " << e.what() << "\n";
    return 1;
  }
}
