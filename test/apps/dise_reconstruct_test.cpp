// dise_reconstruct end to end: a sphere becomes a closed mesh near the sphere, in .ply and .obj;
// bad input is a message and exit code 1.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <pcl/conversions.h>
#include <pcl/io/ply_io.h>

#include "test_support.h"

namespace {

using namespace pcl_dise::test;

CommandResult runTool(const std::string& args) { return runCommand(binaryDir() + "/apps/dise_reconstruct " + args); }

TEST(DiseReconstruct, SphereGivesAMeshOnTheSphere) {
  const std::string dir = temporaryDir("reconstruct");
  writeSphereXyzFile(dir + "/sphere.xyz", 6000);
  const CommandResult run = runTool(dir + "/sphere.xyz " + dir + "/sphere.ply --iterations 0 --k 16 --depth 6");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("faces"), std::string::npos) << run.output;

  pcl::PolygonMesh mesh;
  ASSERT_EQ(pcl::io::loadPLYFile(dir + "/sphere.ply", mesh), 0);
  pcl::PointCloud<pcl::PointXYZ> vertices;
  pcl::fromPCLPointCloud2(mesh.cloud, vertices);
  EXPECT_GT(mesh.polygons.size(), 1000u);
  for (const auto& face : mesh.polygons) {
    ASSERT_EQ(face.vertices.size(), 3u);
    for (const auto v : face.vertices) ASSERT_LT(v, vertices.size());
  }
  double worst = 0;
  for (const auto& v : vertices) worst = std::max(worst, std::abs(double(v.getVector3fMap().norm()) - 1.0));
  EXPECT_LT(worst, 0.03) << "a vertex strays from the unit sphere";

  // .obj, and PCA's and DISE's meshes side by side in a picture where a headless X server is at hand.
  const bool xvfb = runCommand("command -v xvfb-run").exit_code == 0;
  const CommandResult obj =
      runCommand((xvfb ? "xvfb-run -a " : "") + binaryDir() + "/apps/dise_reconstruct " + dir + "/sphere.xyz " + dir +
                 "/sphere.obj --iterations 1 --model " + randomModelFile(4) + " --k 16 --depth 5" +
                 (xvfb ? " --compare-pca " + dir + "/both.png --width 300 --height 150" : ""));
  ASSERT_EQ(obj.exit_code, 0) << obj.output;
  if (xvfb) {
    EXPECT_GT(readFile(dir + "/both.png").size(), 1000u);
  }
  std::ifstream in(dir + "/sphere.obj");
  std::string first;
  in >> first;
  EXPECT_FALSE(first.empty());
}

// --confidence: the shipped model's bounds weight the normals; the mesh still lies on the sphere.
TEST(DiseReconstruct, ConfidenceWeighsTheNormalsByTheirBound) {
  const std::string dir = temporaryDir("reconstruct_confidence");
  writeSphereXyzFile(dir + "/sphere.xyz", 6000);
  const std::string shipped = sourceDir() + "/data/models/dise_k32.safetensors";
  const CommandResult run = runTool(dir + "/sphere.xyz " + dir + "/sphere.ply --k 32 --depth 6 --confidence --model " +
                                    shipped + " --report " + dir + "/report.json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(readFile(dir + "/report.json").find("\"confidence\": true"), std::string::npos);
  pcl::PolygonMesh mesh;
  ASSERT_EQ(pcl::io::loadPLYFile(dir + "/sphere.ply", mesh), 0);
  pcl::PointCloud<pcl::PointXYZ> vertices;
  pcl::fromPCLPointCloud2(mesh.cloud, vertices);
  EXPECT_GT(mesh.polygons.size(), 1000u);
  for (const auto& v : vertices) ASSERT_NEAR(v.getVector3fMap().norm(), 1.0, 0.03);

  const CommandResult pca = runTool(dir + "/sphere.xyz " + dir + "/no.ply --iterations 0 --confidence");
  EXPECT_EQ(pca.exit_code, 1);
  EXPECT_NE(pca.output.find("needs iterations above 0"), std::string::npos) << pca.output;
  const CommandResult uncalibrated =
      runTool(dir + "/sphere.xyz " + dir + "/no.ply --k 16 --confidence --model " + randomModelFile(4));
  EXPECT_EQ(uncalibrated.exit_code, 1);
  EXPECT_NE(uncalibrated.output.find("carries no error calibration"), std::string::npos) << uncalibrated.output;
}

TEST(DiseReconstruct, BadInputIsAClearError) {
  const std::string dir = temporaryDir("reconstruct_bad");
  std::ofstream(dir + "/empty.xyz").close();
  std::ofstream(dir + "/few.xyz") << "0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n";
  const auto expectError = [&](const std::string& args, const std::string& says) {
    const CommandResult r = runTool(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
  };
  expectError(dir + "/empty.xyz " + dir + "/out.ply --iterations 0", "holds no points");
  expectError(dir + "/few.xyz " + dir + "/out.ply --iterations 0 --k 3", "at least 10 points");
  expectError(dir + "/missing.xyz " + dir + "/out.ply --iterations 0", "missing.xyz");
  expectError(dir + "/few.xyz " + dir + "/out.stl --iterations 0 --k 3", "unknown mesh extension");
}

}  // namespace
