// Drop-in estimation: pcl::DeepIterativeNormalEstimation where pcl::NormalEstimation was, on a PCD
// file, and how far DISE's normals lie from PCA's.
// Usage: drop_in_normals CLOUD.pcd
#include <cmath>
#include <cstdio>

#include <pcl/features/normal_3d.h>
#include <pcl/io/pcd_io.h>

#include <pcl_dise/feature/deep_iterative_normal_estimation.h>

int main(int argc, char** argv) {
  if (argc != 2) return std::fprintf(stderr, "usage: %s CLOUD.pcd\n", argv[0]), 2;
  pcl::PointCloud<pcl::PointXYZ>::Ptr cloud(new pcl::PointCloud<pcl::PointXYZ>);
  if (pcl::io::loadPCDFile(argv[1], *cloud) != 0) return 1;

  pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> dise;  // was pcl::NormalEstimation
  dise.setInputCloud(cloud);
  dise.setKSearch(64);  // 64 neighbours + the point itself: pcl::NormalEstimation's setKSearch(65)
  pcl::PointCloud<pcl::Normal> normals;
  dise.compute(normals);

  pcl::NormalEstimation<pcl::PointXYZ, pcl::Normal> pca;
  pca.setInputCloud(cloud);
  pca.setKSearch(65);
  pcl::PointCloud<pcl::Normal> pca_normals;
  pca.compute(pca_normals);

  double sum = 0;
  std::size_t finite = 0;
  for (std::size_t i = 0; i < normals.size(); ++i) {
    const float dot = normals[i].getNormalVector3fMap().dot(pca_normals[i].getNormalVector3fMap());
    if (!std::isfinite(dot)) continue;
    sum += std::acos(std::min(1.f, std::abs(dot))) * 180.0 / M_PI;
    ++finite;
  }
  std::printf("drop_in_normals: %zu normals (%zu finite), mean angle to PCA's %.2f degrees\n", normals.size(), finite,
              finite ? sum / double(finite) : 0.0);
  return normals.size() == cloud->size() && finite > 0 ? 0 : 1;
}
