#pragma once
// Reading and writing point clouds and normals for the command-line tools.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include <pcl/point_cloud.h>
#include <pcl/point_types.h>

#include "pcl_dise/io/file_format.h"
#include "pcl_dise/io/local_frame.h"

namespace pcl_dise {
namespace io {

/** A cloud as the tools hold it: float coordinates in a local frame; the file's coordinates are
 *  these plus `offset`, in double. */
struct LocalCloud {
  pcl::PointCloud<pcl::PointXYZ>::Ptr cloud;  ///< coordinates minus offset; the PCD viewpoint too
  std::array<double, 3> offset{0, 0, 0};      ///< zero unless a finite coordinate reaches kOffsetFromMagnitude
  /// The file's coordinates (cloud->size() points), kept where offset is not zero: writers put
  /// them back unchanged, so a round trip loses nothing.
  std::vector<std::array<double, 3>> file_coordinates;
  /// The file's sensor origin in its own coordinates: a PCD VIEWPOINT, else (0, 0, 0).
  std::array<double, 3> viewpoint{0, 0, 0};
  /// A LAS input's path: a LAS output keeps its records, scale, offset, VLRs and EVLRs (empty: not LAS).
  std::string las_source;
  /// A LAZ input decoded (LasCloud::decoded): its output reads the records from here.
  std::shared_ptr<const std::string> las_source_bytes;
  bool hasOffset() const { return offset[0] != 0 || offset[1] != 0 || offset[2] != 0; }  ///< offset is not zero
};

/** Reads the x y z of a .pcd, .ply, .las or .xyz (text "x y z" per line) file in double, keeping an
 *  organized cloud's layout and its NaN points; where the coordinates are large (see
 *  kOffsetFromMagnitude) it subtracts the finite points' bounding-box centre, rounded to whole
 *  units, before they become floats. Throws std::runtime_error naming the file and the problem
 *  (unreadable, unknown extension, no x/y/z fields, malformed lines). */
LocalCloud readCloud(const std::string& path);

/** Reads a .normals file (text "nx ny nz" per line): N x 3. Throws std::runtime_error. */
pcl::PointCloud<pcl::Normal>::Ptr readNormals(const std::string& path);

/** \brief Writes normals by the extension of `path`: .pcd / .ply (points with normal_x/y/z and
 *  curvature), .las (LAS 1.4, the normal and curvature as extra bytes; las_format.h) or .normals
 *  (text "nx ny nz" per point, "nan nan nan" where none). A cloud read with an offset is written
 *  with its file coordinates, as double fields (PCD `F 8`, PLY `double`); a LAS input's points
 *  keep their scale and offset in a LAS output.
 *  \param[in] path the output
 *  \param[in] points N points
 *  \param[in] normals N normals
 *  \param[in] values per-point values (PointValue: the orientation confidence, the error bound),
 *  each N floats, written after the curvature as float fields to .pcd and .ply and as float extra
 *  bytes to .las and .laz (namesOf); a column with no data is left out, text formats hold none
 *  \throws std::runtime_error naming `path` for sizes that differ, a value twice, a write that
 *  fails (LAS: also points with non-finite coordinates) */
void writeNormals(const std::string& path, const LocalCloud& points, const pcl::PointCloud<pcl::Normal>& normals,
                  const std::vector<PointValueColumn>& values = {});

}  // namespace io
}  // namespace pcl_dise
