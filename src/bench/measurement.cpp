#include "measurement.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>  // the FMA peak's kernels; other processors report no peak
#define PCL_DISE_BENCH_X86 1
#endif

namespace pcl_dise {
namespace bench {
namespace {

// Peak single-precision FMA throughput in GFLOP/s (2 flops per lane), all threads busy, with the
// registers the native backend's network uses: 12 independent chains of FMAs on 8 (AVX2) or 16
// (AVX-512) lanes.
constexpr int kChains = 12;

#ifdef PCL_DISE_BENCH_X86
__attribute__((target("avx2,fma"))) double fmaKernelAvx2(long loops) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(float(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (long l = 0; l < loops; ++l)
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  double total = 0;
  for (int i = 0; i < kChains; ++i) total += _mm256_cvtss_f32(acc[i]);
  return total;
}

__attribute__((target("avx512f"))) double fmaKernelAvx512(long loops) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(float(i));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (long l = 0; l < loops; ++l)
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  double total = 0;
  for (int i = 0; i < kChains; ++i) total += _mm512_cvtss_f32(acc[i]);
  return total;
}
#endif

}  // namespace

Measurement inChild(const std::function<double()>& work) {
  int fds[2];
  if (pipe(fds) != 0) return {NAN, NAN, "pipe failed"};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::ostringstream out;
    try {
      const double seconds = work();
      rusage self{}, children{};
      getrusage(RUSAGE_SELF, &self);
      getrusage(RUSAGE_CHILDREN, &children);  // a run of other processes: the largest of them
      out << "ok " << seconds << ' ' << std::max(self.ru_maxrss, children.ru_maxrss) / 1024.0;
    } catch (const std::exception& e) {
      out << "error " << e.what();
    }
    const std::string s = out.str();
    if (write(fds[1], s.data(), s.size()) < 0) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  std::string reply;
  char buffer[512];
  for (ssize_t got; (got = read(fds[0], buffer, sizeof(buffer))) > 0;) reply.append(buffer, got);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  std::istringstream in(reply);
  std::string tag;
  in >> tag;
  Measurement m;
  if (tag == "ok")
    in >> m.seconds >> m.peak_mb;
  else
    m.error = reply.empty() ? "the child died (signal " + std::to_string(WTERMSIG(status)) + ", out of memory?)"
                            : reply.substr(6);
  return m;
}

double fmaPeakGflops(const std::string& instruction_set, unsigned threads) {
#ifndef PCL_DISE_BENCH_X86
  (void)instruction_set, (void)threads;
  return NAN;
#else
  const bool avx512 = instruction_set == "AVX-512";
  if (!avx512 && instruction_set != "AVX2") return NAN;
  const long loops = 100000000;
  std::vector<std::thread> pool;
  std::vector<double> sinks(threads);
  const auto start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { sinks[t] = avx512 ? fmaKernelAvx512(loops) : fmaKernelAvx2(loops); });
  for (auto& t : pool) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return double(threads) * loops * kChains * (avx512 ? 16 : 8) * 2 / seconds / 1e9;
#endif
}

}  // namespace bench
}  // namespace pcl_dise
