#include "pcl_dise/train/jet_normals.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/jet_estimate_normals.h>
#include <CGAL/property_map.h>

namespace pcl_dise {
namespace train {

std::vector<std::array<float, 3>> jetNormals(const std::vector<std::array<float, 3>>& points, unsigned k) {
  using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;
  using PointWithNormal = std::pair<Kernel::Point_3, Kernel::Vector_3>;
  if (k < 6) throw std::invalid_argument("jet fitting needs k >= 6, got " + std::to_string(k));
  if (points.size() < k)
    throw std::invalid_argument("jet fitting with k = " + std::to_string(k) + " needs as many points, got " +
                                std::to_string(points.size()));
  std::vector<PointWithNormal> cgal_points;
  cgal_points.reserve(points.size());
  for (const auto& p : points) cgal_points.emplace_back(Kernel::Point_3(p[0], p[1], p[2]), Kernel::Vector_3(0, 0, 0));
  CGAL::jet_estimate_normals<CGAL::Parallel_if_available_tag>(
      cgal_points, k,
      CGAL::parameters::point_map(CGAL::First_of_pair_property_map<PointWithNormal>())
          .normal_map(CGAL::Second_of_pair_property_map<PointWithNormal>()));
  std::vector<std::array<float, 3>> normals(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& n = cgal_points[i].second;
    const double length = std::sqrt(n.squared_length());
    if (!std::isfinite(length) || length == 0.0) {
      normals[i] = {NAN, NAN, NAN};
      continue;
    }
    normals[i] = {float(n.x() / length), float(n.y() / length), float(n.z() / length)};
  }
  return normals;
}

}  // namespace train
}  // namespace pcl_dise
