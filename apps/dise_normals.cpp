// dise_normals: DISE surface normals for a point cloud file.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "cloud_io.h"
#include "pcl_dise/deep_iterative_normal_estimation.h"

namespace {

struct Options {
  std::string input, output, model, backend = "native", viewpoint;
  int k = 0, iterations = 4, max_neighbors = 0;
  double radius = 0.0, settle = 0.0;
  unsigned threads = 0;
};

std::string offsetText(const std::array<double, 3>& offset) {
  std::ostringstream text;
  text.precision(15);
  text << offset[0] << ", " << offset[1] << ", " << offset[2];
  return text.str();
}

int run(const Options& o) {
  using Clock = std::chrono::steady_clock;
  const pcl_dise::io::LocalCloud local = pcl_dise::io::readCloud(o.input);
  const auto& cloud = local.cloud;
  if (cloud->empty()) throw std::runtime_error("'" + o.input + "' holds no points");
  if (o.k < 0 || o.radius < 0 || o.iterations < 0 || o.max_neighbors < 0)
    throw std::runtime_error("--k, --radius, --iterations and --max-neighbors must not be negative");
  if (o.max_neighbors > 0 && o.radius <= 0) throw std::runtime_error("--max-neighbors needs --radius");
  const int k = (o.k == 0 && o.radius == 0.0) ? 64 : o.k;

  pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> dise;
  dise.setInputCloud(cloud);
  if (k > 0)
    dise.setKSearch(k);
  else {
    dise.setRadiusSearch(o.radius);
    dise.setMaxNeighbors(o.max_neighbors);
  }
  dise.setIterations(o.iterations);
  dise.setSettleAngle(o.settle);
  dise.setNumberOfThreads(o.threads);
  dise.setBackend(pcl_dise::backendFromString(o.backend));
  if (!o.viewpoint.empty()) {
    double v[3];  // in the file's coordinates
    char tail;
    if (std::sscanf(o.viewpoint.c_str(), "%lf,%lf,%lf%c", &v[0], &v[1], &v[2], &tail) != 3)
      throw std::runtime_error("--viewpoint expects X,Y,Z, got '" + o.viewpoint + "'");
    dise.setViewPoint(static_cast<float>(v[0] - local.offset[0]), static_cast<float>(v[1] - local.offset[1]),
                      static_cast<float>(v[2] - local.offset[2]));
  }
  const std::string model = pcl_dise::modelPathOrDefault(o.model, k);
  if (o.iterations > 0) {
    if (!std::ifstream(model).good()) throw std::runtime_error(pcl_dise::missingModelHelp(model));
    dise.setModel(std::make_shared<const pcl_dise::Model>(pcl_dise::loadModel(model)));
  }

  pcl::PointCloud<pcl::Normal> normals;
  const auto start = Clock::now();
  dise.compute(normals);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (normals.size() != cloud->size()) throw std::runtime_error("normal estimation failed (see the message above)");
  std::size_t missing = 0;
  for (const auto& n : normals) missing += !std::isfinite(n.normal_x);
  pcl_dise::io::writeNormals(o.output, local, normals);

  std::cout << "dise_normals: " << cloud->size() << " points from " << o.input << "\n"
            << (local.hasOffset() ? "  coordinates relative to (" + offsetText(local.offset) +
                                        ") (float keeps their precision; written back in double)\n"
                                  : std::string())
            << "  neighbourhood: "
            << (k > 0 ? "k = " + std::to_string(k) + " (+ the point itself)"
                      : "radius " + std::to_string(o.radius) +
                            (o.max_neighbors ? ", at most " + std::to_string(o.max_neighbors) : ""))
            << "\n  iterations: " << o.iterations << ", backend: " << o.backend
            << (o.iterations > 0 ? ", model: " + model : std::string()) << "\n"
            << "  " << (cloud->size() - missing) << " normals, " << missing << " points without a normal (NaN)\n"
            << "  time: " << seconds << " s (search + estimation)\n"
            << "  wrote " << o.output << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Estimates surface normals with DISE (Deep Iterative Surface Normal Estimation).\n"
      "Input: .pcd, .ply, .las or .xyz. Output by extension: .pcd/.ply (points + normals + curvature),\n"
      ".las (LAS 1.4, normals and curvature as extra bytes) or .normals (nx ny nz per input point,\n"
      "nan where none)."};
  Options o;
  app.add_option("input", o.input, "input cloud (.pcd, .ply, .las, .xyz)")->required();
  app.add_option("output", o.output, "output file (.pcd, .ply, .las, .normals)")->required();
  app.add_option("--model", o.model,
                 "model file (.safetensors; default: the shipped model for --k, k = 64 for --radius)");
  auto* k = app.add_option("--k", o.k, "neighbours per point, the point itself not counted (default 64)");
  auto* r = app.add_option("--radius", o.radius, "radius neighbourhoods instead of k nearest");
  k->excludes(r);
  app.add_option("--max-neighbors", o.max_neighbors, "with --radius: keep at most the nearest N points");
  app.add_option("--iterations", o.iterations, "DISE iterations after the PCA (0: plain PCA)")->capture_default_str();
  app.add_option("--settle", o.settle,
                 "adaptive mode: a point stops iterating once its normal turns by less than this (degrees; 0: exact)")
      ->capture_default_str();
  app.add_option("--threads", o.threads, "threads (0: all)")->capture_default_str();
  app.add_option("--viewpoint", o.viewpoint, "flip normals towards X,Y,Z (default: the cloud's sensor origin)");
  app.add_option("--backend", o.backend, "native, torch or cuda")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "dise_normals: error: " << e.what() << "\n";
    return 1;
  }
}
