#include "orientation_command.h"

#include <sstream>
#include <stdexcept>

#include "normals_command.h"
#include "pcl_dise/feature/consistent_normal_orientation.h"

namespace pcl_dise {
namespace io {

std::string orientConsistently(const LocalCloud& local, const OrientationChoice& choice,
                               pcl::PointCloud<pcl::Normal>& normals) {
  if (normals.size() != local.cloud->size())
    throw std::runtime_error(std::to_string(normals.size()) + " normals for " + std::to_string(local.cloud->size()) +
                             " points");
  if (choice.seed >= static_cast<std::int64_t>(normals.size()))
    throw std::runtime_error("--seed " + std::to_string(choice.seed) + " is not a point of a cloud of " +
                             std::to_string(normals.size()));
  pcl::ConsistentNormalOrientation<pcl::PointXYZ, pcl::Normal> orientation;
  orientation.setInputCloud(local.cloud);
  orientation.setKSearch(choice.neighbors);
  orientation.setNumberOfThreads(choice.threads);
  orientation.setSeedIndex(choice.seed);
  orientation.setClosedShapes(choice.closed);
  const std::array<double, 3> viewpoint = choice.viewpoint.empty() ? local.viewpoint : parseViewpoint(choice.viewpoint);
  const bool known = !choice.viewpoint.empty() || viewpoint != std::array<double, 3>{0, 0, 0};
  if (known)
    orientation.setViewPoint(static_cast<float>(viewpoint[0] - local.offset[0]),
                             static_cast<float>(viewpoint[1] - local.offset[1]),
                             static_cast<float>(viewpoint[2] - local.offset[2]));
  if (!orientation.orient(normals)) throw std::runtime_error("orientation failed (see the message above)");

  const OrientationReport& r = orientation.getReport();
  std::ostringstream text;
  text << "  orientation: minimum spanning tree over " << choice.neighbors << " neighbours, " << r.parts
       << (r.parts == 1 ? " part" : " parts") << " seeded "
       << (choice.seed >= 0 ? "at point " + std::to_string(choice.seed) + " (its part) and " : std::string())
       << (known ? "at the point nearest the viewpoint" : "at the topmost point facing +z") << "\n"
       << "  " << r.oriented << " oriented (" << r.flipped << " flipped), " << r.without_normal
       << " without a normal (left as they were)";
  if (r.isolated) text << ", " << r.isolated << " isolated (oriented alone by the seed rule)";
  if (r.sheet_crossings) text << ", " << r.sheet_crossings << " joins through a thin sheet";
  if (r.parity_flipped) text << ", " << r.parity_flipped << " flipped after the tree by ray parity";
  text << "\n";
  if (r.outside_grid) {
    const double share = r.oriented ? 100.0 * double(r.undecided) / double(r.oriented) : 0.0;
    text << "  sides: outside grid of cell " << r.grid_cell << ", " << r.grid_flipped << " flipped after the tree, "
         << r.undecided << " undecided (" << share << "%: no clear vote, the tree's sign kept)\n";
    if (share > 5.0)
      text << "  warning: the side of " << share
           << "% of the points is uncertain (thin walls under noise, or holes in the sampling)\n";
  } else if (choice.closed) {
    text << "  sides: no outside grid enclosed a volume (walls thinner than the grid resolves, holes wider than its "
            "band, or an open surface); "
         << (r.parity_checked ? "ray parity checked the tree's sides\n"
                              : "noise too large for ray parity: the tree's sides kept\n");
    if (!r.parity_checked) text << "  warning: the sides are unverified (the tree's alone)\n";
  }
  return text.str();
}

}  // namespace io
}  // namespace pcl_dise
