// Consistent orientation of a closed shape: normals estimated with their plane fit's own sign, then
// oriented outward by pcl::ConsistentNormalOrientation, with the report of how sure the sides are.
// Usage: consistent_orientation [POINTS = 20000]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <pcl_dise/feature/consistent_normal_orientation.h>
#include <pcl_dise/feature/deep_iterative_normal_estimation.h>

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  // A torus with noise: a closed shape whose outward side the viewpoint rule cannot give.
  pcl::PointCloud<pcl::PointXYZ>::Ptr cloud(new pcl::PointCloud<pcl::PointXYZ>);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> angle(0.f, 6.2831853f);
  std::normal_distribution<float> noise(0.f, 0.01f);
  for (int i = 0; i < n; ++i) {
    const float u = angle(rng), v = angle(rng), r = 1.f + 0.35f * std::cos(v);
    cloud->push_back(
        pcl::PointXYZ(r * std::cos(u) + noise(rng), r * std::sin(u) + noise(rng), 0.35f * std::sin(v) + noise(rng)));
  }

  pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> dise;
  dise.setInputCloud(cloud);
  dise.setKSearch(64);
  dise.setFlipTowardsViewPoint(false);  // orientation is the next step's
  pcl::PointCloud<pcl::Normal> normals;
  dise.compute(normals);

  pcl::ConsistentNormalOrientation<pcl::PointXYZ, pcl::Normal> orientation;
  orientation.setInputCloud(cloud);
  orientation.setClosedShapes(true);                      // an object, not a scan
  orientation.setNeighborhoods(dise.getNeighborhoods());  // the estimation's: no second search
  if (!orientation.orient(normals)) return 1;
  const pcl_dise::OrientationReport& report = orientation.getReport();

  std::size_t out = 0;  // outward: away from the torus's core circle
  for (std::size_t i = 0; i < cloud->size(); ++i) {
    const auto& p = (*cloud)[i];
    const float rho = std::hypot(p.x, p.y);
    const float core[3] = {p.x - p.x / rho, p.y - p.y / rho, p.z};
    out += normals[i].normal_x * core[0] + normals[i].normal_y * core[1] + normals[i].normal_z * core[2] > 0.f;
  }
  std::printf("consistent_orientation: %zu of %zu normals face out; outside grid %s (cell %g), %zu undecided\n", out,
              cloud->size(), report.outside_grid ? "used" : "not used", report.grid_cell, report.undecided);
  return out >= cloud->size() * 99 / 100 ? 0 : 1;
}
