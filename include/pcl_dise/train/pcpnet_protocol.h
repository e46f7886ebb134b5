#pragma once
// The PCPNet evaluation protocol (Guerrero et al. 2018), as dise_eval reports it: per cloud the
// RMSE of the unoriented angle error (degrees) over its .pidx points, per category the mean over
// its clouds, and the mean over the six categories; the shares of points under 5, 10, ..., 90
// degrees; the thin structures' row (clouds named thin_*). Plain C++, no PCL.
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "pcl_dise/train/paired_comparison.h"  // CloudErrors
#include "pcl_dise/train/pcpnet_data.h"

namespace pcl_dise {
namespace train {

/** The six PCPNet categories in the protocol's order: no_noise, low_noise, med_noise, high_noise,
 *  vardensity_striped, vardensity_gradient. */
const std::vector<std::string>& pcpnetCategories();

/** The unoriented angle errors (degrees) of a cloud's .pidx points, 90 where a normal is NaN.
 *  \param[in] normal point i's normal (3 floats) for each i in truth.pidx
 *  \param[in] truth the cloud with its true normals and evaluated points */
std::vector<double> angleErrorsAt(const std::function<const float*(std::size_t)>& normal,
                                  const train::LoadedCloud& truth);

/** sqrt(mean(e²)); NaN for no errors. */
double rootMeanSquare(const std::vector<double>& errors);

/** The shares of `errors` under 5, 10, ..., 90 degrees (18 values). */
std::vector<double> goodPointShares(const std::vector<double>& errors);

/** Whether a cloud is one of the thin structures (dise_make_dataset --thin names them thin_*). */
bool isThinStructure(const std::string& cloud);

/** One method's errors by the protocol, added cloud by cloud. A method can report stages (DISE's
 *  iterations 0..L): the last is its result; the others are reported per iteration. */
class ProtocolScores {
 public:
  /** One cloud: its angle errors at its .pidx points, one vector per stage (at least one). */
  void add(const std::string& category, const std::string& cloud, const std::vector<std::vector<double>>& stage_errors);

  /** The categories with at least one cloud, in the order first added. */
  const std::vector<std::string>& categories() const { return categories_; }
  /** The mean over the category's clouds of each stage's RMSE. */
  std::vector<double> stageRmse(const std::string& category) const;
  /** The category's RMSE: the mean over its clouds of the last stage's RMSE. */
  double categoryRmse(const std::string& category) const { return stageRmse(category).back(); }
  /** The mean of categoryRmse over the categories (the protocol's one number); NaN for none. */
  double average() const;
  /** Each stage's mean over the categories of stageRmse. */
  std::vector<double> stageAverages() const;
  /** The good-point shares of the category's last-stage errors, all its clouds' points together. */
  std::vector<double> goodPoints(const std::string& category) const;
  /** Each cloud's last-stage RMSE: category -> cloud -> RMSE (for compareByShape). */
  const CloudErrors& cloudRmse() const { return cloud_rmse_; }
  /** The six-category average over the thin structures alone (NaN where there are none), and in
   *  per_category (where not null) each category's mean over them. */
  double thinStructureAverage(std::map<std::string, double>* per_category = nullptr) const;

 private:
  struct Category {
    std::vector<std::vector<double>> stage_rmse;  // [stage][cloud]
    std::vector<double> last_errors;              // every cloud's last-stage errors
  };
  std::vector<std::string> categories_;
  std::map<std::string, Category> by_category_;
  CloudErrors cloud_rmse_;
};

}  // namespace train
}  // namespace pcl_dise
