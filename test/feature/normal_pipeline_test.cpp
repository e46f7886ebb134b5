// NormalPipeline: the settings give what the feature and pcl::ConsistentNormalOrientation give
// configured by hand, on a cloud in a local frame with an offset.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "pcl_dise/feature/consistent_normal_orientation.h"
#include "pcl_dise/feature/normal_pipeline.h"
#include "test_support.h"

namespace {

using pcl_dise::NormalPipeline;
using pcl_dise::NormalSettings;
using pcl_dise::Orientation;
using namespace pcl_dise::test;

bool sameNormals(const pcl::PointCloud<pcl::Normal>& a, const pcl::PointCloud<pcl::Normal>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (int c = 0; c < 4; ++c) {
      const float x = c < 3 ? a[i].normal[c] : a[i].curvature, y = c < 3 ? b[i].normal[c] : b[i].curvature;
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
    }
  return true;
}

TEST(NormalPipeline, TheSettingsAreTheFeaturesSetters) {
  const auto cloud = sphereCloud(3000);
  NormalSettings settings;
  settings.k = 16;
  settings.iterations = 2;
  settings.orientation = Orientation::kUp;
  settings.viewpoint = {{100, 0, 0}};  // ignored by up
  NormalPipeline pipeline(settings);
  EXPECT_EQ(pipeline.modelPath(), settings.modelPath());
  pcl::PointCloud<pcl::Normal> by_pipeline, by_hand;
  const pcl_dise::NormalsOutcome outcome = pipeline.compute(cloud, by_pipeline);
  EXPECT_FALSE(outcome.cancelled);
  EXPECT_FALSE(outcome.oriented);
  EXPECT_EQ(outcome.without_normal, 0u);

  pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> dise;
  dise.setInputCloud(cloud);
  dise.setKSearch(16);
  dise.setIterations(2);
  dise.setModel(pipeline.model());
  dise.setNormalSign(pcl_dise::NormalSign::kUp);
  dise.compute(by_hand);
  EXPECT_TRUE(sameNormals(by_pipeline, by_hand));
  for (const pcl::Normal& n : by_pipeline) EXPECT_GE(n.normal_z, 0.f);
}

TEST(NormalPipeline, TheViewpointIsInTheCloudsOwnCoordinates) {
  // The same sphere, once at the origin and once shifted by an offset and stored relative to it.
  const auto cloud = sphereCloud(2000);
  NormalSettings settings;
  settings.k = 16;
  settings.iterations = 0;
  settings.viewpoint = {{1000.0, 2000.0, 3000.0}};  // the sphere's centre after the shift: every normal faces in
  NormalPipeline pipeline(settings);
  pcl::PointCloud<pcl::Normal> normals;
  pipeline.compute(cloud, normals, {1000.0, 2000.0, 3000.0});
  std::size_t inward = 0;
  for (std::size_t i = 0; i < cloud->size(); ++i)
    inward += normals[i].getNormalVector3fMap().dot((*cloud)[i].getVector3fMap()) < 0;
  EXPECT_EQ(inward, cloud->size());
}

TEST(NormalPipeline, ClosedShapesFaceOutwardAndAreReported) {
  const auto cloud = boxCloud(6000);
  NormalSettings settings;
  settings.k = 16;
  settings.iterations = 0;
  settings.orientation = Orientation::kClosed;
  NormalPipeline pipeline(settings);
  pcl::PointCloud<pcl::Normal> normals;
  bool told = false;
  pipeline.setProgressCallback([&](const pcl_dise::Progress& p) {
    told = told || std::string(p.stage) == "orientation";
    return true;
  });
  const pcl_dise::NormalsOutcome outcome = pipeline.compute(cloud, normals);
  EXPECT_TRUE(told);
  ASSERT_TRUE(outcome.oriented);
  EXPECT_EQ(outcome.orientation.oriented, cloud->size());
  EXPECT_FALSE(outcome.seeded_at_viewpoint);
  std::size_t outward = 0;
  for (std::size_t i = 0; i < cloud->size(); ++i)
    outward +=
        normals[i].getNormalVector3fMap().dot((*cloud)[i].getVector3fMap() - Eigen::Vector3f::Constant(0.5f)) > 0;
  EXPECT_EQ(outward, cloud->size());
}

// compute() hands the estimation's neighbourhoods to the orientation (which then need not search):
// the same sides and confidences as orienting the same normals afterwards, with or without the
// kernel weights kept. A noisy thin slab, whose
// sides come from the middles of its walls (the 64 nearest points), and a box (the outside grid).
TEST(NormalPipeline, TheOrientationReadsTheEstimationsNeighborhoods) {
  pcl::PointCloud<pcl::PointXYZ>::Ptr slab(new pcl::PointCloud<pcl::PointXYZ>);
  std::mt19937 random(5);
  std::uniform_real_distribution<float> unit(-0.5f, 0.5f);
  std::normal_distribution<float> noise(0.f, 0.006f);
  for (int i = 0; i < 30000; ++i)
    slab->push_back(
        {unit(random) + noise(random), unit(random) + noise(random), (i % 2 ? 0.01f : -0.01f) + noise(random)});
  for (const auto& cloud : {slab, boxCloud(6000)}) {
    NormalSettings settings;
    settings.iterations = 0;  // the k = 64 search of the shipped models
    settings.orientation = Orientation::kNone;
    pcl::PointCloud<pcl::Normal> afterwards, in_compute;
    NormalPipeline(settings).compute(cloud, afterwards);
    settings.orientation = Orientation::kClosed;
    NormalPipeline pipeline(settings);
    const pcl_dise::NormalsOutcome searched = pipeline.orient(cloud, afterwards);
    const pcl_dise::NormalsOutcome read = pipeline.compute(cloud, in_compute);
    ASSERT_NE(pipeline.estimator().getNeighborhoods().rows, nullptr);
    EXPECT_EQ(searched.orientation.wall_middles, read.orientation.wall_middles);
    EXPECT_EQ(read.orientation.wall_middles, cloud == slab);
    EXPECT_TRUE(sameNormals(afterwards, in_compute));
    EXPECT_EQ(searched.confidence, read.confidence);
    // Where the kernel weights are not kept, the neighbourhoods are freed once read.
    pipeline.estimator().setStoreKernelWeights(false);
    pcl::PointCloud<pcl::Normal> lean;
    EXPECT_EQ(pipeline.compute(cloud, lean).confidence, read.confidence);
    EXPECT_TRUE(sameNormals(lean, in_compute));
    EXPECT_EQ(pipeline.estimator().getNeighborhoods().rows, nullptr);
  }
}

TEST(NormalPipeline, StoppingIsReportedNotThrown) {
  NormalSettings settings;
  settings.k = 16;
  settings.iterations = 0;
  settings.orientation = Orientation::kTree;
  NormalPipeline pipeline(settings);
  pipeline.setProgressCallback([](const pcl_dise::Progress& p) { return std::string(p.stage) != "orientation"; });
  pcl::PointCloud<pcl::Normal> normals;
  const pcl_dise::NormalsOutcome outcome = pipeline.compute(sphereCloud(1000), normals);
  EXPECT_TRUE(outcome.cancelled);
  EXPECT_TRUE(normals.empty());
}

TEST(NormalPipeline, BadSettingsAndSeedsAreOptionsErrors) {
  NormalSettings settings;
  settings.k = 8, settings.radius = 0.1;
  EXPECT_THROW(NormalPipeline{settings}, pcl_dise::OptionsError);
  settings.radius = 0, settings.iterations = 0, settings.orientation_seed = 5000;
  const NormalPipeline pipeline(settings);
  const auto cloud = sphereCloud(1000);
  pcl::PointCloud<pcl::Normal> normals(cloud->width, cloud->height);
  EXPECT_THROW(pipeline.orient(cloud, normals), pcl_dise::OptionsError);
}

}  // namespace
