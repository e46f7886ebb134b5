// Writes a small georeferenced plane as a LAS file and reads it back through pcl_dise::io, then
// estimates its normals with the installed library and its installed default model, once with the
// feature, once through NormalSettings and NormalPipeline with a consistent orientation
// (pcl_dise::orientation) and once file to file (pcl_dise::jobs); exit code 0 on success. Prints the model it used.
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <pcl_dise/feature/deep_iterative_normal_estimation.h>
#include <pcl_dise/feature/normal_pipeline.h>
#include <pcl_dise/io/cloud_io.h>
#include <pcl_dise/io/las_format.h>
#include <pcl_dise/jobs/normals_file.h>
#include <pcl_dise/train/procedural_shapes.h>
#include <pcl_dise/train/training_engine.h>
#ifdef OUTSIDE_WITH_TORCH
#include <pcl_dise/backends/torch/dise_net.h>
#endif

int main(int argc, char** argv) {
  const std::string las = argc > 1 ? argv[1] : "outside_plane.las";
  std::vector<std::array<double, 3>> xyz;
  for (int i = 0; i < 400; ++i) xyz.push_back({512000.0 + 0.05 * (i % 20), 5412000.0 + 0.05 * (i / 20), 300.0});
  std::array<double, 3> scale, offset;
  pcl_dise::io::chooseQuantization(xyz, scale, offset);
  pcl_dise::io::writeLas(las, xyz, std::vector<pcl_dise::io::NormalWithCurvature>(xyz.size()), scale, offset);

  const pcl_dise::io::LocalCloud local = pcl_dise::io::readCloud(las);  // read in double, centred
  pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> ne;    // the default model for k = 64
  ne.setInputCloud(local.cloud);
  ne.setKSearch(64);
  pcl::PointCloud<pcl::Normal> normals;
  ne.compute(normals);
  pcl_dise::NormalSettings settings;  // the tools' settings: k = 64, the installed model
  settings.orientation = pcl_dise::Orientation::kTree;
  pcl_dise::NormalPipeline pipeline(settings);
  pcl::PointCloud<pcl::Normal> oriented;
  const pcl_dise::NormalsOutcome outcome = pipeline.compute(local.cloud, oriented, local.offset);
  pcl_dise::jobs::NormalsFileJob job;  // what dise_normals does, file to file
  job.input = las;
  job.output = las + ".normals.pcd";
  pcl_dise::jobs::Collective one_process;
  const pcl_dise::jobs::NormalsFileReport written = pcl_dise::jobs::estimateNormalsFile(job, one_process);
  const bool ok = written.points == xyz.size() && written.without_normal == 0 && local.cloud->size() == xyz.size() &&
                  local.hasOffset() && normals.size() == xyz.size() && std::fabs(normals[210].normal_z) > 0.999f &&
                  outcome.oriented && oriented[210].normal_z > 0.999f && outcome.confidence.size() == xyz.size() &&
                  // pcl_dise::train: a training engine and a procedural shape
                  pcl_dise::train::makeNativeEngine(1) != nullptr &&
                  pcl_dise::train::proceduralShapes(1, 1).size() == 1;
#ifdef OUTSIDE_WITH_TORCH
  // pcl_dise::torch: the LibTorch network, and the backend registered through the library
  const pcl_dise::DiseNet net;
  if (!ok || !pcl_dise::backendAvailable(pcl_dise::Backend::Torch)) return 1;
  std::printf("outside: the LibTorch network has %zu parameter tensors\n", net->parameters().size());
#endif
  std::printf("outside: %zu points from %s (offset %.0f %.0f %.0f), %zu normals, default model %s\n",
              local.cloud->size(), las.c_str(), local.offset[0], local.offset[1], local.offset[2], normals.size(),
              pcl_dise::defaultModelPath(64).c_str());
  return ok ? 0 : 1;
}
