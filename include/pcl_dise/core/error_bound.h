#pragma once
// A calibrated error bound per normal: the angle within which a normal lies with a stated
// probability (90%), read from the surface variation of DISE's last weighted fit (the curvature
// every backend outputs) through a calibration learnt on clouds the model was not trained on and
// kept in the model file (metadata "error_bound"; scripts/calibrate_error_bound.py). Measured in
// docs/models.md#error-bounds. The one place the rule lives: the feature, Python and the tools
// call errorBound.
#include <cstddef>
#include <string>
#include <vector>

#include "pcl_dise/core/model.h"

namespace pcl_dise {

/** How a model's normal errors grow with the last fit's surface variation. */
struct ErrorCalibration {
  double level = 0.9;             ///< the probability that a normal lies within its bound
  std::vector<double> curvature;  ///< knots of the surface variation, increasing, > 0
  std::vector<double> degrees;    ///< the bound at each knot, non-decreasing

  /** Whether it holds no knot (a model without a calibration). */
  bool empty() const { return curvature.empty(); }
  /** The bound (degrees) at surface variation `curvature`: linear in log(curvature) between the
   *  knots, the first or last knot's bound outside them; NaN where `curvature` is NaN or the
   *  calibration is empty. */
  float bound(float curvature) const;
  /** As JSON: {"level": 0.9, "curvature": [...], "degrees": [...]}. */
  std::string toJson() const;
  /** \brief The calibration of `json` (as toJson writes it).
   *  \throws std::runtime_error naming what is wrong (not JSON, knots not increasing, bounds
   *  decreasing, a level outside (0, 1)) */
  static ErrorCalibration fromJson(const std::string& json);
};

/** \brief Learns a calibration: the `level` quantile of the errors in each of `bins` bins of equal
 *  count along the surface variation, made increasing (each bound at least 1e-6 degrees above the
 *  one before, so that the bound ranks normals as the curvature does), each placed at its bin's
 *  median surface variation.
 *  \param[in] curvature surface variation of each normal (N; NaN entries are left out)
 *  \param[in] errors_degrees each normal's true (unoriented) angle error (N)
 *  \param[in] level the probability the bound is to hold with, in (0, 1)
 *  \param[in] bins how many knots (at least 2; fewer where there are fewer distinct values)
 *  \throws std::invalid_argument for sizes that differ, fewer than 2 usable normals, a level
 *  outside (0, 1) */
ErrorCalibration fitErrorCalibration(const std::vector<double>& curvature, const std::vector<double>& errors_degrees,
                                     double level = 0.9, std::size_t bins = 24);

/** The calibration a model file carries (metadata "error_bound"); empty where it has none.
 *  Throws std::runtime_error for an entry that cannot be read. */
ErrorCalibration errorCalibrationOf(const Model& model);
/** Records `calibration` in `model`'s metadata ("error_bound"), as saveModel then writes it. */
void setErrorCalibration(Model& model, const ErrorCalibration& calibration);

/** \brief A normal's bound (degrees), by `calibration`: the one rule the feature, the tools and
 *  the tiles follow.
 *  \param[in] calibration the model's (errorCalibrationOf)
 *  \param[in] normal its 3 components (NaN where the point has none)
 *  \param[in] curvature its surface variation
 *  \return the bound; NaN where the normal is not finite, the curvature NaN or the calibration empty */
float normalErrorBound(const ErrorCalibration& calibration, const float* normal, float curvature);

/** \brief Why a run cannot give error bounds, "" where it can: the one message the file job,
 *  dise_reconstruct --confidence and the ROS node give.
 *  \param[in] iterations the run's DISE iterations (0: PCA, which has no bound)
 *  \param[in] model the run's model (nullptr: not checked, as before it is read)
 *  \param[in] model_path the model's file, for the message */
std::string errorBoundUnavailable(int iterations, const Model* model, const std::string& model_path);

/** \brief Each normal's weight from its error bound, as Poisson reads confidence
 *  (dise_reconstruct --confidence): inverse variance, the bounds under the cloud's median counted
 *  as the median, so that the better half weighs 1 and the rest (median / bound)^2.
 *  \param[in] degrees N bounds (normalErrorBound; NaN where a point has no normal)
 *  \return N weights in (0, 1], 0 where the bound is NaN */
std::vector<float> boundWeights(const std::vector<float>& degrees);

}  // namespace pcl_dise
