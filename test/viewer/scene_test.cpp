// dise_viewer's scene without a window: the estimates per iteration, the colourings, the angle
// error against a truth, and the starting camera of each kind of cloud (framing.h).
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "pcl_dise/io/las_format.h"
#include "test_support.h"
#include "viewer/framing.h"
#include "viewer/scene.h"

namespace {

using namespace pcl_dise::viewer;
using pcl_dise::test::sphereCloud;
using pcl_dise::test::temporaryDir;

// A unit sphere as .xyz with its true normals (.normals), in `dir`.
std::string writeSphere(const std::string& dir, int n) {
  const auto sphere = sphereCloud(n);
  std::ofstream xyz(dir + "/sphere.xyz"), normals(dir + "/sphere.normals");
  for (const auto& p : *sphere) {
    xyz << p.x << ' ' << p.y << ' ' << p.z << '\n';
    normals << p.x << ' ' << p.y << ' ' << p.z << '\n';
  }
  return dir + "/sphere";
}

SceneOptions sphereScene(const std::string& base, int iterations) {
  SceneOptions o{base + ".xyz", base + ".normals", {}};
  o.settings.k = 16;
  o.settings.iterations = iterations;
  return o;
}

TEST(ViewerScene, EstimatesColouringsAndTheError) {
  const std::string base = writeSphere(temporaryDir("viewer_scene"), 3000);
  Scene scene(sphereScene(base, 2));
  ASSERT_EQ(scene.finitePoints().size(), 3000u);
  ASSERT_NE(scene.truth(), nullptr);
  EXPECT_NEAR(scene.diagonal(), 2 * std::sqrt(3.f), 0.1f);
  const Estimate& pca = scene.estimate(0);
  const Estimate& dise = scene.estimate(2);
  EXPECT_EQ(&scene.estimate(2), &dise);  // kept, not recomputed
  // A clean unit sphere of 3,000 points: a few degrees from the truth (curvature over 17 points).
  EXPECT_LT(rmseDegrees(scene, pca), 5.0);
  EXPECT_LT(rmseDegrees(scene, dise), 5.0);
  EXPECT_NE(rmseDegrees(scene, pca), rmseDegrees(scene, dise));  // two methods, not one twice
  for (ColorBy mode : {ColorBy::kNormal, ColorBy::kError, ColorBy::kCurvature}) {
    const std::vector<pcl_dise::viewer::Rgb> colors = colorPoints(scene, dise, mode, 0, 30);
    ASSERT_EQ(colors.size(), 3000u) << modeName(mode);
    for (const auto& c : colors) EXPECT_NE(c, kMissingColor) << modeName(mode);
  }
  // The weights colouring lights the picked point's neighbourhood only: k + 1 points.
  const std::size_t pick = scene.centralPoint();
  std::size_t lit = 0;
  for (const auto& c : colorPoints(scene, pca, ColorBy::kWeights, pick, 30)) lit += c != kMissingColor;
  EXPECT_EQ(lit, 17u);
  EXPECT_EQ(modeName(colorModes().at("curvature")), "curvature");
  // The error bound: every DISE normal has one (the shipped model is calibrated), PCA's none.
  for (const auto& c : colorPoints(scene, dise, ColorBy::kBound, 0, 30)) EXPECT_NE(c, kMissingColor);
  for (const auto& c : colorPoints(scene, pca, ColorBy::kBound, 0, 30)) EXPECT_EQ(c, kMissingColor);
}

TEST(ViewerScene, WithoutATruthTheErrorIsRefused) {
  const std::string base = writeSphere(temporaryDir("viewer_scene_no_truth"), 500);
  SceneOptions o = sphereScene(base, 0);
  o.ground_truth.clear();
  Scene scene(o);
  EXPECT_EQ(scene.truth(), nullptr);
  EXPECT_THROW(colorPoints(scene, scene.estimate(0), ColorBy::kError, 0, 30), std::invalid_argument);
  EXPECT_THROW(rmseDegrees(scene, scene.estimate(0)), std::invalid_argument);
}

TEST(ViewerFraming, AnyOtherCloudFromAThreeQuarterView) {
  const std::string base = writeSphere(temporaryDir("viewer_frame_box"), 500);
  const Scene scene(sphereScene(base, 0));
  const CameraFraming f = frameScene(scene, 1.f);
  EXPECT_EQ(f.kind, CameraFraming::Kind::kBoundingBox);
  EXPECT_STREQ(f.name(), "bounding box, three-quarter view");
  const Eigen::Vector3f direction = (f.position - f.focal_point).normalized();
  EXPECT_GT(direction.x(), 0.f);
  EXPECT_LT(direction.y(), 0.f);
  EXPECT_GT(direction.z(), 0.f);
  EXPECT_EQ(f.up, Eigen::Vector3f(0, 0, 1));
}

TEST(ViewerFraming, AScanFromItsSensorWithAFieldOfViewThatHoldsIt) {
  // A sphere 5 units in front of a sensor at the origin (a PCD VIEWPOINT other than the default).
  const std::string dir = temporaryDir("viewer_frame_scan");
  const auto sphere = sphereCloud(800);
  std::ofstream pcd(dir + "/scan.pcd");
  pcd << "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH " << sphere->size()
      << "\nHEIGHT 1\nVIEWPOINT 0 0 -5 1 0 0 0\nPOINTS " << sphere->size() << "\nDATA ascii\n";
  for (const auto& p : *sphere) pcd << p.x << ' ' << p.y << ' ' << p.z << '\n';
  pcd.close();
  SceneOptions o{dir + "/scan.pcd", "", {}};
  o.settings.iterations = 0;
  const Scene scene(o);
  ASSERT_TRUE(scene.hasSensorPose());
  const float aspect = 1.5f;
  const CameraFraming f = frameScene(scene, aspect);
  EXPECT_EQ(f.kind, CameraFraming::Kind::kSensorPose);
  EXPECT_TRUE(f.position.isApprox(Eigen::Vector3f(0, 0, -5)));
  EXPECT_EQ(f.up, Eigen::Vector3f(0, -1, 0));  // the depth camera's convention
  // Every point lies within the field of view (vertically, and horizontally at the aspect).
  const Eigen::Vector3f look = (f.focal_point - f.position).normalized();
  const Eigen::Vector3f right = look.cross(f.up).normalized(), up = right.cross(look);
  const float tan_half = std::tan(0.5f * f.field_of_view);
  for (const auto& p : scene.cloud()) {
    const Eigen::Vector3f to = p.getVector3fMap() - f.position;
    const float depth = to.dot(look);
    EXPECT_LE(std::abs(to.dot(up)) / depth, tan_half * 1.0001f);
    EXPECT_LE(std::abs(to.dot(right)) / depth, aspect * tan_half * 1.0001f);
  }
  EXPECT_LT(f.near_clip, 4.f);
  EXPECT_GT(f.far_clip, 6.f);
}

TEST(ViewerFraming, AnAerialSurveyFromAboveItsSouthEdge) {
  const std::string dir = temporaryDir("viewer_frame_las");
  const std::vector<std::array<double, 3>> terrain = pcl_dise::test::terrainPoints({512000, 5412000, 300});
  std::array<double, 3> scale, offset;
  pcl_dise::io::chooseQuantization(terrain, scale, offset);
  pcl_dise::io::writeLas(dir + "/survey.las", terrain, std::vector<pcl_dise::io::NormalWithCurvature>(terrain.size()),
                         scale, offset);
  SceneOptions o{dir + "/survey.las", "", {}};
  o.settings.iterations = 0;
  const Scene scene(o);
  EXPECT_TRUE(scene.isAerialSurvey());
  EXPECT_FALSE(scene.hasSensorPose());
  const CameraFraming f = frameScene(scene, 1.f);
  EXPECT_EQ(f.kind, CameraFraming::Kind::kAerialSurvey);
  const Eigen::Vector3f direction = (f.position - f.focal_point).normalized();
  EXPECT_NEAR(direction.z(), 0.866f, 1e-3f);  // 60 degrees down
  EXPECT_LT(direction.y(), 0.f);              // from the south
}

}  // namespace
