#pragma once
// pcl_dise::search::Grid: the grid search (grid_search.h) behind PCL's search interface. It is
// the feature's default search method; any PCL algorithm that takes a pcl::search::Search can
// use it too (its answers are exact and sorted by distance, ties by index).
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <pcl/point_cloud.h>
#include <pcl/search/search.h>

#include "pcl_dise/core/grid_search.h"

namespace pcl_dise {
namespace search {

/** pcl_dise's exact grid search (core/grid_search.h) behind PCL's search interface, for any PCL
 *  algorithm that takes a search method: the same neighbours as pcl::search::KdTree, nearest
 *  first, ties by index. */
template <typename PointT>
class Grid : public pcl::search::Search<PointT> {
 public:
  using Ptr = std::shared_ptr<Grid<PointT>>;                                            ///< shared pointer
  using ConstPtr = std::shared_ptr<const Grid<PointT>>;                                 ///< shared const pointer
  using PointCloudConstPtr = typename pcl::search::Search<PointT>::PointCloudConstPtr;  ///< the searched cloud
  using IndicesConstPtr = typename pcl::search::Search<PointT>::IndicesConstPtr;        ///< its points to search

  Grid() : pcl::search::Search<PointT>("pcl_dise::search::Grid", true) {}

  /** Indexes the finite points of `cloud` (those in `indices` where given). The grid is built on
   *  the first query, its cells sized for that query's k or radius; every later query is exact too. */
  void setInputCloud(const PointCloudConstPtr& cloud, const IndicesConstPtr& indices = IndicesConstPtr()) override {
    std::lock_guard<std::mutex> lock(mutex_);
    this->input_ = cloud;
    this->indices_ = indices;
    std::atomic_store(&index_, std::shared_ptr<const Index>());
  }

  /** \brief The k nearest points to `point`, nearest first; returns how many. */
  int nearestKSearch(const PointT& point, int k, pcl::Indices& k_indices,
                     std::vector<float>& k_sqr_distances) const override {
    k_indices.clear();
    k_sqr_distances.clear();
    if (k <= 0 || !pcl::isFinite(point)) return 0;
    const std::shared_ptr<const Index> index = indexFor(static_cast<std::size_t>(k), 0.f);
    const float query[3] = {point.x, point.y, point.z};
    index->grid.nearest(query, static_cast<std::size_t>(k), scratchIds(), k_sqr_distances);
    return answer(*index, k_indices);
  }

  /** \brief The points closer than `radius`, nearest first (at most max_nn, 0: all); returns how many. */
  int radiusSearch(const PointT& point, double radius, pcl::Indices& k_indices, std::vector<float>& k_sqr_distances,
                   unsigned int max_nn = 0) const override {
    k_indices.clear();
    k_sqr_distances.clear();
    if (!(radius > 0) || !pcl::isFinite(point)) return 0;
    const std::shared_ptr<const Index> index = indexFor(0, static_cast<float>(radius));
    const float query[3] = {point.x, point.y, point.z};
    index->grid.withinRadius(query, static_cast<float>(radius), max_nn, scratchIds(), k_sqr_distances);
    return answer(*index, k_indices);
  }

 private:
  struct Index {
    GridSearch grid;
    std::vector<pcl::index_t> cloud_index;  ///< grid point -> index into the input cloud
  };

  /// Built once per input cloud, under the lock, so that concurrent queries (NormalEstimationOMP)
  /// share it.
  std::shared_ptr<const Index> indexFor(std::size_t k, float radius) const {
    if (auto built = std::atomic_load(&index_)) return built;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!index_) {
      std::vector<float> points;
      std::vector<pcl::index_t> cloud_index;
      const auto& cloud = *this->input_;
      auto add = [&](pcl::index_t i) {
        if (!pcl::isFinite(cloud[i])) return;
        points.insert(points.end(), {cloud[i].x, cloud[i].y, cloud[i].z});
        cloud_index.push_back(i);
      };
      if (this->indices_)
        for (pcl::index_t i : *this->indices_) add(i);
      else
        for (std::size_t i = 0; i < cloud.size(); ++i) add(static_cast<pcl::index_t>(i));
      const std::size_t n = cloud_index.size();
      std::atomic_store(&index_,
                        std::make_shared<const Index>(Index{k > 0 ? GridSearch::forNearest(points.data(), n, k)
                                                                  : GridSearch::forRadius(points.data(), n, radius),
                                                            std::move(cloud_index)}));
    }
    return index_;
  }

  static std::vector<std::int32_t>& scratchIds() {
    thread_local std::vector<std::int32_t> ids;
    return ids;
  }

  static int answer(const Index& index, pcl::Indices& k_indices) {
    const std::vector<std::int32_t>& ids = scratchIds();
    k_indices.resize(ids.size());
    for (std::size_t j = 0; j < ids.size(); ++j) k_indices[j] = index.cloud_index[std::size_t(ids[j])];
    return static_cast<int>(ids.size());
  }

  mutable std::mutex mutex_;
  mutable std::shared_ptr<const Index> index_;
};

}  // namespace search
}  // namespace pcl_dise
