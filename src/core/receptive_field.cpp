#include "pcl_dise/core/receptive_field.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace pcl_dise {

ReceptiveField receptiveField(const float* points, std::size_t num_points, const std::vector<std::int32_t>& seeds,
                              int iterations, const NeighborhoodsOf& neighborhoods_of) {
  if (iterations < 0 || iterations > std::numeric_limits<std::uint8_t>::max())
    throw std::invalid_argument("receptive field: iterations must lie in [0, 255]");
  auto checked = [&](std::int32_t n) {
    if (n < 0 || std::size_t(n) >= num_points)
      throw std::invalid_argument("receptive field: point " + std::to_string(n) + " out of range [0, " +
                                  std::to_string(num_points) + ")");
    return n;
  };
  constexpr int kUnseen = -1;
  std::vector<int> hop(num_points, kUnseen);
  std::vector<std::int32_t> frontier;
  for (std::int32_t s : seeds)
    if (hop[checked(s)] == kUnseen) {
      hop[s] = 0;
      frontier.push_back(s);
    }
  // Hop by hop: the rows of the points h <= L hops out, and the points they reach.
  std::vector<std::int32_t> searched;  // the points with a row, in the order of `found`
  Neighborhoods found;
  found.offsets.assign(1, 0);
  for (int h = 0; h <= iterations && !frontier.empty(); ++h) {
    const Neighborhoods rows = neighborhoods_of(frontier);
    if (rows.numNodes() != frontier.size())
      throw std::invalid_argument("receptive field: " + std::to_string(rows.numNodes()) + " neighbourhoods for " +
                                  std::to_string(frontier.size()) + " points");
    std::vector<std::int32_t> next;
    for (std::size_t r = 0; r < frontier.size(); ++r) {
      for (const std::int32_t* j = rows.begin(r); j != rows.begin(r) + rows.size(r); ++j)
        if (hop[checked(*j)] == kUnseen) {
          hop[*j] = h + 1;
          next.push_back(*j);
        }
      found.append(rows.begin(r), std::size_t(rows.size(r)));
    }
    searched.insert(searched.end(), frontier.begin(), frontier.end());
    frontier.swap(next);
  }

  ReceptiveField field;
  for (std::size_t n = 0; n < num_points; ++n)
    if (hop[n] != kUnseen) field.nodes.push_back(static_cast<std::int32_t>(n));
  std::vector<std::int32_t> local(num_points, -1), row_of(field.nodes.size(), -1);
  for (std::size_t l = 0; l < field.nodes.size(); ++l) local[field.nodes[l]] = static_cast<std::int32_t>(l);
  for (std::size_t r = 0; r < searched.size(); ++r) row_of[local[searched[r]]] = static_cast<std::int32_t>(r);
  field.points.resize(3 * field.nodes.size());
  field.last_iteration.resize(field.nodes.size());
  field.neighborhoods.offsets.assign(1, 0);
  std::vector<std::int32_t> row;
  for (std::size_t l = 0; l < field.nodes.size(); ++l) {
    const std::int32_t n = field.nodes[l];
    std::copy_n(points + 3 * std::size_t(n), 3, field.points.begin() + 3 * l);
    field.last_iteration[l] = static_cast<std::uint8_t>(std::max(iterations - hop[n], 0));
    row.clear();
    if (row_of[l] >= 0)
      for (const std::int32_t* j = found.begin(row_of[l]); j != found.begin(row_of[l]) + found.size(row_of[l]); ++j)
        row.push_back(local[*j]);
    field.neighborhoods.append(row.data(), row.size());
  }
  field.local_of_seed.reserve(seeds.size());
  for (std::int32_t s : seeds) field.local_of_seed.push_back(local[s]);
  return field;
}

}  // namespace pcl_dise
