// The error bound's calibration (core/error_bound.h): learnt bounds that hold at their level on
// data drawn like the learning data, the interpolation between knots, its JSON and model-file
// round trips, refusals of a broken calibration, and the feature's bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "pcl_dise/core/error_bound.h"
#include "pcl_dise/feature/deep_iterative_normal_estimation.h"
#include "test_support.h"

namespace {

using pcl_dise::boundWeights;
using pcl_dise::ErrorCalibration;

// Errors that grow with the curvature: |N(0, 1)| * 40 * sqrt(curvature) degrees, curvature
// log-uniform over 1e-5 .. 0.3.
void draw(std::size_t n, unsigned seed, std::vector<double>& curvature, std::vector<double>& errors) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> exponent(-5, std::log10(0.3));
  curvature.clear();
  errors.clear();
  for (std::size_t i = 0; i < n; ++i) {
    curvature.push_back(std::pow(10.0, exponent(rng)));
    errors.push_back(std::abs(normal(rng)) * 40 * std::sqrt(curvature.back()));
  }
}

TEST(ErrorBound, ALearntBoundHoldsAtItsLevelOnFreshData) {
  std::vector<double> curvature, errors;
  draw(40000, 1, curvature, errors);
  const ErrorCalibration c = pcl_dise::fitErrorCalibration(curvature, errors, 0.9, 24);
  ASSERT_GE(c.curvature.size(), 20u);
  for (std::size_t i = 1; i < c.curvature.size(); ++i) {
    EXPECT_GT(c.curvature[i], c.curvature[i - 1]);
    EXPECT_GT(c.degrees[i], c.degrees[i - 1]);  // the bound ranks as the curvature does
  }
  draw(40000, 2, curvature, errors);
  std::size_t within = 0;
  for (std::size_t i = 0; i < curvature.size(); ++i) within += errors[i] <= c.bound(static_cast<float>(curvature[i]));
  EXPECT_NEAR(double(within) / double(curvature.size()), 0.9, 0.015);
}

TEST(ErrorBound, ItIsLinearInTheLogarithmBetweenKnotsAndHeldOutside) {
  ErrorCalibration c;
  c.curvature = {1e-4, 1e-2, 1e-1};
  c.degrees = {1, 5, 20};
  EXPECT_FLOAT_EQ(c.bound(1e-6f), 1.f);
  EXPECT_FLOAT_EQ(c.bound(0.f), 1.f);
  EXPECT_FLOAT_EQ(c.bound(1e-3f), 3.f);  // halfway in log between 1e-4 and 1e-2
  EXPECT_NEAR(c.bound(1e-2f), 5.f, 1e-5);
  EXPECT_FLOAT_EQ(c.bound(0.5f), 20.f);
  EXPECT_TRUE(std::isnan(c.bound(NAN)));
  EXPECT_TRUE(std::isnan(ErrorCalibration{}.bound(0.01f)));
}

TEST(ErrorBound, ItRoundTripsThroughJsonAndTheModelFile) {
  std::vector<double> curvature, errors;
  draw(5000, 3, curvature, errors);
  const ErrorCalibration c = pcl_dise::fitErrorCalibration(curvature, errors);
  const ErrorCalibration back = ErrorCalibration::fromJson(c.toJson());
  EXPECT_EQ(back.curvature, c.curvature);
  EXPECT_EQ(back.degrees, c.degrees);
  EXPECT_EQ(back.level, 0.9);

  pcl_dise::Model model = pcl_dise::loadModel(pcl_dise::test::randomModelFile(5));
  EXPECT_TRUE(pcl_dise::errorCalibrationOf(model).empty());
  pcl_dise::setErrorCalibration(model, c);
  const std::string path = pcl_dise::test::temporaryDir("error_bound_model") + "/calibrated.safetensors";
  pcl_dise::saveModel(model, path);
  EXPECT_EQ(pcl_dise::errorCalibrationOf(pcl_dise::loadModel(path)).degrees, c.degrees);
}

TEST(ErrorBound, WhereARunCannotGiveBoundsOneMessageSaysWhy) {
  EXPECT_EQ(pcl_dise::errorBoundUnavailable(0, nullptr, ""), "the error bound is DISE's: it needs iterations above 0");
  EXPECT_EQ(pcl_dise::errorBoundUnavailable(4, nullptr, "m.safetensors"), "");  // the model not read yet
  pcl_dise::Model model = pcl_dise::loadModel(pcl_dise::test::randomModelFile(5));
  EXPECT_EQ(pcl_dise::errorBoundUnavailable(4, &model, "m.safetensors"),
            "the model 'm.safetensors' carries no error calibration, which the error bound needs "
            "(scripts/calibrate_error_bound.py adds one)");
  ErrorCalibration c;
  c.curvature = {1e-3, 1e-1};
  c.degrees = {2, 30};
  pcl_dise::setErrorCalibration(model, c);
  EXPECT_EQ(pcl_dise::errorBoundUnavailable(4, &model, "m.safetensors"), "");
}

TEST(ErrorBound, ABrokenCalibrationIsRefusedSayingWhy) {
  const auto refusal = [](const std::string& json) {
    try {
      ErrorCalibration::fromJson(json);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refusal("not json").find("cannot be read"), std::string::npos);
  EXPECT_NE(refusal(R"({"level": 1.5, "curvature": [0.1, 0.2], "degrees": [1, 2]})").find("level"), std::string::npos);
  EXPECT_NE(refusal(R"({"level": 0.9, "curvature": [0.2, 0.1], "degrees": [1, 2]})").find("increase"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"level": 0.9, "curvature": [0.1, 0.2], "degrees": [2, 1]})").find("decrease"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"level": 0.9, "curvature": [0.1], "degrees": [1]})").find("2 or more"), std::string::npos);
  EXPECT_EQ(refusal(R"({"level": 0.9, "curvature": [0.1, 0.2], "degrees": [1, 2]})"), "");
  EXPECT_THROW(pcl_dise::fitErrorCalibration({0.1}, {1.0}), std::invalid_argument);
  EXPECT_THROW(pcl_dise::fitErrorCalibration({0.1, 0.2}, {1.0}), std::invalid_argument);
  EXPECT_THROW(pcl_dise::fitErrorCalibration({0.1, 0.2}, {1.0, 2.0}, 1.0), std::invalid_argument);
}

TEST(ErrorBound, WeightsAreInverseVarianceWithTheBetterHalfAtOne) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> weights = boundWeights({1.f, 2.f, 4.f, 8.f, nan, 0.5f});
  ASSERT_EQ(weights.size(), 6u);
  // The median of the five finite bounds is 2: bounds up to it weigh 1, the others (2 / bound)^2.
  EXPECT_FLOAT_EQ(weights[0], 1.f);
  EXPECT_FLOAT_EQ(weights[1], 1.f);
  EXPECT_FLOAT_EQ(weights[2], 0.25f);
  EXPECT_FLOAT_EQ(weights[3], 0.0625f);
  EXPECT_EQ(weights[4], 0.f);  // no normal
  EXPECT_FLOAT_EQ(weights[5], 1.f);
  EXPECT_EQ(boundWeights({nan, nan}), (std::vector<float>{0.f, 0.f}));
  EXPECT_TRUE(boundWeights({}).empty());
}

TEST(ErrorBound, TheFeatureGivesEachNormalItsCalibratedBound) {
  pcl_dise::Model model = pcl_dise::loadModel(pcl_dise::test::randomModelFile(5));
  ErrorCalibration c;
  c.curvature = {1e-4, 1e-1};
  c.degrees = {2, 30};
  pcl_dise::setErrorCalibration(model, c);
  const auto cloud = pcl_dise::test::sphereCloud(2000);
  cloud->push_back(pcl::PointXYZ(NAN, NAN, NAN));

  pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> dise;
  dise.setInputCloud(cloud);
  dise.setKSearch(16);
  dise.setIterations(2);
  dise.setModel(std::make_shared<const pcl_dise::Model>(model));
  pcl::PointCloud<pcl::Normal> normals;
  dise.compute(normals);
  std::vector<float> degrees;
  ASSERT_TRUE(dise.computeErrorBounds(normals, degrees));
  ASSERT_EQ(degrees.size(), normals.size());
  for (std::size_t i = 0; i + 1 < normals.size(); ++i) EXPECT_EQ(degrees[i], c.bound(normals[i].curvature)) << i;
  EXPECT_TRUE(std::isnan(degrees.back()));  // no normal, no bound

  dise.setModel(std::make_shared<const pcl_dise::Model>(pcl_dise::loadModel(pcl_dise::test::randomModelFile(5))));
  EXPECT_FALSE(dise.computeErrorBounds(normals, degrees));  // no calibration
  EXPECT_TRUE(std::isnan(degrees[0]));
  dise.setModel(std::make_shared<const pcl_dise::Model>(model));
  dise.setIterations(0);
  EXPECT_FALSE(dise.computeErrorBounds(normals, degrees));  // PCA's normals
}

}  // namespace
