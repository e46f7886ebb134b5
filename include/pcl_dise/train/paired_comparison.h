#pragma once
// Two models compared shape by shape: whether the difference of their PCPNet averages is larger
// than what varies from shape to shape.
#include <cstddef>
#include <limits>
#include <map>
#include <string>

namespace pcl_dise {
namespace train {

/** One method's RMSE (degrees) per category and cloud: category -> cloud name -> RMSE. */
using CloudErrors = std::map<std::string, std::map<std::string, double>>;

/** Two methods compared shape by shape: which is better on how many shapes, by how much. */
struct PairedComparison {
  std::size_t shapes = 0;  ///< shapes with a cloud in every category of both methods
  /** Mean over those shapes of (a - b), each shape's difference averaged over the categories; with
   *  every shape in every category this is the difference of the two PCPNet averages. */
  double mean_difference = std::numeric_limits<double>::quiet_NaN();
  /** Standard error of mean_difference over shapes; NaN for fewer than two shapes. */
  double standard_error = std::numeric_limits<double>::quiet_NaN();
  std::size_t a_better = 0;                ///< shapes whose category-averaged error is lower for a
  std::map<std::string, double> by_shape;  ///< each of those shapes' category-averaged (a - b)
};

/** Pairs the clouds of a and b by shape. A cloud belongs to the longest name among the clouds of
 *  `base_category` that its own name starts with (PCPNet names a shape's variants after its
 *  noise-free cloud: `fandisk` and `fandisk_noise_white_1.00e-02`); a cloud that starts with none
 *  is its own shape. Shapes missing from a category, or from one of the methods, are left out. */
PairedComparison compareByShape(const CloudErrors& a, const CloudErrors& b, const std::string& base_category);

}  // namespace train
}  // namespace pcl_dise
