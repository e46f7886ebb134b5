// A LAS file larger than the memory you give it, through pcl_dise::jobs: georeferenced terrain
// written as LAS, its normals estimated tile by tile within a memory budget (the same bytes as in
// memory), the output LAS keeping the input's records, scale, offset and VLRs.
// Usage: las_out_of_core FOLDER [POINTS = 200000] [BUDGET_MB = 120]
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include <pcl_dise/core/model.h>
#include <pcl_dise/io/las_format.h>
#include <pcl_dise/jobs/out_of_core_normals.h>

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: %s FOLDER [POINTS] [BUDGET_MB]\n", argv[0]), 2;
  const std::string input = std::string(argv[1]) + "/terrain.las", output = std::string(argv[1]) + "/normals.las";
  const std::size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 200000;
  const double budget = argc > 3 ? std::atof(argv[3]) : 120;

  // Rolling terrain at UTM coordinates, 0.25 m apart on average.
  std::vector<std::array<double, 3>> xyz(n);
  std::mt19937 rng(7);
  const double side = 0.25 * std::sqrt(double(n));
  std::uniform_real_distribution<double> u(0, side);
  for (auto& p : xyz) {
    const double x = u(rng), y = u(rng);
    p = {512000 + x, 5412000 + y, 300 + 2 * std::sin(x / 7) * std::cos(y / 11)};
  }
  std::array<double, 3> scale, offset;
  pcl_dise::io::chooseQuantization(xyz, scale, offset);
  pcl_dise::io::writeLas(input, xyz, std::vector<pcl_dise::io::NormalWithCurvature>(n), scale, offset);

  pcl_dise::jobs::OutOfCoreReport report;
  try {  // every failure (unreadable file, a budget too small for one tile) is a std::runtime_error
    const pcl_dise::Model model = pcl_dise::loadModel(pcl_dise::defaultModelPath(64));
    pcl_dise::jobs::OutOfCoreOptions options;
    options.memory_budget_mb = budget;
    pcl_dise::jobs::Collective one_process;
    report = pcl_dise::jobs::estimateNormalsOutOfCore(model, input, output, options, one_process);
  } catch (const std::exception& e) {
    return std::fprintf(stderr, "las_out_of_core: %s\n", e.what()), 1;
  }

  const pcl_dise::io::LasCloud out = pcl_dise::io::readLas(output);
  std::printf(
      "las_out_of_core: %llu points in tiles of %zu (budget %.0f MB), %llu without a normal, offset %.0f %.0f "
      "%.0f; %s holds %zu points\n",
      static_cast<unsigned long long>(report.points), report.tile_points, budget,
      static_cast<unsigned long long>(report.missing), report.offset[0], report.offset[1], report.offset[2],
      output.c_str(), out.xyz.size());
  return report.points == n && report.missing == 0 && out.xyz.size() == n ? 0 : 1;
}
