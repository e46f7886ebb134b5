// bench_drop_in: pcl::DeepIterativeNormalEstimation where PCL's own usage defines the cost, timed
// side by side with pcl::NormalEstimation (the cases: src/bench/drop_in_benchmark.h). Prints one
// line per case and the targets of docs/benchmarks.md ("Drop-in costs") and writes --json.
// Usage: bench_drop_in [--bunny data/clouds/bun0.pcd] [--repeats 3] [--json out.json] [--quick]
//                      [--cases surface,indices,coincident]  (the groups of cases to run; all by default)
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include "drop_in_benchmark.h"

int main(int argc, char** argv) {
  pcl_dise::bench::DropInOptions options;
  std::string json_path;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--bunny" && a + 1 < argc) {
      options.bunny_path = argv[++a];
    } else if (arg == "--repeats" && a + 1 < argc) {
      options.repeats = std::max(1, std::atoi(argv[++a]));
    } else if (arg == "--json" && a + 1 < argc) {
      json_path = argv[++a];
    } else if (arg == "--cases" && a + 1 < argc) {
      options.cases = argv[++a];
    } else if (arg == "--quick") {
      options.large = 100000;  // a smoke run: the targets are stated at 1M points
    } else {
      std::cerr << "usage: " << argv[0]
                << " [--bunny bun0.pcd] [--repeats 3] [--json out.json] [--quick] "
                   "[--cases surface,indices,coincident]\n";
      return 2;
    }
  }
  try {
    return pcl_dise::bench::reportDropIn(pcl_dise::bench::runDropInCases(options), options.repeats, json_path);
  } catch (const std::exception& e) {
    std::cerr << "bench_drop_in: " << e.what() << "\n";
    return 1;
  }
}
