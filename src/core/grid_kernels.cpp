#include "grid_kernels.h"

#include <algorithm>
#include <limits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PCL_DISE_HAVE_X86_KERNELS 1
#endif

namespace pcl_dise {
namespace detail {

namespace {

// The hot loops in the widest instruction set the processor has (chosen once, at load time).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PCL_DISE_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define PCL_DISE_VECTOR_CLONES
#endif

// The `wanted` smallest of keys[0, count) (distinct, count <= kRankSortLimit), in order, into
// out: each key's rank is the number of keys below it, counted on `values` (the keys themselves,
// or a part of them that orders them as they do; padded to whole blocks). The ranks of a block of
// kBlock values stay in registers while every value is compared with them (no sums across lanes).
// Each key then goes to its place without a branch, those ranked `wanted` or later to one spare
// place. Two equal values would claim the same place: false, and out is incomplete.
#if defined(__GNUC__)
#define PCL_DISE_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PCL_DISE_ALWAYS_INLINE inline
#endif
template <std::size_t kBlock, typename Value>
PCL_DISE_ALWAYS_INLINE bool rankInBlocks(const Value* values, const std::uint64_t* keys, std::size_t count,
                                         std::size_t wanted, std::uint64_t* out) {
  std::uint64_t placed[kRankSortLimit + 1];
  std::uint16_t claims[kRankSortLimit + 1];
  std::fill(claims, claims + wanted + 1, std::uint16_t{0});
  for (std::size_t first = 0; first < count; first += kBlock) {
    const Value* block = values + first;
    Value rank[kBlock] = {};
    for (std::size_t j = 0; j < count; ++j) {
      const Value v = values[j];
      for (std::size_t t = 0; t < kBlock; ++t) rank[t] += v < block[t];
    }
    for (std::size_t t = 0; t < kBlock && first + t < count; ++t) {
      const std::size_t place = std::min(static_cast<std::size_t>(rank[t]), wanted);
      ++claims[place];
      placed[place] = keys[first + t];
    }
  }
  bool complete = true;
  for (std::size_t p = 0; p < wanted; ++p) complete &= claims[p] == 1;
  if (complete) std::copy(placed, placed + wanted, out);
  return complete;
}

#if PCL_DISE_HAVE_X86_KERNELS
// GCC 12 reads the "undefined" registers of its own AVX-512 intrinsics as uninitialised.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// rankSmallest with AVX-512, on the whole keys (distinct: no ties to fall back on): the ranks of
// up to 4 blocks of 8 keys in registers side by side while every key is compared with them, then
// each block's wanted keys scattered to their places without branches.
template <int kBlocks>
__attribute__((target("avx512f"))) inline void rankBlocksAvx512(const std::uint64_t* keys, std::size_t count,
                                                                std::size_t first, std::size_t wanted,
                                                                std::uint64_t* out) {
  const __m512i one = _mm512_set1_epi64(1);
  __m512i block[kBlocks], rank[kBlocks];
  __mmask8 in_block[kBlocks];
  for (int b = 0; b < kBlocks; ++b) {
    const std::size_t start = first + 8 * std::size_t(b);
    const std::size_t left = start < count ? count - start : 0;
    in_block[b] = left >= 8 ? __mmask8(0xFF) : __mmask8((1u << left) - 1);
    block[b] = _mm512_maskz_loadu_epi64(in_block[b], keys + start);
    rank[b] = _mm512_setzero_si512();
  }
  for (std::size_t j = 0; j < count; ++j) {
    const __m512i other = _mm512_set1_epi64(static_cast<long long>(keys[j]));
    for (int b = 0; b < kBlocks; ++b)
      rank[b] = _mm512_mask_add_epi64(rank[b], _mm512_cmplt_epu64_mask(other, block[b]), rank[b], one);
  }
  const __m512i places = _mm512_set1_epi64(static_cast<long long>(wanted));
  for (int b = 0; b < kBlocks; ++b)
    _mm512_mask_i64scatter_epi64(out, _mm512_mask_cmplt_epu64_mask(in_block[b], rank[b], places), rank[b], block[b], 8);
}

__attribute__((target("avx512f"))) void rankSmallestWithAvx512(const std::uint64_t* keys, std::size_t count,
                                                               std::size_t wanted, std::uint64_t* out) {
  for (std::size_t first = 0; first < count; first += 32) {
    const std::size_t left = count - first;
    if (left > 24)
      rankBlocksAvx512<4>(keys, count, first, wanted, out);
    else if (left > 16)
      rankBlocksAvx512<3>(keys, count, first, wanted, out);
    else if (left > 8)
      rankBlocksAvx512<2>(keys, count, first, wanted, out);
    else
      rankBlocksAvx512<1>(keys, count, first, wanted, out);
  }
}

// Eight keys from eight distances' bits (high) and eight indices (low).
__attribute__((target("avx512f"))) inline __m512i widenToKeys(__m256i high, __m256i low) {
  return _mm512_or_si512(_mm512_slli_epi64(_mm512_cvtepu32_epi64(high), 32), _mm512_cvtepu32_epi64(low));
}
// keysBelow with AVX-512: 16 comparisons into a mask, the passing distances and indices
// compressed to the front of two registers and widened into keys 8 at a time.
__attribute__((target("avx512f"))) std::size_t keysBelowWithAvx512(const float* dist2, const std::int32_t* ids,
                                                                   std::size_t m, float limit2, std::uint64_t* keys) {
  const __m512 limit = _mm512_set1_ps(limit2);
  std::size_t count = 0;
  for (std::size_t j = 0; j < m; j += 16) {
    const __mmask16 in_block = m - j >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (m - j)) - 1);
    const __m512 d = _mm512_maskz_loadu_ps(in_block, dist2 + j);
    const __mmask16 below = _mm512_mask_cmp_ps_mask(in_block, d, limit, _CMP_LT_OQ);
    if (below == 0) continue;
    const __m512i bits = _mm512_maskz_compress_epi32(below, _mm512_castps_si512(d));
    const __m512i id = _mm512_maskz_compress_epi32(below, _mm512_maskz_loadu_epi32(in_block, ids + j));
    _mm512_storeu_si512(keys + count, widenToKeys(_mm512_castsi512_si256(bits), _mm512_castsi512_si256(id)));
    const unsigned passed = static_cast<unsigned>(__builtin_popcount(below));
    if (passed > 8)
      _mm512_storeu_si512(keys + count + 8,
                          widenToKeys(_mm512_extracti64x4_epi64(bits, 1), _mm512_extracti64x4_epi64(id, 1)));
    count += passed;
  }
  return count;
}
#pragma GCC diagnostic pop

// These run as the library's static data is initialised: the processor is read first.
bool runsAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}

// Lane t of row `mask`: the lane of the t-th set bit of mask (compressing 8 lanes, AVX2 has no
// instruction for it).
struct CompressTable {
  alignas(32) std::int32_t lanes[256][8];
  constexpr CompressTable() : lanes{} {
    for (int mask = 0; mask < 256; ++mask) {
      int t = 0;
      for (int lane = 0; lane < 8; ++lane)
        if (mask & (1 << lane)) lanes[mask][t++] = lane;
    }
  }
};
constexpr CompressTable kCompress8;

// Four keys from four distances' bits (high) and four indices (low).
__attribute__((target("avx2"))) inline __m256i widenToKeys4(__m128i high, __m128i low) {
  return _mm256_or_si256(_mm256_slli_epi64(_mm256_cvtepu32_epi64(high), 32), _mm256_cvtepu32_epi64(low));
}
// keysBelow with AVX2: 8 comparisons into a mask, the passing lanes moved to the front by a
// table's permutation and widened into keys 4 at a time.
__attribute__((target("avx2"))) std::size_t keysBelowWithAvx2(const float* dist2, const std::int32_t* ids,
                                                              std::size_t m, float limit2, std::uint64_t* keys) {
  const __m256 limit = _mm256_set1_ps(limit2);
  std::size_t count = 0, j = 0;
  for (; j + 8 <= m; j += 8) {
    const __m256 d = _mm256_loadu_ps(dist2 + j);
    const int below = _mm256_movemask_ps(_mm256_cmp_ps(d, limit, _CMP_LT_OQ));
    if (below == 0) continue;
    const __m256i order = _mm256_load_si256(reinterpret_cast<const __m256i*>(kCompress8.lanes[below]));
    const __m256i bits = _mm256_permutevar8x32_epi32(_mm256_castps_si256(d), order);
    const __m256i id =
        _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ids + j)), order);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(keys + count),
                        widenToKeys4(_mm256_castsi256_si128(bits), _mm256_castsi256_si128(id)));
    const unsigned passed = static_cast<unsigned>(__builtin_popcount(static_cast<unsigned>(below)));
    if (passed > 4)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(keys + count + 4),
                          widenToKeys4(_mm256_extracti128_si256(bits, 1), _mm256_extracti128_si256(id, 1)));
    count += passed;
  }
  for (; j < m; ++j) {
    keys[count] = distanceKey(dist2[j], ids[j]);
    count += dist2[j] < limit2;
  }
  return count;
}

bool runsAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}
#endif

}  // namespace

// By the squared distances alone (the keys' high 32 bits: twice the values per register),
// compared as signed integers, which AVX2 compares in one instruction (a non-negative float's
// bits are below 2^31). Blocks no wider than the keys need: a query's 17 nearest rank among about
// 25 keys.
PCL_DISE_VECTOR_CLONES bool rankByDistance(const std::uint64_t* keys, std::size_t count, std::size_t wanted,
                                           std::uint64_t* out) {
  constexpr std::size_t kDistanceBlock = 64;
  std::int32_t distances[kRankSortLimit + kDistanceBlock];
  for (std::size_t j = 0; j < count; ++j) distances[j] = static_cast<std::int32_t>(keys[j] >> 32);
  std::fill(distances + count, distances + count + kDistanceBlock, std::numeric_limits<std::int32_t>::max());
  return count <= 16   ? rankInBlocks<16>(distances, keys, count, wanted, out)
         : count <= 32 ? rankInBlocks<32>(distances, keys, count, wanted, out)
                       : rankInBlocks<kDistanceBlock>(distances, keys, count, wanted, out);
}

// Portable: by distance, which ranks every key unless two of the same distance fall among the
// wanted; then by the whole keys (distinct; below 2^63 as signed integers).
PCL_DISE_VECTOR_CLONES void rankSmallestPortable(const std::uint64_t* keys, std::size_t count, std::size_t wanted,
                                                 std::uint64_t* out) {
  if (rankByDistance(keys, count, wanted, out)) return;
  constexpr std::size_t kKeyBlock = 32;
  std::int64_t whole[kRankSortLimit + kKeyBlock];
  for (std::size_t j = 0; j < count; ++j) whole[j] = static_cast<std::int64_t>(keys[j]);
  std::fill(whole + count, whole + count + kKeyBlock, std::numeric_limits<std::int64_t>::max());
  rankInBlocks<kKeyBlock>(whole, keys, count, wanted, out);
}

#if PCL_DISE_HAVE_X86_KERNELS
const RankSmallest rankSmallestAvx512 = runsAvx512() ? rankSmallestWithAvx512 : nullptr;
const KeysBelow keysBelowAvx512 = runsAvx512() ? keysBelowWithAvx512 : nullptr;
const KeysBelow keysBelowAvx2 = runsAvx2() ? keysBelowWithAvx2 : nullptr;
#else
const RankSmallest rankSmallestAvx512 = nullptr;
const KeysBelow keysBelowAvx512 = nullptr;
const KeysBelow keysBelowAvx2 = nullptr;
#endif
const RankSmallest rankSmallest = rankSmallestAvx512 ? rankSmallestAvx512 : rankSmallestPortable;
const KeysBelow keysBelow = keysBelowAvx512 ? keysBelowAvx512 : (keysBelowAvx2 ? keysBelowAvx2 : keysBelowPortable);

void sortSmallest(std::uint64_t* keys, std::size_t count, std::size_t wanted, std::uint64_t* out) {
  if (count > kRankSortLimit && wanted < count) {
    std::nth_element(keys, keys + (wanted - 1), keys + count);
    count = wanted;
  }
  if (count <= kRankSortLimit) {
    rankSmallest(keys, count, wanted, out);
  } else {
    std::sort(keys, keys + count);
    std::copy(keys, keys + wanted, out);
  }
}

PCL_DISE_VECTOR_CLONES void squaredDistances(const float* query, const float* x, const float* y, const float* z,
                                             std::size_t m, float* dist2) {
  const float qx = query[0], qy = query[1], qz = query[2];
  for (std::size_t j = 0; j < m; ++j) {
    const float ex = x[j] - qx, ey = y[j] - qy, ez = z[j] - qz;
    dist2[j] = ex * ex + ey * ey + ez * ez;
  }
}

// The keys of the candidates closer than sqrt(limit2), in block order; returns their number. Few
// of a block pass (about 1 in 8): the comparisons run 16 at a time into flag bytes, and only the
// flags set are visited.
PCL_DISE_VECTOR_CLONES std::size_t keysBelowPortable(const float* dist2, const std::int32_t* ids, std::size_t m,
                                                     float limit2, std::uint64_t* keys) {
  constexpr std::size_t kGroup = 16;
  std::size_t count = 0, j = 0;
  for (; j + kGroup <= m; j += kGroup) {
    std::uint8_t below[kGroup];
    for (std::size_t t = 0; t < kGroup; ++t) below[t] = dist2[j + t] < limit2;
    for (std::size_t half = 0; half < kGroup; half += 8) {
      std::uint64_t flags;  // byte t: candidate j + half + t passes
      std::memcpy(&flags, below + half, sizeof flags);
      for (; flags != 0; flags &= flags - 1) {
        const std::size_t c = j + half + std::size_t(__builtin_ctzll(flags)) / 8;
        keys[count++] = distanceKey(dist2[c], ids[c]);
      }
    }
  }
  for (; j < m; ++j) {
    keys[count] = distanceKey(dist2[j], ids[j]);
    count += dist2[j] < limit2;
  }
  return count;
}

}  // namespace detail
}  // namespace pcl_dise
