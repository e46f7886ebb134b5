#pragma once
// Neighbourhoods as index arrays, the one graph format every backend and tool shares.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace pcl_dise {

/** Variable-size neighbourhoods in compressed-row form: the neighbourhood of node i is
 *  indices[offsets[i] .. offsets[i+1]), node indices into the same point array.
 *  offsets has N+1 entries (offsets[0] = 0); indices has E = offsets[N] entries.
 *  A dense N x K neighbourhood table is the special case offsets[i] = i*K (see fromDense). */
struct Neighborhoods {
  std::vector<std::int64_t> offsets{0};  ///< N + 1 entries
  std::vector<std::int32_t> indices;     ///< E entries

  std::size_t numNodes() const { return offsets.size() - 1; }                             ///< N
  std::size_t numEdges() const { return indices.size(); }                                 ///< E
  std::int64_t size(std::size_t i) const { return offsets[i + 1] - offsets[i]; }          ///< node i's neighbours
  const std::int32_t* begin(std::size_t i) const { return indices.data() + offsets[i]; }  ///< node i's first

  /** Appends one node's neighbourhood. */
  void append(const std::int32_t* first, std::size_t count) {
    indices.insert(indices.end(), first, first + count);
    offsets.push_back(static_cast<std::int64_t>(indices.size()));
  }

  /** From one index list per node. */
  static Neighborhoods fromRows(const std::vector<std::vector<std::int32_t>>& rows) {
    Neighborhoods n;
    n.offsets.resize(rows.size() + 1);
    for (std::size_t i = 0; i < rows.size(); ++i)
      n.offsets[i + 1] = n.offsets[i] + static_cast<std::int64_t>(rows[i].size());
    n.indices.resize(static_cast<std::size_t>(n.offsets.back()));
    for (std::size_t i = 0; i < rows.size(); ++i)
      std::copy(rows[i].begin(), rows[i].end(), n.indices.begin() + n.offsets[i]);
    return n;
  }

  /** The first num_nodes nodes (<= numNodes()), each cut to its first max_per_node entries. */
  Neighborhoods truncated(std::size_t num_nodes, std::size_t max_per_node) const {
    Neighborhoods n;
    n.offsets.resize(num_nodes + 1);
    for (std::size_t i = 0; i < num_nodes; ++i)
      n.offsets[i + 1] = n.offsets[i] + std::min<std::int64_t>(size(i), static_cast<std::int64_t>(max_per_node));
    n.indices.resize(static_cast<std::size_t>(n.offsets.back()));
    for (std::size_t i = 0; i < num_nodes; ++i)
      std::copy(begin(i), begin(i) + n.size(i), n.indices.begin() + n.offsets[i]);
    return n;
  }

  /** From a dense row-major table: table N x K of node indices. */
  static Neighborhoods fromDense(const std::int32_t* table, std::size_t num_nodes, std::size_t k) {
    Neighborhoods n;
    n.offsets.resize(num_nodes + 1);
    for (std::size_t i = 0; i <= num_nodes; ++i) n.offsets[i] = static_cast<std::int64_t>(i * k);
    n.indices.assign(table, table + num_nodes * k);
    return n;
  }
};

/** Neighbourhoods a stage found for a cloud, numbered its own way, for a later stage to read instead
 *  of searching again (pcl::DeepIterativeNormalEstimation::getNeighborhoods, read by orientNormals).
 *  Row r of `rows` is the neighbourhood of the cloud's point point_of_row[r] (-1: of no point of the
 *  cloud), nearest first, the point itself included; its entries are row numbers. A row may leave
 *  out points (the estimation leaves out those without a normal): a reader that keeps none of them
 *  finds in a row's first s entries that it keeps the point's s nearest. Non-owning: valid while
 *  its source is. */
struct KnownNeighborhoods {
  const Neighborhoods* rows = nullptr;         ///< R rows, or nullptr: none known
  const std::int32_t* point_of_row = nullptr;  ///< R entries: the cloud's point each row belongs to
};

}  // namespace pcl_dise
