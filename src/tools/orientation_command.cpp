#include "orientation_command.h"

#include <sstream>

namespace pcl_dise {
namespace tools {

std::string orientationText(const NormalSettings& settings, const NormalsOutcome& outcome) {
  if (!outcome.oriented) return "";
  const OrientationReport& r = outcome.orientation;
  const std::int64_t seed = settings.orientation_seed;
  std::ostringstream text;
  text << "  orientation: minimum spanning tree over " << settings.orientation_neighbors << " neighbours, " << r.parts
       << (r.parts == 1 ? " part" : " parts") << " seeded "
       << (seed >= 0 ? "at point " + std::to_string(seed) + " (its part) and " : std::string())
       << (outcome.seeded_at_viewpoint ? "at the point nearest the viewpoint" : "at the topmost point facing +z")
       << "\n"
       << "  " << r.oriented << " oriented (" << r.flipped << " flipped), " << r.without_normal
       << " without a normal (left as they were)";
  if (r.isolated) text << ", " << r.isolated << " isolated (oriented alone by the seed rule)";
  if (r.sheet_crossings) text << ", " << r.sheet_crossings << " joins through a thin sheet";
  if (r.parity_flipped) text << ", " << r.parity_flipped << " flipped after the tree by ray parity";
  if (r.winding_flipped)
    text << ", " << r.winding_flipped << " unsure points flipped by the winding number of the sure ones";
  text << "\n  confidence: " << r.low_confidence << " points below 0.5 ("
       << (r.oriented ? 100.0 * double(r.low_confidence) / double(r.oriented) : 0.0)
       << "%; written as orientation_confidence to .pcd and .ply, OrientationConfidence to .las and .laz)\n";
  if (r.outside_grid) {
    const double share = r.oriented ? 100.0 * double(r.undecided) / double(r.oriented) : 0.0;
    text << "  sides: outside grid of cell " << r.grid_cell << ", " << r.grid_flipped << " flipped after the tree, "
         << r.undecided << " undecided (" << share << "%: no clear vote, the tree's sign kept)\n";
    if (share > 5.0)
      text << "  warning: the side of " << share
           << "% of the points is uncertain (thin walls under noise, or holes in the sampling)\n";
  } else if (settings.orientation == Orientation::kClosed) {
    text << "  sides: no outside grid enclosed a volume (walls thinner than the grid resolves, holes wider than its "
            "band, or an open surface); ";
    if (r.parity_checked) {
      text << "ray parity checked the tree's sides\n";
    } else if (r.wall_middles) {
      text << "noise too large for ray parity: each side read from the middle of its wall, " << r.grid_flipped
           << " flipped after the tree\n"
           << "  warning: the sides are least sure here (thin walls under noise: a point nearer the other face "
              "takes that face's side)\n";
    } else {
      text << "noise too large for ray parity, and no wall shows two faces: the tree's sides kept\n"
           << "  warning: the sides are unverified (the tree's alone)\n";
    }
  }
  return text.str();
}

}  // namespace tools
}  // namespace pcl_dise
