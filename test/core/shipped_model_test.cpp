// The shipped models (data/models/dise_k<k>.safetensors): their metadata says how each was made,
// and each keeps a cube's edges sharper than PCA does, a guard against shipping broken weights.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <pcl/features/normal_3d.h>

#include "pcl_dise/core/model.h"
#include "pcl_dise/feature/deep_iterative_normal_estimation.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::test;

// The k of every shipped model: the dise_k<k>.safetensors beside the default one (data/models, or
// $PCL_DISE_MODEL_DIR where set).
std::vector<int> shippedK() {
  const std::filesystem::path folder = std::filesystem::path(pcl_dise::defaultModelPath(64)).parent_path();
  const std::regex name("dise_k([0-9]+)\\.safetensors");
  std::vector<int> ks;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    std::smatch match;
    const std::string file = entry.path().filename().string();
    if (std::regex_match(file, match, name)) ks.push_back(std::stoi(match[1]));
  }
  std::sort(ks.begin(), ks.end());
  return ks;
}

TEST(ShippedModel, TheDefaultK64AndK32Ship) {
  const std::vector<int> ks = shippedK();
  for (int k : {32, 64}) EXPECT_NE(std::find(ks.begin(), ks.end(), k), ks.end()) << k;
}

TEST(ShippedModel, RecordsHowItWasMade) {
  for (int k : shippedK()) {
    const std::string path = pcl_dise::defaultModelPath(k);
    EXPECT_NE(path.find("dise_k" + std::to_string(k) + ".safetensors"), std::string::npos) << path;
    const pcl_dise::Model model = pcl_dise::loadModel(path);
    EXPECT_EQ(model.metadata.at("k_train"), std::to_string(k));
    for (const char* key : {"recipe", "patches", "patch_points", "iterations_train", "training_list"})
      EXPECT_EQ(model.metadata.count(key), 1u) << key;
  }
}

// RMSE in degrees of unoriented normals against the faces of the unit cube that boxCloud samples.
double cubeRmse(const pcl::PointCloud<pcl::PointXYZ>& clean, const pcl::PointCloud<pcl::Normal>& normals) {
  double sum = 0;
  for (std::size_t i = 0; i < clean.size(); ++i) {
    const Eigen::Vector3f p = clean[i].getVector3fMap();
    int face_axis = 0;  // the coordinate that lies on 0 or 1
    for (int a = 1; a < 3; ++a)
      if (std::min(p[a], 1.f - p[a]) < std::min(p[face_axis], 1.f - p[face_axis])) face_axis = a;
    float truth[3] = {0, 0, 0};
    truth[face_axis] = 1;
    const double angle = unorientedAngleDeg(normals[i].normal, truth);
    sum += angle * angle;
  }
  return std::sqrt(sum / double(clean.size()));
}

TEST(ShippedModel, SharperThanPcaOnANoisyCube) {
  const auto clean = boxCloud(6000, 1.f, 3);
  auto noisy = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>(*clean);
  std::mt19937 rng(4);
  std::normal_distribution<float> noise(0.f, 0.003f);
  for (auto& p : *noisy)
    for (int a = 0; a < 3; ++a) p.data[a] += noise(rng);

  for (int k : shippedK()) {
    pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> dise;  // the default model for k
    dise.setInputCloud(noisy);
    dise.setKSearch(k);
    pcl::PointCloud<pcl::Normal> dise_normals;
    dise.compute(dise_normals);
    ASSERT_EQ(dise_normals.size(), clean->size());

    pcl::NormalEstimation<pcl::PointXYZ, pcl::Normal> pca;
    pca.setInputCloud(noisy);
    pca.setKSearch(k + 1);  // the same k + 1 points
    pcl::PointCloud<pcl::Normal> pca_normals;
    pca.compute(pca_normals);

    const double dise_rmse = cubeRmse(*clean, dise_normals), pca_rmse = cubeRmse(*clean, pca_normals);
    RecordProperty("k" + std::to_string(k) + "_dise_rmse_deg", std::to_string(dise_rmse));
    RecordProperty("k" + std::to_string(k) + "_pca_rmse_deg", std::to_string(pca_rmse));
    EXPECT_LT(dise_rmse, 0.7 * pca_rmse) << "k = " << k << ": DISE " << dise_rmse << " deg, PCA " << pca_rmse << " deg";
  }
}

}  // namespace
