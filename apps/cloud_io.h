#pragma once
// Reading and writing point clouds and normals for the command-line tools.
#include <string>

#include <pcl/point_cloud.h>
#include <pcl/point_types.h>

namespace pcl_dise {
namespace io {

/** Lower-case extension of `path` including the dot (".pcd"), or "" where there is none. */
std::string extension(const std::string& path);

/** Reads the x y z of a .pcd, .ply or .xyz (text "x y z" per line) file, keeping an organized
 *  cloud's layout and its NaN points. Throws std::runtime_error naming the file and the problem
 *  (unreadable, unknown extension, no x/y/z fields, malformed lines). */
pcl::PointCloud<pcl::PointXYZ>::Ptr readCloud(const std::string& path);

/** Reads a .normals file (text "nx ny nz" per line): N x 3. Throws std::runtime_error. */
pcl::PointCloud<pcl::Normal>::Ptr readNormals(const std::string& path);

/** Writes normals by the extension of `path`: .pcd / .ply (points with normal_x/y/z and
 *  curvature) or .normals (text "nx ny nz" per point, "nan nan nan" where none). `points` and
 *  `normals` have the same size. Throws std::runtime_error. */
void writeNormals(const std::string& path, const pcl::PointCloud<pcl::PointXYZ>& points,
                  const pcl::PointCloud<pcl::Normal>& normals);

}  // namespace io
}  // namespace pcl_dise
