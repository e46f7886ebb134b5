#pragma once
// Procedural CAD shapes for dise_make_dataset: sharp edges and corners of many angles, flat and
// curved faces, rounded edges. Plain C++, shared by dise_make_dataset and its tests.
#include <cstdint>
#include <string>
#include <vector>

#include "pcpnet_data.h"

namespace pcl_dise {
namespace pcpnet {

/** The kinds of shape: box, boxunion, prism (extruded convex polygon), star (extruded star),
 *  cylinder, pipe, frustum (pyramids included), bipyramid, icosahedron, roundedbox and
 *  roundedcylinder (superquadrics). */
const std::vector<std::string>& proceduralKinds();

struct NamedMesh {
  std::string name;
  Mesh mesh;
};

/** `count` shapes, cycling through the kinds, each with proportions (and, but for box unions, an
 *  orientation) drawn from `seed`; named "cad_<kind>_<seed>_<i>". Different seeds give
 *  different shapes, so that validation shapes can be held out from training. */
std::vector<NamedMesh> proceduralShapes(std::size_t count, std::uint64_t seed);

}  // namespace pcpnet
}  // namespace pcl_dise
