// The PCL_NO_PRECOMPILE path: a custom point type compiles against the header-only implementation.
#define PCL_NO_PRECOMPILE
#include <gtest/gtest.h>
#include <pcl/point_types.h>

#include "pcl_dise/feature/consistent_normal_orientation.h"
#include "pcl_dise/feature/deep_iterative_normal_estimation.h"
#include "test_support.h"

struct EIGEN_ALIGN16 ScanPoint {
  PCL_ADD_POINT4D;
  float intensity;
  std::uint16_t ring;
  PCL_MAKE_ALIGNED_OPERATOR_NEW
};
POINT_CLOUD_REGISTER_POINT_STRUCT(ScanPoint,
                                  (float, x, x)(float, y, y)(float, z, z)(float, intensity, intensity)(std::uint16_t,
                                                                                                       ring, ring))

pcl::PointCloud<ScanPoint>::Ptr scanSphere() {
  pcl::PointCloud<ScanPoint>::Ptr cloud(new pcl::PointCloud<ScanPoint>);
  const auto sphere = pcl_dise::test::sphereCloud(200);
  for (const auto& p : *sphere) {
    ScanPoint q;
    q.x = p.x;
    q.y = p.y;
    q.z = p.z;
    q.intensity = 1.f;
    q.ring = 0;
    cloud->push_back(q);
  }
  return cloud;
}

TEST(NoPrecompile, CustomPointType) {
  const pcl::PointCloud<ScanPoint>::Ptr cloud = scanSphere();
  pcl::DeepIterativeNormalEstimation<ScanPoint, pcl::Normal> dise;
  dise.setInputCloud(cloud);
  dise.setKSearch(12);
  dise.setModelPath(pcl_dise::test::randomModelFile(1));
  pcl::PointCloud<pcl::Normal> out;
  dise.compute(out);
  ASSERT_EQ(out.size(), 200u);
  for (std::size_t i = 0; i < out.size(); ++i)
    EXPECT_GT(std::fabs(out[i].getNormalVector3fMap().dot((*cloud)[i].getVector3fMap())), 0.9f);
}

TEST(NoPrecompile, CustomPointTypeOrientation) {
  const pcl::PointCloud<ScanPoint>::Ptr cloud = scanSphere();
  pcl::PointCloud<pcl::Normal> normals;
  for (std::size_t i = 0; i < cloud->size(); ++i) {
    const Eigen::Vector3f p = (*cloud)[i].getVector3fMap();
    normals.push_back(pcl::Normal(i % 2 ? p.x() : -p.x(), i % 2 ? p.y() : -p.y(), i % 2 ? p.z() : -p.z()));
  }
  pcl::ConsistentNormalOrientation<ScanPoint, pcl::Normal> orientation;
  orientation.setInputCloud(cloud);
  ASSERT_TRUE(orientation.orient(normals));
  for (std::size_t i = 0; i < normals.size(); ++i)
    EXPECT_GT(normals[i].getNormalVector3fMap().dot((*cloud)[i].getVector3fMap()), 0.f);
}
