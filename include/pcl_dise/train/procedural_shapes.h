#pragma once
// Procedural CAD shapes for dise_make_dataset: sharp edges and corners of many angles, flat and
// curved faces, rounded edges, and thin structures. Plain C++, shared by dise_make_dataset and its tests.
#include <cstdint>
#include <string>
#include <vector>

#include "pcl_dise/train/pcpnet_data.h"

namespace pcl_dise {
namespace train {

/** The kinds of shape: box, boxunion, prism (extruded convex polygon), star (extruded star),
 *  cylinder, pipe, frustum (pyramids included), bipyramid, icosahedron, roundedbox and
 *  roundedcylinder (superquadrics). */
const std::vector<std::string>& proceduralKinds();

/** A generated shape and its name (the cloud's file name). */
struct NamedMesh {
  std::string name;  ///< e.g. "cad_bipyramid_2_7"
  Mesh mesh;         ///< the shape
};

/** `count` shapes, cycling through the kinds, each with proportions (and, but for box unions, an
 *  orientation) drawn from `seed`; named "cad_<kind>_<seed>_<i>". Different seeds give
 *  different shapes, so that validation shapes can be held out from training; the random draws
 *  are made one statement at a time, so a seed gives the same shapes whichever compiler built it. */
std::vector<NamedMesh> proceduralShapes(std::size_t count, std::uint64_t seed);

/** The kinds of thin structure, walls thinner than a k = 64 neighbourhood of a 100,000-point
 *  sample (0.004 to 0.03 of a shape about 1 across), so that both faces of a sheet fall into one
 *  neighbourhood: finnedplate (a heat sink), hairpin (two parallel plates close together),
 *  channel (thin-walled L, U, J and rectangular sections), hollowbox (thin walls, open top),
 *  perforatedplate (rectangular holes), bentsheet (sheet metal with sharp bends of 20 to 160
 *  degrees, drawn again until the strip keeps half its thickness clear of itself), thintube, twistedblade, wedge (a
 * knife edge of 5 to 60 degrees). */
const std::vector<std::string>& thinKinds();

/** `count` thin shapes, cycling through thinKinds(), named "thin_<kind>_<seed>_<i>"; seeds as for
 *  proceduralShapes. */
std::vector<NamedMesh> thinShapes(std::size_t count, std::uint64_t seed);

}  // namespace train
}  // namespace pcl_dise
