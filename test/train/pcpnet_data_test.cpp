// The PCPNet data generator: noise level, density variants, unit normals that match faces,
// and clear errors for broken input.
#include <algorithm>
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "pcl_dise/train/pcpnet_data.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::train;

// A unit square in z = 0 made of two triangles, plus a degenerate face.
std::string writeSquare(const std::string& dir) {
  const std::string path = dir + "/square.off";
  std::ofstream(path) << "OFF\n# comment\n5 3 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n2 2 0\n3 0 1 2\n3 0 2 3\n3 0 0 4\n";
  return path;
}

TEST(PcpnetData, SamplesLieOnFacesWithFaceNormals) {
  std::size_t dropped = 0;
  const Mesh mesh = readMesh(writeSquare(pcl_dise::test::temporaryDir("pcpnet_square")), &dropped);
  EXPECT_EQ(dropped, 1u);
  const Cloud c = sample(mesh, 5000, Density::Uniform, 0.0, 1);
  ASSERT_EQ(c.points.size(), 5000u);
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    EXPECT_EQ(c.points[i][2], 0.f);
    EXPECT_GE(c.points[i][0], 0.f);
    EXPECT_LE(c.points[i][0], 1.f);
    EXPECT_NEAR(std::fabs(c.normals[i][2]), 1.f, 1e-6f);
  }
}

TEST(PcpnetData, NoiseHasTheProtocolsStd) {
  const Mesh mesh = readMesh(writeSquare(pcl_dise::test::temporaryDir("pcpnet_noise")));
  for (double level : {1e-2, 5e-2}) {
    const Cloud c = sample(mesh, 20000, Density::Uniform, level, 2);
    double sum2 = 0;
    for (const auto& p : c.points) sum2 += double(p[2]) * p[2];
    const double expected = level / (4.2 * std::sqrt(3.0)) * 2.0;  // the bounding box (vertex 4 too) has side 2
    EXPECT_NEAR(std::sqrt(sum2 / c.points.size()), expected, 0.03 * expected);
    EXPECT_DOUBLE_EQ(noiseDeviation(level, 2.0), expected);  // what dise_train --fresh-noise draws
  }
}

TEST(PcpnetData, NoisyNamesGiveTheirLevelAndCleanName) {
  std::string clean = "untouched";
  EXPECT_DOUBLE_EQ(noiseLevelOfName("/d/fandisk_noise_white_5.00e-02", clean), 5e-2);
  EXPECT_EQ(clean, "/d/fandisk");
  EXPECT_DOUBLE_EQ(noiseLevelOfName("a_noise_white_x_noise_white_1.00e-01", clean), 1e-1);
  EXPECT_EQ(clean, "a_noise_white_x");
  clean = "untouched";
  for (const char* name : {"/d/fandisk", "/d/fandisk_ddist_minmax", "a_noise_white_", "a_noise_white_1e-2x",
                           "a_noise_white_0", "a_noise_white_-1e-2", "a_noise_white_nan"})
    EXPECT_EQ(noiseLevelOfName(name, clean), 0.0) << name;
  EXPECT_EQ(clean, "untouched");
}

TEST(PcpnetData, DensityVariants) {
  const Mesh fine = [] {
    // A strip along x made of 100 quads, so that face centroids span the diagonal.
    Mesh m;
    for (int i = 0; i <= 100; ++i) {
      m.vertices.push_back({i / 100.0, 0, 0});
      m.vertices.push_back({i / 100.0, 0.01, 0});
    }
    for (int i = 0; i < 100; ++i) {
      m.triangles.push_back({2 * i, 2 * i + 2, 2 * i + 3});
      m.triangles.push_back({2 * i, 2 * i + 3, 2 * i + 1});
    }
    return m;
  }();
  const Cloud gradient = sample(fine, 40000, Density::Gradient, 0.0, 3);
  int low = 0, high = 0;
  for (const auto& p : gradient.points) (p[0] < 0.5f ? low : high)++;
  EXPECT_GT(low, 3 * high);  // density falls along the diagonal
  const Cloud striped = sample(fine, 40000, Density::Striped, 0.0, 4);
  int layer1 = 0, layer2 = 0;  // densities 0.1 and 10
  for (const auto& p : striped.points) {
    const double f = (p[0] + p[1]) / 1.01;
    if (f < 1.0 / 30)
      ++layer1;
    else if (f < 2.0 / 30)
      ++layer2;
  }
  EXPECT_GT(layer2, 20 * layer1);
}

TEST(PcpnetData, RoundTripAndIndices) {
  const std::string dir = pcl_dise::test::temporaryDir("pcpnet_io");
  const Cloud c = sample(readMesh(writeSquare(dir)), 300, Density::Uniform, 0.0, 5);
  const auto pidx = sampleIndices(300, 50, 6);
  ASSERT_EQ(pidx.size(), 50u);
  EXPECT_TRUE(std::is_sorted(pidx.begin(), pidx.end()));
  writeCloud(dir + "/c", c, pidx);
  const LoadedCloud back = readCloud(dir + "/c");
  EXPECT_EQ(back.cloud.points.size(), 300u);
  EXPECT_EQ(back.pidx, pidx);
  std::ofstream(dir + "/list.txt") << "c\n\n";
  EXPECT_EQ(readList(dir + "/list.txt"), std::vector<std::string>{dir + "/c"});
}

TEST(PcpnetData, ClearErrors) {
  const std::string dir = pcl_dise::test::temporaryDir("pcpnet_errors");
  auto errorOf = [](auto&& f) {
    try {
      f();
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(errorOf([&] { readCloud(dir + "/missing"); }).find("cannot be opened"), std::string::npos);
  std::ofstream(dir + "/a.xyz") << "0 0 0\n1 1 1\n";
  std::ofstream(dir + "/a.normals") << "0 0 1\n";
  EXPECT_NE(errorOf([&] { readCloud(dir + "/a"); }).find("2 points but 1 normals"), std::string::npos);
  std::ofstream(dir + "/a.normals") << "0 0 1\n0 0 1\n";
  std::ofstream(dir + "/a.pidx") << "0\n7\n";
  EXPECT_NE(errorOf([&] { readCloud(dir + "/a"); }).find("out of range"), std::string::npos);
  std::ofstream(dir + "/bad.off") << "OFF\n3 1 0\n0 0 0\n1 0 0\n";
  EXPECT_NE(errorOf([&] { readMesh(dir + "/bad.off"); }).find("ends early"), std::string::npos);
  std::ofstream(dir + "/flat.off") << "OFF\n3 1 0\n0 0 0\n1 0 0\n2 0 0\n3 0 1 2\n";
  EXPECT_NE(errorOf([&] { readMesh(dir + "/flat.off"); }).find("only degenerate faces"), std::string::npos);
  std::ofstream(dir + "/index.off") << "OFF\n3 1 0\n0 0 0\n1 0 0\n2 0 0\n3 0 1 9\n";
  EXPECT_NE(errorOf([&] { readMesh(dir + "/index.off"); }).find("names vertex 9"), std::string::npos);
}

}  // namespace
