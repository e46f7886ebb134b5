#pragma once
// Counting sort of items by a small integer key: the compressed-row grouping that grids, graphs
// and patches are built with.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pcl_dise {
namespace detail {

/** Groups items 0..T-1 by key.
 *  keys    [in]  T entries, each in [0, num_keys)
 *  offsets [out] num_keys + 1 entries: the items of key c are order[offsets[c] .. offsets[c+1])
 *  order   [out] T item indices, grouped by key, each group in increasing item index */
template <typename Key, typename Offset, typename Index>
void groupByKey(const std::vector<Key>& keys, std::size_t num_keys, std::vector<Offset>& offsets,
                std::vector<Index>& order) {
  offsets.assign(num_keys + 1, 0);
  for (const Key key : keys) ++offsets[std::size_t(key) + 1];
  for (std::size_t c = 1; c <= num_keys; ++c) offsets[c] += offsets[c - 1];
  std::vector<Offset> next(offsets.begin(), offsets.end() - 1);
  order.resize(keys.size());
  for (std::size_t t = 0; t < keys.size(); ++t) order[next[std::size_t(keys[t])]++] = static_cast<Index>(t);
}

}  // namespace detail
}  // namespace pcl_dise
