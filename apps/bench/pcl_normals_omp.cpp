// pcl_normals_omp: what a PCL user runs today, as a whole process to time dise_normals against
// (scripts/bench_processes.sh): read a PCD file, pcl::NormalEstimationOMP with the same k + 1
// neighbours and threads as dise_normals --k k, write points, normals and curvature as binary PCD.
// Usage: pcl_normals_omp input.pcd output.pcd [k = 64] [threads = 0: all]
#include <cstdlib>
#include <iostream>

#include <pcl/common/io.h>
#include <pcl/features/normal_3d_omp.h>
#include <pcl/io/pcd_io.h>
#include <pcl/point_types.h>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " input.pcd output.pcd [k = 64] [threads = 0: all]\n";
    return 2;
  }
  const int k = argc > 3 ? std::atoi(argv[3]) : 64;
  const unsigned threads = argc > 4 ? static_cast<unsigned>(std::atoi(argv[4])) : 0;
  auto cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
  if (pcl::io::loadPCDFile(argv[1], *cloud) != 0) return 1;
  pcl::NormalEstimationOMP<pcl::PointXYZ, pcl::Normal> estimation(threads);
  estimation.setInputCloud(cloud);
  estimation.setKSearch(k + 1);  // dise_normals --k k: k neighbours plus the point itself
  pcl::PointCloud<pcl::Normal> normals;
  estimation.compute(normals);
  pcl::PointCloud<pcl::PointNormal> out;
  pcl::concatenateFields(*cloud, normals, out);
  return pcl::io::savePCDFileBinary(argv[2], out) == 0 ? 0 : 1;
}
