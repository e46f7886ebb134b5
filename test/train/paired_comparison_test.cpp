// compareByShape on hand-made per-cloud errors: pairing by shape name, the mean difference, its
// standard error, and shapes left out when a category lacks them.
#include "pcl_dise/train/paired_comparison.h"

#include <cmath>

#include <gtest/gtest.h>

namespace {

using pcl_dise::train::CloudErrors;
using pcl_dise::train::compareByShape;

// Two categories; `box` and `box_rounded` are different shapes (the longer prefix wins).
const CloudErrors kA = {
    {"no_noise", {{"box", 3.0}, {"box_rounded", 5.0}, {"cow", 4.0}}},
    {"low_noise", {{"box_noise_1e-2", 6.0}, {"box_rounded_noise_1e-2", 9.0}, {"cow_noise_1e-2", 8.0}}}};
const CloudErrors kB = {
    {"no_noise", {{"box", 4.0}, {"box_rounded", 5.0}, {"cow", 3.0}}},
    {"low_noise", {{"box_noise_1e-2", 7.0}, {"box_rounded_noise_1e-2", 7.0}, {"cow_noise_1e-2", 8.0}}}};

TEST(PairedComparison, MeanDifferenceAndStandardErrorOverShapes) {
  // Per shape, (a - b) averaged over the two categories: box -1, box_rounded +1, cow +0.5.
  const auto r = compareByShape(kA, kB, "no_noise");
  EXPECT_EQ(r.shapes, 3u);
  EXPECT_NEAR(r.mean_difference, 0.5 / 3, 1e-12);
  // Sample standard deviation of {-1, 1, 0.5} over sqrt(3).
  const double m = 0.5 / 3, var = ((-1 - m) * (-1 - m) + (1 - m) * (1 - m) + (0.5 - m) * (0.5 - m)) / 2;
  EXPECT_NEAR(r.standard_error, std::sqrt(var / 3), 1e-12);
  EXPECT_EQ(r.a_better, 1u);
  // Swapping the methods flips the sign only.
  const auto swapped = compareByShape(kB, kA, "no_noise");
  EXPECT_NEAR(swapped.mean_difference, -r.mean_difference, 1e-12);
  EXPECT_NEAR(swapped.standard_error, r.standard_error, 1e-12);
  EXPECT_EQ(swapped.a_better, 2u);
}

TEST(PairedComparison, ShapesMissingFromACategoryAreLeftOut) {
  CloudErrors b = kB;
  b["low_noise"].erase("cow_noise_1e-2");
  const auto r = compareByShape(kA, b, "no_noise");
  EXPECT_EQ(r.shapes, 2u);
  EXPECT_NEAR(r.mean_difference, 0.0, 1e-12);
  EXPECT_NEAR(r.standard_error, 1.0, 1e-12);
}

TEST(PairedComparison, TooFewShapesGiveNaN) {
  const CloudErrors a = {{"no_noise", {{"box", 3.0}}}};
  const CloudErrors b = {{"no_noise", {{"box", 2.0}}}};
  const auto one = compareByShape(a, b, "no_noise");
  EXPECT_EQ(one.shapes, 1u);
  EXPECT_DOUBLE_EQ(one.mean_difference, 1.0);
  EXPECT_TRUE(std::isnan(one.standard_error));
  const auto none = compareByShape(a, {{"no_noise", {{"cow", 2.0}}}}, "no_noise");
  EXPECT_EQ(none.shapes, 0u);
  EXPECT_TRUE(std::isnan(none.mean_difference));
}

}  // namespace
