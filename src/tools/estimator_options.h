#pragma once
// The estimator's options, one vocabulary for every tool that estimates normals (dise_normals,
// dise_normals_mpi, dise_viewer, dise_reconstruct): the same names, meanings, defaults and help,
// into a NormalSettings (the ROS node's parameters are pcl_ros's names for the same settings).
#include <string>

#include <CLI/CLI.hpp>

#include "pcl_dise/core/normal_settings.h"

namespace pcl_dise {
namespace tools {

/** What --model, --k, --radius, --max-neighbors, --iterations, --settle, --precision, --backend and
 *  --threads say; 0 (or empty) means not set, as in NormalSettings. */
struct EstimatorOptions {
  std::string model, backend = "native", precision = "float";
  int k = 0, iterations = 4, max_neighbors = 0;
  double radius = 0.0, settle = 0.0;
  unsigned threads = 0;

  /** These options into `settings`, its other fields left as they are; throws OptionsError for a
   *  backend or precision name that cannot be read (NormalSettings::validate checks the rest). */
  void applyTo(NormalSettings& settings) const;
};

/** Adds the options of EstimatorOptions to `app` (--k and --radius exclude each other). */
void addEstimatorOptions(CLI::App& app, EstimatorOptions& o);

}  // namespace tools
}  // namespace pcl_dise
