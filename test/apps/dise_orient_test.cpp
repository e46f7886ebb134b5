// dise_orient end to end: scrambled normals of a sphere come back facing out; a seed, a viewpoint;
// bad input is a message and exit code 1.
#include <cmath>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "pcl_dise/io/point_table.h"
#include "pcl_dise/io/text_io.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::test;

CommandResult runTool(const std::string& args) { return runCommand(binaryDir() + "/apps/dise_orient " + args); }

class DiseOrient : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temporaryDir("dise_orient");
    const auto sphere = sphereCloud(2000);
    std::ofstream xyz(dir_ + "/sphere.xyz"), normals(dir_ + "/sphere.normals");
    for (std::size_t i = 0; i < sphere->size(); ++i) {
      const auto& p = (*sphere)[i];
      const float s = i % 3 ? 1.f : -1.f;  // a third point inward
      xyz << p.x << ' ' << p.y << ' ' << p.z << '\n';
      normals << s * p.x << ' ' << s * p.y << ' ' << s * p.z << '\n';
      points_.push_back({p.x, p.y, p.z});
    }
  }

  // Points whose normal in `path` faces away from the centre.
  std::size_t outward(const std::string& path) const {
    const auto normals = pcl_dise::io::readTextTriples(path);
    std::size_t count = 0;
    for (std::size_t i = 0; i < normals.size(); ++i)
      count += normals[i][0] * points_[i][0] + normals[i][1] * points_[i][1] + normals[i][2] * points_[i][2] > 0;
    return count;
  }

  std::string dir_;
  std::vector<std::array<float, 3>> points_;
};

TEST_F(DiseOrient, SphereFacesOut) {
  const CommandResult r = runTool(dir_ + "/sphere.xyz " + dir_ + "/sphere.normals " + dir_ + "/out.normals");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(outward(dir_ + "/out.normals"), 2000u);
  EXPECT_NE(r.output.find("1 part"), std::string::npos) << r.output;
}

TEST_F(DiseOrient, ClosedReportsTheOutsideGridsSides) {
  const CommandResult r =
      runTool(dir_ + "/sphere.xyz " + dir_ + "/sphere.normals " + dir_ + "/closed.normals --closed");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(outward(dir_ + "/closed.normals"), 2000u);
  EXPECT_NE(r.output.find("sides: outside grid of cell"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" 0 undecided"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
}

// The values of field `name` of a cloud file (none: empty).
std::vector<double> fieldValues(const std::string& path, const std::string& name) {
  const pcl_dise::io::PointTable table = pcl_dise::io::readPointTable(path);
  for (const auto& f : table.fields)
    if (f.name == name) return f.values;
  return {};
}

TEST_F(DiseOrient, WritesEachPointsConfidenceToPcdPlyAndLas) {
  for (const char* ext : {".pcd", ".ply", ".las", ".laz"}) {
    const std::string out = dir_ + "/confident" + ext;
    const CommandResult r = runTool(dir_ + "/sphere.xyz " + dir_ + "/sphere.normals " + out + " --closed");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("confidence: 0 points below 0.5"), std::string::npos) << r.output;
    const bool las = std::string(ext) == ".las" || std::string(ext) == ".laz";
    const std::vector<double> values = fieldValues(out, las ? "OrientationConfidence" : "orientation_confidence");
    ASSERT_EQ(values.size(), 2000u) << ext;
    for (double c : values) EXPECT_TRUE(c >= 0.5 && c <= 1.0) << c;
    // The normals beside the confidence are those of the PCD output, field for field.
    if (las) {
      const std::string pcd = dir_ + "/confident.pcd";
      EXPECT_EQ(fieldValues(out, "NormalX"), fieldValues(pcd, "normal_x")) << ext;
      EXPECT_EQ(fieldValues(out, "NormalZ"), fieldValues(pcd, "normal_z")) << ext;
      EXPECT_EQ(values, fieldValues(pcd, "orientation_confidence")) << ext;
    }
  }
}

TEST_F(DiseOrient, ALasInputsConfidenceIsReplacedNeverLeftStale) {
  // Our LAS output read again: --closed writes its confidence in place (the records keep their
  // length); dise_normals without a whole-cloud orientation leaves NaN there, not the last run's values.
  ASSERT_EQ(runTool(dir_ + "/sphere.xyz " + dir_ + "/sphere.normals " + dir_ + "/first.las --closed").exit_code, 0);
  ASSERT_EQ(runTool(dir_ + "/first.las " + dir_ + "/sphere.normals " + dir_ + "/again.las --closed").exit_code, 0);
  const CommandResult up = runCommand(binaryDir() + "/apps/dise_normals " + dir_ + "/first.las " + dir_ +
                                      "/tree.las --orient up --iterations 0 --k 8");
  ASSERT_EQ(up.exit_code, 0) << up.output;
  const auto size = [](const std::string& path) {
    return std::ifstream(path, std::ios::ate | std::ios::binary).tellg();
  };
  EXPECT_EQ(size(dir_ + "/again.las"), size(dir_ + "/first.las"));
  EXPECT_EQ(fieldValues(dir_ + "/again.las", "OrientationConfidence"),
            fieldValues(dir_ + "/first.las", "OrientationConfidence"));
  const std::vector<double> stale = fieldValues(dir_ + "/tree.las", "OrientationConfidence");
  ASSERT_EQ(stale.size(), 2000u);
  for (double c : stale) EXPECT_TRUE(std::isnan(c)) << c;
  EXPECT_TRUE(fieldValues(dir_ + "/first.las", "NormalX").size() == 2000u);
}

TEST_F(DiseOrient, ClosedOnAnOpenSurfaceWarnsThatItsSidesAreUnverified) {
  // A noisy open plane: no grid encloses a volume, its noise is too large for ray parity, and its
  // neighbourhoods show one face, not a wall's two: the tree's sides stay, and the tool says so.
  std::ofstream xyz(dir_ + "/plane.xyz"), normals(dir_ + "/plane.normals");
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::normal_distribution<float> noise(0.f, 0.1f);
  for (int i = 0; i < 3000; ++i) {
    xyz << u(rng) << ' ' << u(rng) << ' ' << noise(rng) << '\n';
    normals << "0 0 " << (i % 2 ? 1 : -1) << '\n';
  }
  xyz.close();
  normals.close();
  const CommandResult r =
      runTool(dir_ + "/plane.xyz " + dir_ + "/plane.normals " + dir_ + "/plane_out.normals --closed");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("no outside grid enclosed a volume"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("no wall shows two faces"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("warning: the sides are unverified"), std::string::npos) << r.output;
}

TEST_F(DiseOrient, ASeedOrAViewpointDecides) {
  // Point 0's normal is given inward (i % 3 == 0): the sphere follows it.
  ASSERT_EQ(
      runTool(dir_ + "/sphere.xyz " + dir_ + "/sphere.normals " + dir_ + "/seed.normals --orient-seed 0").exit_code, 0);
  EXPECT_EQ(outward(dir_ + "/seed.normals"), 0u);
  // A viewpoint inside the sphere: its nearest points face it, inward.
  ASSERT_EQ(
      runTool(dir_ + "/sphere.xyz " + dir_ + "/sphere.normals " + dir_ + "/vp.normals --viewpoint 0,0,0.5").exit_code,
      0);
  EXPECT_EQ(outward(dir_ + "/vp.normals"), 0u);
}

TEST_F(DiseOrient, BadInputIsAClearError) {
  std::ofstream(dir_ + "/short.normals") << "0 0 1\n";
  const auto expectError = [&](const std::string& args, const std::string& says) {
    const CommandResult r = runTool(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
  };
  const std::string in = dir_ + "/sphere.xyz ";
  expectError(in + dir_ + "/short.normals " + dir_ + "/o.normals", "1 normals for 2000 points");
  expectError(in + dir_ + "/sphere.normals " + dir_ + "/o.normals --orient-seed 2000", "is not a point");
  expectError(in + dir_ + "/sphere.normals " + dir_ + "/o.normals --orient-neighbors 0",
              "orient_neighbors must be at least 1");
  expectError(in + dir_ + "/missing.normals " + dir_ + "/o.normals", "missing.normals");
  expectError(in + dir_ + "/sphere.normals " + dir_ + "/o.normals --viewpoint 1,2",
              "viewpoint must be 3 numbers X,Y,Z");
}

}  // namespace
