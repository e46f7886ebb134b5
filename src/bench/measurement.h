#pragma once
// What the benchmark programs share: a measurement in a child process of its own (fork), so that
// its peak resident memory is its own, the best of repeated runs, and the machine's FMA peak.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <string>

namespace pcl_dise {
namespace bench {

/** What a child reports: seconds (best of the repeats) and peak resident memory in MB; error
 *  where the work threw or the child died. */
struct Measurement {
  double seconds = NAN, peak_mb = NAN;
  std::string error;
};

/** Runs `work` (returning its seconds) in a forked child and reports its seconds and the child's
 *  peak resident memory (or that of the processes it ran, where larger). */
Measurement inChild(const std::function<double()>& work);

/** The seconds one run of `run` takes. */
template <typename Run>
double secondsOf(Run&& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/** The fewest seconds of `repeat` runs of `run`. */
template <typename Run>
double bestOf(int repeat, Run run) {
  double best = INFINITY;
  for (int r = 0; r < repeat; ++r) best = std::min(best, secondsOf(run));
  return best;
}

/** Peak single-precision FMA throughput in GFLOP/s (2 flops per lane) of `threads` threads with
 *  the registers the native backend's network uses, for its instruction set ("AVX-512",
 *  "AVX2"); NaN where the instruction set has no kernel here (the portable path, a processor other
 *  than x86). */
double fmaPeakGflops(const std::string& instruction_set, unsigned threads);

}  // namespace bench
}  // namespace pcl_dise
