// NormalSettings: the one check of every front end's options, the orientation names, and the
// model each neighbourhood gets.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "pcl_dise/core/model.h"
#include "pcl_dise/core/normal_settings.h"
#include "test_support.h"

namespace {

using pcl_dise::NormalSettings;
using pcl_dise::Orientation;

// The message of the OptionsError `settings.validate(false)` throws, or "" where it throws none.
std::string problem(const NormalSettings& settings) {
  return pcl_dise::test::optionsErrorOf([&] { settings.validate(false); });
}

TEST(NormalSettings, EveryOrientationHasOneNameBothWays) {
  for (Orientation o :
       {Orientation::kViewpoint, Orientation::kUp, Orientation::kTree, Orientation::kClosed, Orientation::kNone})
    EXPECT_EQ(pcl_dise::orientationFromName(pcl_dise::orientationName(o)), o);
  EXPECT_EQ(pcl_dise::orientationFromName("mst"), Orientation::kTree);
  try {
    pcl_dise::orientationFromName("sideways");
    FAIL() << "no error for an unknown orientation";
  } catch (const pcl_dise::OptionsError& e) {
    EXPECT_EQ(std::string(e.what()), "orient must be one of viewpoint, up, mst, closed or none, not 'sideways'");
  }
}

TEST(NormalSettings, SignsAndWholeCloudModes) {
  EXPECT_EQ(pcl_dise::normalSignOf(Orientation::kViewpoint), pcl_dise::NormalSign::kTowardsViewpoint);
  EXPECT_EQ(pcl_dise::normalSignOf(Orientation::kUp), pcl_dise::NormalSign::kUp);
  for (Orientation o : {Orientation::kTree, Orientation::kClosed, Orientation::kNone})
    EXPECT_EQ(pcl_dise::normalSignOf(o), pcl_dise::NormalSign::kPlaneFit);
  EXPECT_TRUE(pcl_dise::orientsWholeCloud(Orientation::kTree));
  EXPECT_TRUE(pcl_dise::orientsWholeCloud(Orientation::kClosed));
  EXPECT_FALSE(pcl_dise::orientsWholeCloud(Orientation::kUp));
}

TEST(NormalSettings, TheNeighbourhoodAndItsModel) {
  NormalSettings s;
  EXPECT_EQ(s.neighbors(), 64);
  EXPECT_EQ(s.modelPath(), pcl_dise::defaultModelPath(64));
  s.k = 32;
  EXPECT_EQ(s.modelPath(), pcl_dise::defaultModelPath(32));
  s.k = 0, s.radius = 0.1;
  EXPECT_EQ(s.neighbors(), 0);
  EXPECT_EQ(s.modelPath(), pcl_dise::defaultModelPath(64));  // a radius search: the k = 64 model
  s.model = "mine.safetensors";
  EXPECT_EQ(s.modelPath(), "mine.safetensors");
}

TEST(NormalSettings, ValuesOutOfRangeAreOptionsErrors) {
  EXPECT_EQ(problem(NormalSettings()), "");
  auto with = [](auto change) {
    NormalSettings s;
    change(s);
    return problem(s);
  };
  EXPECT_NE(with([](NormalSettings& s) { s.k = -1; }).find("k must not be negative"), std::string::npos);
  EXPECT_NE(with([](NormalSettings& s) { s.radius = -1; }).find("radius must be a positive number"), std::string::npos);
  EXPECT_NE(with([](NormalSettings& s) { s.radius = NAN; }).find("radius"), std::string::npos);
  EXPECT_EQ(with([](NormalSettings& s) { s.k = 8, s.radius = 0.1; }), "set k or radius, not both");
  EXPECT_EQ(with([](NormalSettings& s) { s.max_neighbors = 8; }), "max_neighbors needs radius");
  EXPECT_EQ(with([](NormalSettings& s) { s.radius = 0.1, s.max_neighbors = 8; }), "");
  EXPECT_NE(with([](NormalSettings& s) { s.iterations = 256; }).find("iterations must be in 0..255"),
            std::string::npos);
  EXPECT_NE(with([](NormalSettings& s) { s.settle_degrees = -1; }).find("settle"), std::string::npos);
  EXPECT_NE(with([](NormalSettings& s) { s.orientation_neighbors = 0; }).find("orient_neighbors must be at least 1"),
            std::string::npos);
  EXPECT_EQ(with([](NormalSettings& s) { s.viewpoint = {{0, INFINITY, 0}}; }), "viewpoint must be 3 finite numbers");
  EXPECT_EQ(with([](NormalSettings& s) { s.precision = pcl_dise::Precision::Bf16; }), "");
  EXPECT_EQ(
      with([](NormalSettings& s) { s.precision = pcl_dise::Precision::Bf16, s.backend = pcl_dise::Backend::Torch; }),
      "precision bf16 does not run on the torch backend");
}

TEST(NormalSettings, PrecisionHasOneNameBothWays) {
  for (pcl_dise::Precision p : {pcl_dise::Precision::Float, pcl_dise::Precision::Bf16})
    EXPECT_EQ(pcl_dise::precisionFromString(pcl_dise::toString(p)), p);
  EXPECT_EQ(pcl_dise::toString(pcl_dise::Precision::Bf16), "bf16");
  EXPECT_THROW(pcl_dise::precisionFromString("fp16"), pcl_dise::OptionsError);
}

TEST(NormalSettings, AMissingModelIsAFileErrorOnlyWhereTheIterationsNeedIt) {
  NormalSettings s;
  s.model = "/nonexistent/model.safetensors";
  EXPECT_THROW(s.validate(), pcl_dise::FileError);
  EXPECT_NO_THROW(s.validate(false));
  s.iterations = 0;
  EXPECT_NO_THROW(s.validate());
}

}  // namespace
