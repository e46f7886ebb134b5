#pragma once
// The PCPNet "percentage of good points" figure: for each category, the share of points whose
// angle error is under 5, 10, ..., 90 degrees, one curve per method.
#include <string>
#include <vector>

#include "pcl_dise/train/raster_image.h"

namespace pcl_dise {
namespace train {

/** One method's curve: the share of points under each angle. */
struct GoodPointsCurve {
  std::string method;          ///< legend label
  Color color;                 ///< its line's colour
  std::vector<double> shares;  ///< 18 values in [0, 1]: the share under 5, 10, ..., 90 degrees
};

/** One panel of the plot: a category's curves. */
struct GoodPointsPanel {
  std::string title;                    ///< e.g. the category
  std::vector<GoodPointsCurve> curves;  ///< one per method
};

/** Draws the panels in a grid of `columns` (x: threshold 0..90 degrees, y: 0..100 % of points)
 *  with a shared legend. Throws std::invalid_argument for no panels or a curve without 18 values. */
RasterImage plotGoodPoints(const std::vector<GoodPointsPanel>& panels, int columns = 3);

}  // namespace train
}  // namespace pcl_dise
