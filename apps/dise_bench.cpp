// dise_bench: times neighbourhood search, PCL's PCA and every DISE backend on synthetic clouds
// (src/bench/speed_benchmark.h measures; docs/benchmarks.md).
#include <iostream>

#include <CLI/CLI.hpp>

#include "pcl_dise/core/forward.h"  // backendNames
#include "speed_benchmark.h"

int main(int argc, char** argv) {
  CLI::App app{
      "Times neighbourhood search, PCL's PCA and every DISE backend on synthetic clouds (see docs/benchmarks.md)."};
  pcl_dise::bench::SpeedBenchmarkOptions o;
  app.add_option("--sizes", o.sizes, "cloud sizes")->delimiter(',')->capture_default_str();
  app.add_option("--backends", o.backends, pcl_dise::backendNames() + " (default: all this build and machine have)")
      ->delimiter(',');
  app.add_option("--model", o.model, "DISE model (default: the shipped model for --k)");
  app.add_option("--k", o.k, "neighbours (+ the point itself)")->capture_default_str();
  app.add_option("--iterations", o.iterations, "DISE iterations")->capture_default_str();
  app.add_option("--threads", o.threads, "threads (0: all cores)")->capture_default_str();
  app.add_option("--settle", o.settle, "settle angle of the adaptive-mode row (degrees; 0: no such row)")
      ->capture_default_str();
  app.add_option("--repeat", o.repeat, "runs per measurement, the best counts")->capture_default_str();
  app.add_option("--write-cloud", o.write_cloud,
                 "write the synthetic cloud of the first --sizes as binary PCD to this file and stop "
                 "(the input of scripts/bench_processes.sh)");
  app.add_option("--mpi", o.mpi_ranks,
                 "add a row for dise_normals_mpi under mpirun on this many ranks (0: none; needs the MPI build)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    return pcl_dise::bench::runSpeedBenchmark(o);
  } catch (const std::exception& e) {
    std::cerr << "dise_bench: error: " << e.what() << "\n";
    return 1;
  }
}
