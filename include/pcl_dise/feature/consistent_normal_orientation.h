#pragma once
// pcl::ConsistentNormalOrientation: orients any cloud of normals consistently (outward on closed
// shapes) by propagation along a minimum spanning tree; pcl_dise::orientNormals does the work.
#include <string>
#include <vector>

#include <pcl/pcl_macros.h>
#include <pcl/point_cloud.h>

#include "pcl_dise/orientation/orientation_propagation.h"

namespace pcl {

/** Orients normals consistently: Hoppe's minimum spanning tree over a k-nearest-neighbour graph,
 *  each connected part seeded on its own (docs/orientation.md).
 *
 *  Seeds, first rule that applies: setSeedIndex(i) keeps point i's normal as given (its part
 *  follows it); a viewpoint (setViewPoint, or useSensorOriginAsViewPoint where the cloud's sensor
 *  origin is not the default origin) turns each part's nearest point towards it; otherwise each
 *  part's topmost point (largest z) faces +z. Closed shapes then face outward, open surfaces face
 *  their seed's side.
 *
 *  orient(normals): normals has one entry per input point; only signs change. Points with a
 *  non-finite position or normal are left as they are (NaN stays NaN) and counted in getReport().
 *  Returns false, after PCL_ERROR, for no input cloud, a size mismatch or a seed out of range. */
template <typename PointT, typename NormalT>
class ConsistentNormalOrientation {
 public:
  using Ptr = shared_ptr<ConsistentNormalOrientation<PointT, NormalT>>;             ///< shared pointer
  using ConstPtr = shared_ptr<const ConsistentNormalOrientation<PointT, NormalT>>;  ///< shared const pointer
  using PointCloudConstPtr = typename PointCloud<PointT>::ConstPtr;                 ///< the input cloud

  /** \brief The points whose normals orient() orients (the same size as the normals). */
  void setInputCloud(const PointCloudConstPtr& cloud) { input_ = cloud; }
  PointCloudConstPtr getInputCloud() const { return input_; }  ///< see setInputCloud

  /** Neighbours per point in the propagation graph (default 10); keep it below the estimation's k,
   *  so that fewer edges reach the other side of a thin sheet. */
  void setKSearch(int k) { options_.neighbors = k; }
  int getKSearch() const { return options_.neighbors; }  ///< see setKSearch

  /** \brief Seeds each part at its point nearest this viewpoint, facing it. */
  void setViewPoint(float vpx, float vpy, float vpz) {
    options_.has_viewpoint = true;
    options_.viewpoint = {vpx, vpy, vpz};
    use_sensor_origin_ = false;
  }
  /** The cloud's sensor origin as the viewpoint, where it is not (0, 0, 0): PCL's default origin
   *  says nothing about where the sensor was. */
  void useSensorOriginAsViewPoint() { use_sensor_origin_ = true; }
  /** No viewpoint: each part's topmost point faces +z (the default). */
  void clearViewPoint() {
    options_.has_viewpoint = false;
    use_sensor_origin_ = false;
  }

  /** Point i's normal is taken as correctly oriented (-1, the default: none). */
  void setSeedIndex(index_t i) { options_.seed_index = i; }

  /** The cloud samples closed shapes: after the tree, each point's side is read from an outside
   *  grid (ray parity where walls are too thin for one); false, the default, for scans and open
   *  surfaces (OrientationOptions::closed). */
  void setClosedShapes(bool closed) { options_.closed = closed; }
  bool getClosedShapes() const { return options_.closed; }  ///< see setClosedShapes

  /** Threads for the neighbour graph and the rays (0, the default: all). */
  void setNumberOfThreads(unsigned int threads) { options_.threads = static_cast<int>(threads); }

  /** Neighbourhoods of the input cloud's points found before, read instead of searching again
   *  where they hold enough points (DeepIterativeNormalEstimation::getNeighborhoods on the same
   *  cloud: the result is the same, found faster). They must stay valid until orient(); the
   *  default, none, searches. */
  void setNeighborhoods(const pcl_dise::KnownNeighborhoods& known) { known_ = known; }

  /** Orients `normals` in place; see the class comment. */
  bool orient(PointCloud<NormalT>& normals);

  /** What the last orient did: points oriented, left without a normal, parts, isolated points. */
  const pcl_dise::OrientationReport& getReport() const { return report_; }
  /** How sure the last orient was of each point's side, in [0, 1], one per input point (NaN where
   *  a point has no normal; empty where orient failed): pcl_dise::orientNormals' `confidence`. */
  const std::vector<float>& getConfidence() const { return confidence_; }

 protected:
  const std::string& getClassName() const { return class_name_; }  ///< for PCL_ERROR messages

 private:
  PointCloudConstPtr input_;
  pcl_dise::OrientationOptions options_;
  bool use_sensor_origin_ = false;
  pcl_dise::KnownNeighborhoods known_;
  std::vector<float> confidence_;
  pcl_dise::OrientationReport report_;
  std::string class_name_ = "ConsistentNormalOrientation";
};

}  // namespace pcl

#ifdef PCL_NO_PRECOMPILE
#include "pcl_dise/feature/impl/consistent_normal_orientation.hpp"
#endif
