// Estimates normals of a small plane with the installed library and its installed default model;
// exit code 0 on success. Prints the model it used.
#include <cmath>
#include <cstdio>

#include <pcl_dise/deep_iterative_normal_estimation.h>

int main() {
  pcl::PointCloud<pcl::PointXYZ>::Ptr cloud(new pcl::PointCloud<pcl::PointXYZ>);
  for (int i = 0; i < 400; ++i) cloud->push_back(pcl::PointXYZ(0.05f * (i % 20), 0.05f * (i / 20), 0.f));
  pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> ne;  // the default model for k = 64
  ne.setInputCloud(cloud);
  ne.setKSearch(64);
  pcl::PointCloud<pcl::Normal> normals;
  ne.compute(normals);
  const bool ok = normals.size() == cloud->size() && std::fabs(normals[210].normal_z) > 0.999f;
  std::printf("outside: %zu normals, default model %s\n", normals.size(), pcl_dise::defaultModelPath(64).c_str());
  return ok ? 0 : 1;
}
