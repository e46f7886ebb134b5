#pragma once
// dise_bench's measurements (apps/dise_bench.cpp is its command line): neighbourhood search, PCL's
// PCA (NormalEstimationOMP, same k and threads) and each DISE backend end to end on synthetic
// clouds, with the ratio to PCA and each run's peak memory (every measurement in a child process of
// its own, measurement.h); the machine's FMA peak and the share of it the network part reaches.
#include <string>
#include <vector>

namespace pcl_dise {
namespace bench {

/** What dise_bench measures. */
struct SpeedBenchmarkOptions {
  std::vector<long> sizes{10000, 100000, 1000000};  ///< cloud sizes
  std::vector<std::string> backends;                ///< empty: every backend this build and machine have
  std::string model;                                ///< empty: the shipped model for k
  int k = 64, iterations = 4, repeat = 2;
  double settle = 1.0;  ///< the adaptive mode's settle angle (degrees; 0: no such row)
  unsigned threads = 0;
  std::string write_cloud;  ///< write the synthetic cloud of the first size there and stop
  int mpi_ranks = 0;        ///< > 0: a row for dise_normals_mpi on that many ranks (mpirun)
};

/** \brief Runs the measurements and prints their table (docs/benchmarks.md) on stdout.
 *  \param[in] options what to measure
 *  \return the exit code; throws std::runtime_error for options that cannot run */
int runSpeedBenchmark(const SpeedBenchmarkOptions& options);

}  // namespace bench
}  // namespace pcl_dise
