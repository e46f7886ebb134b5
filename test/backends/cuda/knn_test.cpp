// The GPU k-NN search against the same grid query on the CPU (grid_knn.h) and against brute
// force, on surfaces, stacks of coincident points and near-coincident blobs: every row holds the k nearest distances
// (float rounding on the device may order exact ties differently, so distances are compared, not indices). Plain C++ on
// raw arrays; exit code 77 (skipped) without a GPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "device_present.h"
#include "dise_cuda.h"
#include "grid_knn.h"
#include "wavy_surface.h"

namespace {

float squaredDistance(const float* a, const float* b) {
  const double ex = double(b[0]) - a[0], ey = double(b[1]) - a[1], ez = double(b[2]) - a[2];
  return static_cast<float>(ex * ex + ey * ey + ez * ez);
}

// Rows `queries` of the GPU result hold the same distances as the reference rows (ascending).
bool sameDistances(const std::vector<float>& points, const std::vector<std::int32_t>& gpu, int row,
                   const std::vector<std::vector<float>>& reference, const char* what) {
  int bad = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    for (int j = 0; j < row; ++j) {
      const float d = squaredDistance(&points[3 * i], &points[3 * std::size_t(gpu[i * row + j])]);
      if (std::fabs(d - reference[i][j]) > 1e-5f * (1.f + reference[i][j])) ++bad;
    }
  }
  std::printf("%s: %zu rows, %d entries differ\n", what, reference.size(), bad);
  return bad == 0;
}

bool checkAgainstBruteForce(const std::vector<float>& points, int k) {
  const std::size_t m = points.size() / 3;
  std::vector<std::int32_t> gpu(m * std::min<std::size_t>(k, m));
  const int row = pcl_dise::cuda::nearestNeighbors(points.data(), m, k, gpu.data());
  std::vector<std::vector<float>> reference(m);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < m; ++j) reference[i].push_back(squaredDistance(&points[3 * i], &points[3 * j]));
    std::sort(reference[i].begin(), reference[i].end());
    reference[i].resize(row);
  }
  return row == std::min<int>(k, int(m)) && sameDistances(points, gpu, row, reference, "brute force");
}

bool checkAgainstHostGrid(const std::vector<float>& points, int k) {
  const std::size_t m = points.size() / 3;
  std::vector<std::int32_t> gpu(m * k);
  const int row = pcl_dise::cuda::nearestNeighbors(points.data(), m, k, gpu.data());
  const pcl_dise::cuda::HostGrid grid(points.data(), m);
  std::vector<std::vector<float>> reference(m);
  std::vector<std::int32_t> ids(k);
  std::vector<float> dist2(k);
  for (std::size_t i = 0; i < m; ++i) {
    pcl_dise::cuda::nearestInGrid(grid.view(), &points[3 * i], k, ids.data(), dist2.data());
    for (int j = 0; j < k; ++j)
      reference[i].push_back(squaredDistance(&points[3 * i], &points[3 * std::size_t(ids[j])]));
  }
  return row == k && sameDistances(points, gpu, row, reference, "host grid");
}

}  // namespace

int main() {
  std::string why;
  if (!pcl_dise::cuda::deviceAvailable(&why)) return pcl_dise::test::cannotRun(why);
  bool ok = checkAgainstBruteForce(pcl_dise::bench::wavySurface(3000, 1), 65);
  ok = checkAgainstBruteForce(pcl_dise::bench::wavySurface(40, 2), 65) && ok;  // fewer points than k
  std::vector<float> duplicated = pcl_dise::bench::wavySurface(1000, 3);
  duplicated.insert(duplicated.end(), duplicated.begin(), duplicated.begin() + 600);
  ok = checkAgainstBruteForce(duplicated, 17) && ok;
  ok = checkAgainstHostGrid(pcl_dise::bench::wavySurface(200000, 4), 65) && ok;
  // Stacks of coincident points (an organized scan's zeros, duplicate returns): each query skips
  // a stack once one of its points is out, so that they cost what distinct points cost.
  std::vector<float> stacked = pcl_dise::bench::wavySurface(3000, 5);
  for (int i = 0; i < 5000; ++i) stacked.insert(stacked.end(), {0.f, 0.f, 0.f});
  for (int i = 0; i < 2000; ++i) stacked.insert(stacked.end(), stacked.begin() + 3 * 10, stacked.begin() + 3 * 11);
  ok = checkAgainstBruteForce(stacked, 65) && ok;
  std::vector<float> zeros = pcl_dise::bench::wavySurface(200000, 6);
  zeros.resize(3 * 500000, 0.f);  // 60% of the points at the origin
  ok = checkAgainstHostGrid(zeros, 65) && ok;
  // Near-coincident blobs (within 1e-5 of a point): their crowded cells get nested grids.
  std::vector<float> blob = pcl_dise::bench::wavySurface(3000, 7);
  for (int i = 0; i < 6000; ++i)
    for (int a = 0; a < 3; ++a) blob.push_back(blob[3 * 50 + a] + 1e-5f * float((i * (7 + 3 * a)) % 101 - 50) / 50.f);
  ok = checkAgainstBruteForce(blob, 65) && ok;
  std::vector<float> big_blob = pcl_dise::bench::wavySurface(100000, 8);
  for (int i = 0; i < 400000; ++i)
    for (int a = 0; a < 3; ++a) big_blob.push_back(0.2f + 1e-5f * float((i * (13 + 5 * a)) % 1009 - 504) / 504.f);
  ok = checkAgainstHostGrid(big_blob, 65) && ok;
  try {
    const std::vector<float> bad{0, 0, 0, NAN, 0, 0};
    std::vector<std::int32_t> out(2);
    pcl_dise::cuda::nearestNeighbors(bad.data(), 2, 1, out.data());
    std::printf("a NaN point was accepted\n");
    ok = false;
  } catch (const std::invalid_argument&) {}
  std::printf(ok ? "PASSED\n" : "FAILED\n");
  return ok ? 0 : 1;
}
