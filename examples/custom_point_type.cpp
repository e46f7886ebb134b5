// A point type of your own (a LiDAR point with intensity and ring): PCL_NO_PRECOMPILE compiles the
// estimator's template for it, as for any PCL feature.
// Usage: custom_point_type
#define PCL_NO_PRECOMPILE
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <pcl/point_types.h>

#include <pcl_dise/feature/deep_iterative_normal_estimation.h>

struct EIGEN_ALIGN16 LidarPoint {
  PCL_ADD_POINT4D;
  float intensity;
  std::uint16_t ring;
  PCL_MAKE_ALIGNED_OPERATOR_NEW
};
POINT_CLOUD_REGISTER_POINT_STRUCT(LidarPoint,
                                  (float, x, x)(float, y, y)(float, z, z)(float, intensity, intensity)(std::uint16_t,
                                                                                                       ring, ring))

int main() {
  pcl::PointCloud<LidarPoint>::Ptr cloud(new pcl::PointCloud<LidarPoint>);
  for (int ring = 0; ring < 32; ++ring)
    for (int i = 0; i < 200; ++i) {  // a gently sloped ground plane, as 32 rings would see it
      LidarPoint p;
      const float a = 0.0314159f * i, r = 2.f + 0.25f * ring;
      p.x = r * std::cos(a);
      p.y = r * std::sin(a);
      p.z = 0.1f * p.x;
      p.intensity = 1.f;
      p.ring = static_cast<std::uint16_t>(ring);
      cloud->push_back(p);
    }
  pcl::DeepIterativeNormalEstimation<LidarPoint, pcl::PointNormal> dise;
  dise.setInputCloud(cloud);
  dise.setKSearch(64);
  dise.setViewPoint(0.f, 0.f, 2.f);  // the sensor above the ground
  pcl::PointCloud<pcl::PointNormal> normals;
  dise.compute(normals);
  const float expected_z = 1.f / std::sqrt(1.01f);
  std::size_t good = 0;
  for (const auto& n : normals) good += std::abs(n.normal_z - expected_z) < 1e-3f;
  std::printf("custom_point_type: %zu normals, %zu along the ground's normal\n", normals.size(), good);
  return good == cloud->size() ? 0 : 1;
}
