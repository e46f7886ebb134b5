#pragma once
// k-nearest-neighbour graphs from nanoflann in the forward pass's index format, for the tools
// that run without PCL search (trainer, evaluator).
#include <algorithm>
#include <cstdint>
#include <vector>

#include <nanoflann.hpp>

#include "pcl_dise/neighborhoods.h"

namespace pcl_dise {

/** KD-tree over points N x 3 (row-major float, borrowed: must outlive the index). */
class PointKdTree {
 public:
  PointKdTree(const float* points, std::size_t n)
      : cloud_{points, n}, index_(3, cloud_, nanoflann::KDTreeSingleIndexAdaptorParams(16)) {
    index_.buildIndex();
  }

  /** The k nearest points of `query` (3 floats), nearest first, as indices. */
  std::vector<std::int32_t> nearest(const float* query, std::size_t k) const {
    std::vector<std::uint32_t> ids(k);
    std::vector<float> d2(k);
    ids.resize(index_.knnSearch(query, k, ids.data(), d2.data()));
    return std::vector<std::int32_t>(ids.begin(), ids.end());
  }

  /** Neighbourhoods of every point: its k_with_self nearest points (itself included), found in
   *  parallel (OpenMP) where the caller runs with more than one thread. */
  Neighborhoods graph(std::size_t k_with_self) const {
    const std::size_t k = std::min(k_with_self, cloud_.n);
    std::vector<std::int32_t> table(cloud_.n * k);
#pragma omp parallel
    {
      std::vector<std::uint32_t> ids(k);
      std::vector<float> d2(k);
#pragma omp for schedule(dynamic, 256)
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(cloud_.n); ++i) {
        index_.knnSearch(cloud_.points + 3 * i, k, ids.data(), d2.data());
        std::int32_t* row = table.data() + i * k;
        std::copy(ids.begin(), ids.end(), row);
        // The point itself first, as the algorithm's neighbourhoods are written (duplicates may tie).
        std::int32_t* self = std::find(row, row + k, static_cast<std::int32_t>(i));
        if (self != row + k) std::rotate(row, self, self + 1);
      }
    }
    return Neighborhoods::fromDense(table.data(), cloud_.n, k);
  }

 private:
  struct Adaptor {
    const float* points;
    std::size_t n;
    std::size_t kdtree_get_point_count() const { return n; }
    float kdtree_get_pt(std::size_t i, std::size_t dim) const { return points[3 * i + dim]; }
    template <class BBox>
    bool kdtree_get_bbox(BBox&) const {
      return false;
    }
  };
  using Index =
      nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<float, Adaptor>, Adaptor, 3, std::uint32_t>;
  Adaptor cloud_;
  Index index_;
};

}  // namespace pcl_dise
