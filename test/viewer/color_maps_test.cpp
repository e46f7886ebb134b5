// dise_viewer's colour maps: hand-checked values, NaN handling, unoriented symmetry, monotone
// brightness of the sequential map.
#include <cmath>

#include <gtest/gtest.h>

#include "pcl_dise/core/angle_error.h"

#include "viewer/color_maps.h"

namespace {

using namespace pcl_dise::viewer;

int brightness(const Rgb& c) { return 299 * c.r + 587 * c.g + 114 * c.b; }

TEST(ColorMaps, NormalColourIsTheAbsoluteDirection) {
  const float x[3] = {2, 0, 0}, minus_y[3] = {0, -1, 0}, diagonal[3] = {1, -1, 0};
  EXPECT_EQ(normalColor(x), (Rgb{255, 0, 0}));
  EXPECT_EQ(normalColor(minus_y), (Rgb{0, 255, 0}));
  EXPECT_EQ(normalColor(diagonal), (Rgb{180, 180, 0}));
  const float flipped[3] = {-1, 1, 0};
  EXPECT_EQ(normalColor(diagonal), normalColor(flipped));
}

TEST(ColorMaps, MissingValuesAreGrey) {
  const float nan3[3] = {NAN, NAN, NAN}, zero[3] = {0, 0, 0}, x[3] = {1, 0, 0};
  EXPECT_EQ(normalColor(nan3), kMissingColor);
  EXPECT_EQ(normalColor(zero), kMissingColor);
  EXPECT_EQ(sequentialColor(NAN), kMissingColor);
  EXPECT_TRUE(std::isnan(pcl_dise::unorientedAngleDegrees(nan3, x)));
  EXPECT_EQ(errorColor(pcl_dise::unorientedAngleDegrees(zero, x), 30), kMissingColor);
  EXPECT_EQ(weightColor(0.5f, 0.f), kMissingColor);
}

TEST(ColorMaps, SequentialMapClampsAndBrightens) {
  EXPECT_EQ(sequentialColor(-1), sequentialColor(0));
  EXPECT_EQ(sequentialColor(7), sequentialColor(1));
  // Brighter with t up to the yellow stop at 2/3 (then it turns red, still far from the start).
  for (int i = 1; i <= 20; ++i)
    EXPECT_GT(brightness(sequentialColor(i / 30.f)), brightness(sequentialColor((i - 1) / 30.f)));
  EXPECT_GT(brightness(sequentialColor(1)), brightness(sequentialColor(0)));
  EXPECT_NE(sequentialColor(1), sequentialColor(2.f / 3.f));
}

TEST(ColorMaps, AngleErrorsAreUnorientedAndSaturate) {
  const float a[3] = {1, 0, 0}, b[3] = {-1, 0, 0}, c[3] = {0, 0, 3}, d[3] = {1, 1, 0};
  EXPECT_NEAR(pcl_dise::unorientedAngleDegrees(a, b), 0.f, 1e-3);
  EXPECT_NEAR(pcl_dise::unorientedAngleDegrees(a, c), 90.f, 1e-3);
  EXPECT_NEAR(pcl_dise::unorientedAngleDegrees(b, d), 45.f, 1e-3);
  EXPECT_EQ(errorColor(45, 30), errorColor(30, 30));
  EXPECT_EQ(errorColor(0, 30), sequentialColor(0));
  EXPECT_EQ(curvatureColor(1.f / 6.f, 1.f / 3.f), sequentialColor(0.5f));
  EXPECT_EQ(weightColor(2, 4), sequentialColor(0.5f));
}

}  // namespace
