// The inner loops of GridSearch (src/core/grid_kernels.h): each version the processor runs (the
// portable one, AVX2 and AVX-512 where present) against a plain reference, over every block length from
// 0 to past the vector widths, with ties in distance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "grid_kernels.h"

namespace {

using pcl_dise::detail::distanceKey;
using pcl_dise::detail::KeysBelow;
using pcl_dise::detail::RankSmallest;

std::vector<KeysBelow> keysBelowVersions() {
  std::vector<KeysBelow> versions{pcl_dise::detail::keysBelowPortable};
  if (pcl_dise::detail::keysBelowAvx512) versions.push_back(pcl_dise::detail::keysBelowAvx512);
  if (pcl_dise::detail::keysBelowAvx2) versions.push_back(pcl_dise::detail::keysBelowAvx2);
  return versions;
}

std::vector<RankSmallest> rankSmallestVersions() {
  std::vector<RankSmallest> versions{pcl_dise::detail::rankSmallestPortable};
  if (pcl_dise::detail::rankSmallestAvx512) versions.push_back(pcl_dise::detail::rankSmallestAvx512);
  return versions;
}

// Squared distances on a lattice's few values, so that many tie.
std::vector<float> latticeDistances(std::size_t m, std::mt19937& rng) {
  std::uniform_int_distribution<int> cell(0, 12);
  std::vector<float> dist2(m);
  for (float& d : dist2) d = 0.25f * float(cell(rng));
  return dist2;
}

TEST(GridKernels, KeysBelowAreThePassingKeysInOrder) {
  std::mt19937 rng(3);
  for (std::size_t m = 0; m <= 70; ++m)
    for (const float limit2 : {0.f, 0.3f, 1.1f, 2.5f, 100.f}) {
      const std::vector<float> dist2 = latticeDistances(m, rng);
      std::vector<std::int32_t> ids(m);
      for (std::size_t j = 0; j < m; ++j) ids[j] = std::int32_t(rng() % 100000);
      std::vector<std::uint64_t> expected;
      for (std::size_t j = 0; j < m; ++j)
        if (dist2[j] < limit2) expected.push_back(distanceKey(dist2[j], ids[j]));
      for (const KeysBelow keysBelow : keysBelowVersions()) {
        std::vector<std::uint64_t> keys(m + pcl_dise::detail::kKeysSlack);
        const std::size_t count = keysBelow(dist2.data(), ids.data(), m, limit2, keys.data());
        keys.resize(count);
        EXPECT_EQ(keys, expected) << "m " << m << ", limit2 " << limit2;
      }
    }
}

TEST(GridKernels, RankSmallestIsTheSortedPrefix) {
  std::mt19937 rng(5);
  for (std::size_t count = 1; count <= pcl_dise::detail::kRankSortLimit; count += (count < 40 ? 1 : 23)) {
    // Distinct keys of few distances (ties broken by index), in random order.
    const std::vector<float> dist2 = latticeDistances(count, rng);
    std::vector<std::uint64_t> keys(count);
    for (std::size_t j = 0; j < count; ++j) keys[j] = distanceKey(dist2[j], std::int32_t(j * 7 + 1));
    std::shuffle(keys.begin(), keys.end(), rng);
    std::vector<std::uint64_t> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    for (const std::size_t wanted : {std::size_t{1}, std::min<std::size_t>(count, 17), count}) {
      const std::vector<std::uint64_t> expected(sorted.begin(), sorted.begin() + wanted);
      for (const RankSmallest rank : rankSmallestVersions()) {
        std::vector<std::uint64_t> out(wanted);
        rank(keys.data(), count, wanted, out.data());
        EXPECT_EQ(out, expected) << "count " << count << ", wanted " << wanted;
      }
      std::vector<std::uint64_t> scratch = keys, out(wanted);
      pcl_dise::detail::sortSmallest(scratch.data(), count, wanted, out.data());
      EXPECT_EQ(out, expected);
    }
  }
}

// rankByDistance answers exactly where no distances tie among the wanted or at the wanted-th,
// whatever the keys' low bits, and says so; elsewhere it says it cannot.
TEST(GridKernels, RankByDistanceAnswersWhereNoDistancesTie) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> spread(0.f, 4.f);
  for (std::size_t count = 1; count <= pcl_dise::detail::kRankSortLimit; count += (count < 40 ? 1 : 23))
    for (const bool ties : {false, true}) {
      std::vector<float> dist2 = ties ? latticeDistances(count, rng) : std::vector<float>(count);
      if (!ties)
        for (float& d : dist2) d = spread(rng);
      std::vector<std::uint64_t> keys(count);
      for (std::size_t j = 0; j < count; ++j) keys[j] = distanceKey(dist2[j], std::int32_t(rng() % 1000));
      std::vector<float> by_distance = dist2;
      std::sort(by_distance.begin(), by_distance.end());
      for (const std::size_t wanted : {std::size_t{1}, std::min<std::size_t>(count, 17), count}) {
        bool distinct = true;  // among the wanted and the next
        for (std::size_t j = 1; j < std::min(wanted + 1, count); ++j) distinct &= by_distance[j - 1] < by_distance[j];
        std::vector<std::uint64_t> out(wanted);
        ASSERT_EQ(pcl_dise::detail::rankByDistance(keys.data(), count, wanted, out.data()), distinct)
            << "count " << count << ", wanted " << wanted;
        if (!distinct) continue;
        for (std::size_t j = 0; j < wanted; ++j) {
          EXPECT_EQ(pcl_dise::detail::keyDist2(out[j]), by_distance[j]);
          EXPECT_NE(std::find(keys.begin(), keys.end(), out[j]), keys.end());
        }
      }
    }
}

TEST(GridKernels, SortSmallestBeyondTheRankLimit) {
  std::mt19937 rng(7);
  const std::size_t count = 3 * pcl_dise::detail::kRankSortLimit;
  const std::vector<float> dist2 = latticeDistances(count, rng);
  std::vector<std::uint64_t> keys(count);
  for (std::size_t j = 0; j < count; ++j) keys[j] = distanceKey(dist2[j], std::int32_t(count - j));
  std::vector<std::uint64_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  for (const std::size_t wanted : {std::size_t{17}, std::size_t{300}, count}) {
    std::vector<std::uint64_t> scratch = keys, out(wanted);
    pcl_dise::detail::sortSmallest(scratch.data(), count, wanted, out.data());
    EXPECT_EQ(out, std::vector<std::uint64_t>(sorted.begin(), sorted.begin() + wanted)) << wanted;
  }
}

}  // namespace
