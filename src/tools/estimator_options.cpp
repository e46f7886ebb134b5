#include "estimator_options.h"

#include "pcl_dise/core/forward.h"  // backendFromString, precisionFromString, backendNames

namespace pcl_dise {
namespace tools {

void EstimatorOptions::applyTo(NormalSettings& s) const {
  s.k = k;
  s.radius = radius;
  s.max_neighbors = max_neighbors;
  s.iterations = iterations;
  s.model = model;
  s.backend = backendFromString(backend);
  s.threads = threads;
  s.settle_degrees = settle;
  s.precision = precisionFromString(precision);
}

void addEstimatorOptions(CLI::App& app, EstimatorOptions& o) {
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
  app.add_option("--precision", o.precision,
                 "float, or bf16: the network's products in bfloat16 where the processor has AVX512_BF16 (faster; "
                 "accuracy in docs/benchmarks.md; native backend; elsewhere it runs in float and says so)")
      ->capture_default_str();
  app.add_option("--backend", o.backend, backendNames())->capture_default_str();
  app.add_option("--threads", o.threads, "threads (0: all)")->capture_default_str();
}

}  // namespace tools
}  // namespace pcl_dise
