#pragma once
// Outward unit face normals of a mesh whatever its triangles' winding: the ground truth that
// orientation is measured against.
#include <array>
#include <vector>

#include "pcl_dise/train/pcpnet_data.h"

namespace pcl_dise {
namespace train {

/** One unit normal per triangle (mesh.triangles.size() x 3), facing out of the volume it bounds.
 *  Triangles are made consistent across their shared edges (edges with exactly two triangles),
 *  then each connected sheet is turned so that the volume it encloses is positive. Exact for
 *  closed manifold meshes, whatever the winding of their faces (procedural shapes, unions of
 *  solids); an open sheet has no inside and gets the side its enclosed volume, however small,
 *  points to. Zero-area triangles get (0, 0, 0). */
std::vector<std::array<double, 3>> outwardFaceNormals(const Mesh& mesh);

}  // namespace train
}  // namespace pcl_dise
