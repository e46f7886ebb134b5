#pragma once
// The consistent orientation step of dise_normals --orient mst and dise_orient.
#include <cstdint>
#include <string>

#include <pcl/point_cloud.h>
#include <pcl/point_types.h>

#include "pcl_dise/io/cloud_io.h"

namespace pcl_dise {
namespace io {

struct OrientationChoice {
  std::string viewpoint;   ///< "X,Y,Z" in the file's coordinates, "" for none given
  std::int64_t seed = -1;  ///< a point whose normal is taken as oriented (-1: none)
  int neighbors = 10;      ///< propagation graph
  bool closed = false;     ///< the cloud samples closed shapes: the outside grid (or ray parity) after the tree
  unsigned threads = 0;
};

/** Orients `normals` (one per point of `local`) with pcl::ConsistentNormalOrientation, seeded at
 *  the given seed point, else at the viewpoint where one is known (given, or a PCD VIEWPOINT other
 *  than the origin), else at each part's topmost point facing +z. Returns the report as lines to
 *  print. Throws std::runtime_error for a bad viewpoint or seed, or a size mismatch. */
std::string orientConsistently(const LocalCloud& local, const OrientationChoice& choice,
                               pcl::PointCloud<pcl::Normal>& normals);

}  // namespace io
}  // namespace pcl_dise
