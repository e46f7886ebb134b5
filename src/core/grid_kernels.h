#pragma once
// The inner loops of GridSearch (grid_search.cpp): candidates as (squared distance, index) keys,
// a block's squared distances, its keys under a limit, and the smallest keys in order. Where a
// loop has versions in AVX-512 (keysBelow, rankSmallest) or AVX2 (keysBelow), a portable one
// gives the same keys; the widest the processor runs is chosen once, at load time. Internal to
// pcl_dise_base.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pcl_dise {
namespace detail {

/** (squared distance, index) as one integer: a non-negative float's bits order as the float, so
 *  sorting keys sorts by distance with ties by index. */
inline std::uint64_t distanceKey(float dist2, std::int32_t id) {
  std::uint32_t bits;
  std::memcpy(&bits, &dist2, sizeof bits);
  return (std::uint64_t(bits) << 32) | std::uint32_t(id);
}
inline std::int32_t keyId(std::uint64_t key) { return static_cast<std::int32_t>(std::uint32_t(key)); }
inline float keyDist2(std::uint64_t key) {
  const std::uint32_t bits = std::uint32_t(key >> 32);
  float d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

/// The most keys a RankSmallest ranks; sortSmallest sorts more.
constexpr std::size_t kRankSortLimit = 256;
/// The entries a KeysBelow may write past the keys it returns.
constexpr std::size_t kKeysSlack = 16;

/** \brief The squared distances of m candidates to a query, each rounded as written (no fused
 *  multiply-add: ties and radius limits fall as in a plain search).
 *  \param[in] query 3 floats
 *  \param[in] x, y, z the candidates' coordinates, m each
 *  \param[out] dist2 m squared distances */
void squaredDistances(const float* query, const float* x, const float* y, const float* z, std::size_t m, float* dist2);

/** \brief The keys of the candidates with dist2 < limit2, in candidate order.
 *  \param[in] dist2, ids the candidates' squared distances and indices, m each
 *  \param[out] keys m + kKeysSlack entries: the passing keys first
 *  \return the number of passing keys */
using KeysBelow = std::size_t (*)(const float* dist2, const std::int32_t* ids, std::size_t m, float limit2,
                                  std::uint64_t* keys);
std::size_t keysBelowPortable(const float* dist2, const std::int32_t* ids, std::size_t m, float limit2,
                              std::uint64_t* keys);
extern const KeysBelow keysBelowAvx512;  ///< nullptr where the processor (or the build) lacks AVX-512
extern const KeysBelow keysBelowAvx2;    ///< nullptr where the processor (or the build) lacks AVX2
extern const KeysBelow keysBelow;        ///< the widest of them

/** \brief The `wanted` smallest of keys[0, count) in order.
 *  \param[in] keys distinct, wanted <= count <= kRankSortLimit
 *  \param[out] out wanted keys, smallest first */
using RankSmallest = void (*)(const std::uint64_t* keys, std::size_t count, std::size_t wanted, std::uint64_t* out);
void rankSmallestPortable(const std::uint64_t* keys, std::size_t count, std::size_t wanted, std::uint64_t* out);
extern const RankSmallest rankSmallestAvx512;  ///< nullptr where the processor (or the build) lacks AVX-512
extern const RankSmallest rankSmallest;        ///< the wider of the two

/** \brief The `wanted` smallest of keys[0, count) by squared distance alone, in order, where no
 *  two of them, nor the wanted-th and the next, share a distance: then every tie rule agrees.
 *  \param[in] keys wanted <= count <= kRankSortLimit
 *  \param[out] out wanted keys, nearest first (incomplete where false is returned)
 *  \return false where distances tie among the wanted or at the wanted-th */
bool rankByDistance(const std::uint64_t* keys, std::size_t count, std::size_t wanted, std::uint64_t* out);

/** The `wanted` smallest of keys[0, count) (distinct, any count; keys is reordered) in order, into
 *  out (wanted entries). */
void sortSmallest(std::uint64_t* keys, std::size_t count, std::size_t wanted, std::uint64_t* out);

}  // namespace detail
}  // namespace pcl_dise
