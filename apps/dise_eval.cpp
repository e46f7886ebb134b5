// dise_eval: the PCPNet evaluation protocol (docs/algorithm.md) for DISE models, side by side with
// PCL's PCA and CGAL's jet fitting at the same neighbourhood size: a table, JSON and a PNG plot
// of the good-points curves (pcpnet_evaluation.h runs it).
#include <filesystem>
#include <fstream>
#include <iostream>

#include <pcl/features/normal_3d_omp.h>
#include <CLI/CLI.hpp>

#include "pcl_dise/feature/normal_pipeline.h"
#include "pcl_dise/train/jet_normals.h"
#include "pcl_dise/train/pcpnet_evaluation.h"

namespace {

using Normals = pcl::PointCloud<pcl::Normal>;
using pcl_dise::train::EvaluatedMethod;
using pcl_dise::train::LoadedCloud;

pcl::PointCloud<pcl::PointXYZ>::Ptr pclCloud(const LoadedCloud& truth) {
  auto cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
  for (const auto& p : truth.cloud.points) cloud->push_back(pcl::PointXYZ(p[0], p[1], p[2]));
  return cloud;
}

// Angle errors (degrees) of `normals` at the cloud's pidx (the protocol's rule, pcpnet_protocol.h).
std::vector<double> angleErrors(const Normals& normals, const LoadedCloud& truth) {
  return pcl_dise::train::angleErrorsAt([&](std::size_t i) { return normals[i].normal; }, truth);
}

// DISE with `settings`: one stage per iteration 0..L (the last is the result).
EvaluatedMethod diseMethod(const std::string& name, const pcl_dise::NormalSettings& settings,
                           pcl_dise::train::Color color) {
  const int iterations = settings.iterations;
  auto pipeline = std::make_shared<pcl_dise::NormalPipeline>(settings);  // validated, the model loaded once
  pipeline->estimator().setStoreIterations(true);
  return {name, color, [=](const LoadedCloud& truth) {
            Normals normals;
            pipeline->compute(pclCloud(truth), normals);
            std::vector<std::vector<double>> stages;
            for (int it = 0; it <= iterations; ++it) {
              pipeline->estimator().getIterationNormals(it, normals);
              stages.push_back(angleErrors(normals, truth));
            }
            return stages;
          }};
}

EvaluatedMethod pcaMethod(int k, unsigned threads) {
  return {"PCA", {90, 90, 90}, [=](const LoadedCloud& truth) {
            pcl::NormalEstimationOMP<pcl::PointXYZ, pcl::Normal> pca(threads);
            pca.setInputCloud(pclCloud(truth));
            pca.setKSearch(k + 1);  // DISE's k neighbours plus the point
            Normals normals;
            pca.compute(normals);
            return std::vector<std::vector<double>>{angleErrors(normals, truth)};
          }};
}

EvaluatedMethod jetMethod(int k) {
  return {"jet", {40, 160, 60}, [=](const LoadedCloud& truth) {
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
    pcl_dise::train::PcpnetEvaluationSetup setup;
    setup.dir = dir;
    setup.prefix = prefix;
    setup.model = pcl_dise::modelPathOrDefault(model, k);
    setup.compare_model = other_model;
    setup.k = k;
    setup.iterations = iterations;
    pcl_dise::NormalSettings settings;
    settings.k = k;
    settings.iterations = iterations;
    settings.model = setup.model;
    settings.threads = threads;
    std::vector<EvaluatedMethod> methods{diseMethod("DISE", settings, {200, 40, 40})};
    if (settle > 0) {
      pcl_dise::NormalSettings adaptive = settings;
      adaptive.settle_degrees = settle;
      methods.push_back(diseMethod("adaptive", adaptive, {230, 150, 20}));
    }
    if (bf16) {  // where the processor lacks AVX512_BF16, the library says so once and runs float
      pcl_dise::NormalSettings in_bf16 = settings;
      in_bf16.precision = pcl_dise::Precision::Bf16;
      methods.push_back(diseMethod("DISE bf16", in_bf16, {150, 40, 160}));
    }
    if (!other_model.empty()) {
      setup.compared = methods.size();
      pcl_dise::NormalSettings other = settings;
      other.model = other_model;
      methods.push_back(diseMethod(std::filesystem::path(other_model).stem().string(), other, {40, 90, 200}));
    }
    methods.push_back(pcaMethod(k, threads));
    if (!no_jet) methods.push_back(jetMethod(k));

    const pcl_dise::train::PcpnetEvaluation evaluation = pcl_dise::train::evaluatePcpnet(setup, methods, std::cout);
    if (!json_out.empty()) std::ofstream(json_out) << evaluation.report;
    if (!plot_out.empty()) {
      pcl_dise::train::plotGoodPoints(evaluation.panels).writePng(plot_out);
      std::cout << "dise_eval: wrote " << plot_out << "\n";
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "dise_eval: error: " << e.what() << "\n";
    return 1;
  }
}
