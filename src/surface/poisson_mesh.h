#pragma once
// Poisson reconstruction (PCL's pcl::Poisson) from oriented normals, with the bulges Poisson adds
// where there are no points trimmed away, and the mesh's fit to the points it came from.
#include <cstddef>
#include <vector>

#include <pcl/PolygonMesh.h>
#include <pcl/point_cloud.h>
#include <pcl/point_types.h>

namespace pcl_dise {
namespace surface {

struct PoissonOptions {
  int depth = 8;         ///< octree depth: 2^depth cells across the cloud
  double trim = 0.01;    ///< drop vertices farther than this × the bounding-box diagonal from every point
  unsigned threads = 0;  ///< 0: all
  /// Each normal's length is its weight (pcl::Poisson's confidence; pointsWithNormals' weights);
  /// false: every normal counts the same.
  bool confidence = false;
};

/** How well a mesh and the points it was made from fit, in units of the points' bounding-box
 *  diagonal: mean distance from a mesh vertex to its nearest point, and from a point to its
 *  nearest mesh vertex (how well the mesh covers the points). */
struct MeshFit {
  double vertex_to_points = 0, points_to_vertex = 0;
  std::size_t vertices = 0, faces = 0;
};

/** \brief What reconstructPoisson reads: the points of `cloud` whose point and normal are finite
 *  (and, with weights, whose weight is above 0), with their normals.
 *  \param[in] cloud N points
 *  \param[in] normals N normals
 *  \param[in] weights nullptr, or N weights each normal is scaled by (PoissonOptions::confidence)
 *  \throws std::invalid_argument for sizes that differ */
pcl::PointCloud<pcl::PointNormal>::Ptr pointsWithNormals(const pcl::PointCloud<pcl::PointXYZ>& cloud,
                                                         const pcl::PointCloud<pcl::Normal>& normals,
                                                         const std::vector<float>* weights = nullptr);

/** Points with oriented normals (N×6, NaN normals left out: pointsWithNormals) to a triangle mesh:
 *  pcl::Poisson at `depth`, then every vertex farther than `trim` × diagonal from the points
 *  removed with its faces. PCL's Poisson prints diagnostics to stdout ("Vertex pair not in list",
 *  on noisy clouds); they are kept off the console and counted in `diagnostics` where given.
 *  Throws std::runtime_error for fewer than 10 points or an empty mesh. */
pcl::PolygonMesh reconstructPoisson(const pcl::PointCloud<pcl::PointNormal>::ConstPtr& points,
                                    const PoissonOptions& options, std::size_t* diagnostics = nullptr);

/** MeshFit of `mesh` against `points` (finite points only). */
MeshFit measureFit(const pcl::PolygonMesh& mesh, const pcl::PointCloud<pcl::PointXYZ>& points, unsigned threads = 0);

}  // namespace surface
}  // namespace pcl_dise
