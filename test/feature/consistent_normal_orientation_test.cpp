// pcl::ConsistentNormalOrientation on PCL clouds: DISE's (here PCA's) unoriented normals of closed
// and open shapes, the viewpoint rules, and its errors.
#include <gtest/gtest.h>

#include "pcl_dise/feature/consistent_normal_orientation.h"
#include "pcl_dise/feature/deep_iterative_normal_estimation.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::test;

pcl::PointCloud<pcl::Normal> unorientedNormals(const pcl::PointCloud<pcl::PointXYZ>::Ptr& cloud) {
  pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> estimation;
  estimation.setInputCloud(cloud);
  estimation.setKSearch(16);
  estimation.setIterations(0);
  estimation.setFlipTowardsViewPoint(false);
  pcl::PointCloud<pcl::Normal> normals;
  estimation.compute(normals);
  return normals;
}

// Points whose normal has a positive dot product with `outward(p)`.
template <typename Outward>
std::size_t countFacing(const pcl::PointCloud<pcl::PointXYZ>& cloud, const pcl::PointCloud<pcl::Normal>& normals,
                        Outward outward) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < cloud.size(); ++i)
    count += normals[i].getNormalVector3fMap().dot(outward(cloud[i].getVector3fMap())) > 0.f;
  return count;
}

TEST(ConsistentNormalOrientation, SphereAndBoxFaceOutward) {
  const std::pair<pcl::PointCloud<pcl::PointXYZ>::Ptr, Eigen::Vector3f> shapes[] = {
      {sphereCloud(4000), Eigen::Vector3f::Zero()}, {boxCloud(6000), Eigen::Vector3f::Constant(0.5f)}};
  for (const auto& [cloud, centre] : shapes) {
    pcl::PointCloud<pcl::Normal> normals = unorientedNormals(cloud);
    const auto out = [&centre = centre](const Eigen::Vector3f& p) -> Eigen::Vector3f { return p - centre; };
    ASSERT_LT(countFacing(*cloud, normals, out), cloud->size());  // the plane fit's own sign is not outward
    pcl::ConsistentNormalOrientation<pcl::PointXYZ, pcl::Normal> orientation;
    orientation.setInputCloud(cloud);
    EXPECT_FALSE(orientation.getClosedShapes());
    ASSERT_TRUE(orientation.orient(normals));
    EXPECT_EQ(countFacing(*cloud, normals, out), cloud->size());
    EXPECT_EQ(orientation.getReport().oriented, cloud->size());
    EXPECT_EQ(orientation.getReport().parts, 1u);
  }
}

TEST(ConsistentNormalOrientation, TheSensorOriginSeedsOnlyWhereItIsNotTheDefault) {
  auto plane = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 40; ++j) plane->push_back(pcl::PointXYZ(0.02f * i, 0.02f * j, 1.f));
  pcl::PointCloud<pcl::Normal> normals = unorientedNormals(plane);
  const auto up = [](const Eigen::Vector3f&) -> Eigen::Vector3f { return Eigen::Vector3f::UnitZ(); };
  pcl::ConsistentNormalOrientation<pcl::PointXYZ, pcl::Normal> orientation;
  orientation.setInputCloud(plane);
  orientation.useSensorOriginAsViewPoint();  // (0, 0, 0): says nothing, the topmost rule faces +z
  ASSERT_TRUE(orientation.orient(normals));
  EXPECT_EQ(countFacing(*plane, normals, up), plane->size());
  plane->sensor_origin_ = Eigen::Vector4f(0.4f, 0.4f, 3.f, 0.f);  // above: +z as well
  ASSERT_TRUE(orientation.orient(normals));
  EXPECT_EQ(countFacing(*plane, normals, up), plane->size());
  orientation.setViewPoint(0.4f, 0.4f, -2.f);  // below: -z
  ASSERT_TRUE(orientation.orient(normals));
  EXPECT_EQ(countFacing(*plane, normals, up), 0u);
}

TEST(ConsistentNormalOrientation, PointTypesWithNormalsInstantiate) {
  auto cloud = pcl::make_shared<pcl::PointCloud<pcl::PointNormal>>();
  const auto sphere = sphereCloud(500);
  for (const auto& p : *sphere) {
    pcl::PointNormal q;
    q.getVector3fMap() = p.getVector3fMap();
    q.getNormalVector3fMap() = -p.getVector3fMap();  // inward
    cloud->push_back(q);
  }
  pcl::PointCloud<pcl::PointNormal> normals = *cloud;
  pcl::ConsistentNormalOrientation<pcl::PointNormal, pcl::PointNormal> orientation;
  orientation.setInputCloud(cloud);
  ASSERT_TRUE(orientation.orient(normals));
  for (const auto& q : normals) EXPECT_GT(q.getNormalVector3fMap().dot(q.getVector3fMap()), 0.f);
  EXPECT_EQ(orientation.getReport().flipped, 500u);
}

TEST(ConsistentNormalOrientation, ErrorsAreReportedNotThrown) {
  pcl::ConsistentNormalOrientation<pcl::PointXYZ, pcl::Normal> orientation;
  pcl::PointCloud<pcl::Normal> normals;
  EXPECT_FALSE(orientation.orient(normals));  // no input
  const auto cloud = sphereCloud(100);
  orientation.setInputCloud(cloud);
  normals.resize(99);
  EXPECT_FALSE(orientation.orient(normals));  // size mismatch
  normals = unorientedNormals(cloud);
  orientation.setSeedIndex(100);
  EXPECT_FALSE(orientation.orient(normals));  // seed out of range
  orientation.setSeedIndex(-1);
  orientation.setKSearch(0);
  EXPECT_FALSE(orientation.orient(normals));
  // An empty cloud and all-NaN normals are no error: nothing to orient, and the report says so.
  orientation.setKSearch(10);
  for (auto& n : normals) n.normal_x = n.normal_y = n.normal_z = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(orientation.orient(normals));
  EXPECT_EQ(orientation.getReport().without_normal, 100u);
  EXPECT_TRUE(std::isnan(normals[0].normal_x));
  orientation.setInputCloud(pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>());
  normals.clear();
  EXPECT_TRUE(orientation.orient(normals));
  EXPECT_EQ(orientation.getReport().oriented, 0u);
}

}  // namespace
