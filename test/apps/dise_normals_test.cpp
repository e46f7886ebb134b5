// dise_normals end to end: parity through the command line, output formats, clear errors.
#include <sys/wait.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "pcl_dise/text_io.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::test;

struct RunResult {
  int exit_code;
  std::string output;
};

RunResult runTool(const std::string& args) {
  const std::string dir = temporaryDir("cli_out");
  const std::string command = binaryDir() + "/apps/dise_normals " + args + " > " + dir + "/out.txt 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(dir + "/out.txt");
  std::stringstream text;
  text << in.rdbuf();
  return {WEXITSTATUS(status), text.str()};
}

TEST(DiseNormals, ParityWithThePublishedWeights) {
  if (!sharedFileExists("reference/published_k64.safetensors"))
    GTEST_SKIP() << "no published weights in " << sharedDir();
  const std::string base = sharedDir() + "/reference/cases/cube_clean";
  const std::string out = temporaryDir("cli_parity") + "/cube.normals";
  const RunResult r =
      runTool(base + ".xyz " + out + " --model " + sharedDir() + "/reference/published_k64.safetensors --k 64");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("6000 normals"), std::string::npos) << r.output;
  const auto actual = pcl_dise::readTextTriples(out);
  const auto expected = pcl_dise::readTextTriples(base + ".k64.iter4.normals");
  ASSERT_EQ(actual.size(), expected.size());
  std::vector<double> errors;
  for (std::size_t i = 0; i < actual.size(); ++i)
    errors.push_back(unorientedAngleDeg(actual[i].data(), expected[i].data()));
  EXPECT_LT(percentile(errors, 99), 0.2);
  EXPECT_GE(std::count_if(errors.begin(), errors.end(), [](double e) { return e <= 1; }), 0.995 * errors.size());
}

TEST(DiseNormals, WritesPcdPlyAndNormals) {
  const std::string dir = temporaryDir("cli_formats");
  {
    std::ofstream xyz(dir + "/in.xyz");
    const auto sphere = sphereCloud(300);
    for (const auto& p : *sphere) xyz << p.x << ' ' << p.y << ' ' << p.z << '\n';
    xyz << "nan nan nan\n";
  }
  const std::string model = randomModelFile(3);
  for (const std::string ext : {".pcd", ".ply", ".normals"}) {
    const RunResult r =
        runTool(dir + "/in.xyz " + dir + "/out" + ext + " --model " + model + " --k 16 --iterations 2 --threads 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("1 points without a normal"), std::string::npos) << r.output;
    std::ifstream written(dir + "/out" + ext);
    EXPECT_TRUE(written.good());
  }
  const auto normals = pcl_dise::readTextTriples(dir + "/out.normals");
  ASSERT_EQ(normals.size(), 301u);
  EXPECT_TRUE(std::isnan(normals[300][0]));
  // Round trip: the .pcd output is a valid input.
  const RunResult again = runTool(dir + "/out.pcd " + dir + "/again.normals --radius 0.3 --iterations 0");
  EXPECT_EQ(again.exit_code, 0) << again.output;
}

TEST(DiseNormals, ClearErrors) {
  const std::string dir = temporaryDir("cli_errors");
  std::ofstream(dir + "/in.xyz") << "0 0 0\n1 0 0\n0 1 0\n1 1 0.1\n";
  std::ofstream(dir + "/bad.xyz") << "0 0 0\n1 zero 0\n";
  std::ofstream(dir + "/in.txt") << "0 0 0\n";
  const std::string model = randomModelFile(4);
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {dir + "/missing.xyz " + dir + "/o.normals", "cannot be opened"},
      {dir + "/in.txt " + dir + "/o.normals", "unknown extension"},
      {dir + "/bad.xyz " + dir + "/o.normals", "is not a number"},
      {dir + "/in.xyz " + dir + "/o.normals --k 3 --radius 1", "excludes"},
      {dir + "/in.xyz " + dir + "/o.normals --model " + dir + "/none.safetensors", "dise_train"},
      {dir + "/in.xyz " + dir + "/o.normals --model " + dir + "/in.xyz", "truncated or not a safetensors"},
      {dir + "/in.xyz " + dir + "/o.vtk --model " + model, "unknown output extension"},
      {dir + "/in.xyz " + dir + "/o.normals --model " + model + " --viewpoint 1,2", "--viewpoint expects"},
      {dir + "/in.xyz " + dir + "/o.normals --model " + model + " --backend opencl", "unknown backend"},
  };
  for (const auto& c : cases) {
    const RunResult r = runTool(c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}

}  // namespace
