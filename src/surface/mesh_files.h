#pragma once
// Meshes to files by extension: .ply (binary) or .obj, PCL's writers.
#include <string>

#include <pcl/PolygonMesh.h>

namespace pcl_dise {
namespace surface {

/** Throws std::runtime_error unless `path` ends in .ply or .obj (checked before any work). */
void checkMeshPath(const std::string& path);

/** Writes `mesh` to `path` (.ply binary or .obj); throws std::runtime_error where it cannot. */
void writeMesh(const std::string& path, const pcl::PolygonMesh& mesh);

}  // namespace surface
}  // namespace pcl_dise
