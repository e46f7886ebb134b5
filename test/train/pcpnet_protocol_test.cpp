// The PCPNet protocol's arithmetic on numbers worked out by hand: per-cloud RMSE, per-category
// means, the average over categories, stages, good-point shares and the thin structures' row.
#include <gtest/gtest.h>

#include <cmath>

#include "pcl_dise/train/pcpnet_protocol.h"

namespace {

using pcl_dise::train::ProtocolScores;

TEST(PcpnetProtocol, TheSixCategoriesInOrder) {
  const auto& c = pcl_dise::train::pcpnetCategories();
  ASSERT_EQ(c.size(), 6u);
  EXPECT_EQ(c.front(), "no_noise");
  EXPECT_EQ(c.back(), "vardensity_gradient");
}

TEST(PcpnetProtocol, AngleErrorsAtTheEvaluatedPointsOnly) {
  pcl_dise::train::LoadedCloud truth;
  truth.cloud.points = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  truth.cloud.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  truth.pidx = {0, 2};
  const float normals[3][3] = {{0, 0, -1}, {1, 0, 0}, {NAN, NAN, NAN}};
  const std::vector<double> e = pcl_dise::train::angleErrorsAt([&](std::size_t i) { return normals[i]; }, truth);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_NEAR(e[0], 0.0, 1e-9);   // unoriented: the flipped normal is right
  EXPECT_NEAR(e[1], 90.0, 1e-9);  // NaN counts 90
}

TEST(PcpnetProtocol, RootMeanSquareAndGoodPoints) {
  EXPECT_DOUBLE_EQ(pcl_dise::train::rootMeanSquare({3, 4}), std::sqrt(12.5));
  EXPECT_TRUE(std::isnan(pcl_dise::train::rootMeanSquare({})));
  const std::vector<double> shares = pcl_dise::train::goodPointShares({1, 7, 12, 89, 95});
  ASSERT_EQ(shares.size(), 18u);
  EXPECT_DOUBLE_EQ(shares[0], 0.2);   // under 5
  EXPECT_DOUBLE_EQ(shares[1], 0.4);   // under 10
  EXPECT_DOUBLE_EQ(shares[2], 0.6);   // under 15
  EXPECT_DOUBLE_EQ(shares[17], 0.8);  // under 90
}

TEST(PcpnetProtocol, CategoriesAreMeansOfCloudsAndTheAverageAMeanOfCategories) {
  ProtocolScores s;
  // Two stages each (PCA and one iteration): RMSE of {3, 4} is sqrt(12.5), of {6} is 6.
  s.add("no_noise", "cube", {{6}, {3, 4}});
  s.add("no_noise", "thin_plate", {{6}, {6}});
  s.add("low_noise", "cube_noise", {{10}, {2}});
  EXPECT_EQ(s.categories(), (std::vector<std::string>{"no_noise", "low_noise"}));
  EXPECT_DOUBLE_EQ(s.categoryRmse("no_noise"), (std::sqrt(12.5) + 6) / 2);
  EXPECT_EQ(s.stageRmse("no_noise"), (std::vector<double>{6, (std::sqrt(12.5) + 6) / 2}));
  EXPECT_DOUBLE_EQ(s.average(), ((std::sqrt(12.5) + 6) / 2 + 2) / 2);
  EXPECT_EQ(s.stageAverages(), (std::vector<double>{8, ((std::sqrt(12.5) + 6) / 2 + 2) / 2}));
  EXPECT_DOUBLE_EQ(s.cloudRmse().at("low_noise").at("cube_noise"), 2);
  // Good points pool the category's points: {3, 4, 6}.
  EXPECT_DOUBLE_EQ(s.goodPoints("no_noise")[0], 2.0 / 3.0);
  std::map<std::string, double> thin;
  EXPECT_DOUBLE_EQ(s.thinStructureAverage(&thin), 6);  // only no_noise has a thin structure
  EXPECT_EQ(thin.size(), 1u);
  EXPECT_THROW(s.add("no_noise", "bunny", {{1}}), std::invalid_argument);  // another number of stages
  EXPECT_THROW(s.categoryRmse("high_noise"), std::out_of_range);
}

TEST(PcpnetProtocol, NoThinStructuresGiveNan) {
  ProtocolScores s;
  s.add("no_noise", "cube", {{1}});
  EXPECT_TRUE(std::isnan(s.thinStructureAverage()));
}

}  // namespace
