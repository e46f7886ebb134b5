#pragma once
// The frame the forward pass computes in: the points centred on the mean of their float
// coordinates. The feature and the tiled path both centre by this rule, so that a tiled run gives
// the in-memory run's bytes.
#include <array>
#include <cstdint>

#include "pcl_dise/core/exact_sum.h"

namespace pcl_dise {

/** \brief The mean of points' float coordinates: their exact sum (ExactSum) rounded once and
 *  divided by their number, the same in any order and in any pieces, and the same for a cloud
 *  as for that cloud stored twice. */
class FloatCentroid {
 public:
  /** \brief Adds one point.
   *  \param[in] p the point's x, y, z (3 floats) */
  void add(const float* p) {
    for (int c = 0; c < 3; ++c) sum_[c].add(p[c]);
    ++count_;
  }

  /** \brief The number of points added. */
  std::uint64_t count() const { return count_; }

  /** \brief The mean of the points added (the origin where none was). */
  std::array<double, 3> centroid() const {
    std::array<double, 3> mean{0, 0, 0};
    if (count_ > 0)
      for (int c = 0; c < 3; ++c) mean[c] = sum_[c].value() / static_cast<double>(count_);
    return mean;
  }

 private:
  std::array<ExactSum, 3> sum_;
  std::uint64_t count_ = 0;
};

/** \brief A point relative to a centroid, each coordinate rounded once to float: float(p - c).
 *  \param[in] p the point's x, y, z (3 floats)
 *  \param[in] centroid from FloatCentroid::centroid
 *  \return the centred coordinates */
inline std::array<float, 3> centredOn(const float* p, const std::array<double, 3>& centroid) {
  return {static_cast<float>(p[0] - centroid[0]), static_cast<float>(p[1] - centroid[1]),
          static_cast<float>(p[2] - centroid[2])};
}

}  // namespace pcl_dise
