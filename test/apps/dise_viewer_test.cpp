// dise_viewer --screenshot under xvfb-run: each picture has the window's size, is not blank, and
// the pictures differ where the colouring or the iteration differ; bad input exits non-zero.
#include <cstdio>
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <png.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

using namespace pcl_dise::test;

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // height x width x 3
};

Image readPng(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  Image out;
  if (!png_image_begin_read_from_file(&image, path.c_str())) return out;
  image.format = PNG_FORMAT_RGB;
  out.rgb.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.rgb.data(), 0, nullptr)) return {};
  out.width = static_cast<int>(image.width);
  out.height = static_cast<int>(image.height);
  return out;
}

// Share of pixels that differ between two pictures of the same size.
double differingShare(const Image& a, const Image& b) {
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.rgb.size(); i += 3)
    differing += a.rgb[i] != b.rgb[i] || a.rgb[i + 1] != b.rgb[i + 1] || a.rgb[i + 2] != b.rgb[i + 2];
  return double(differing) / double(a.rgb.size() / 3);
}

// Share of pixels whose colour is not the background's (the top-left corner's).
double coveredShare(const Image& a) {
  std::size_t covered = 0;
  for (std::size_t i = 0; i < a.rgb.size(); i += 3)
    covered += a.rgb[i] != a.rgb[0] || a.rgb[i + 1] != a.rgb[1] || a.rgb[i + 2] != a.rgb[2];
  return a.rgb.empty() ? 0.0 : double(covered) / double(a.rgb.size() / 3);
}

class DiseViewer : public ::testing::Test {
 protected:
  void SetUp() override {
    if (runCommand("command -v xvfb-run").exit_code != 0) GTEST_SKIP() << "xvfb-run is not installed (Debian: xvfb)";
    dir_ = temporaryDir("dise_viewer");
    model_ = randomModelFile(3);
  }

  // Renders the bundled bunny with `args`; returns the picture (empty on failure).
  Image shot(const std::string& name, const std::string& args) {
    const std::string png = dir_ + "/" + name + ".png";
    const CommandResult r = runCommand("xvfb-run -a -s '-screen 0 1280x1024x24' " + binaryDir() + "/apps/dise_viewer " +
                                       std::string(PCL_DISE_SOURCE_DIR) + "/data/clouds/bun0.pcd --model " + model_ +
                                       " --width 400 --height 300 --screenshot " + png + " " + args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return readPng(png);
  }

  std::string dir_, model_;
};

TEST_F(DiseViewer, ScreenshotsHaveTheWindowSizeAndShowTheCloud) {
  for (const std::string mode : {"normal", "curvature", "weights"}) {
    const Image image = shot(mode, "--color-by " + mode);
    ASSERT_EQ(image.width, 400) << mode;
    ASSERT_EQ(image.height, 300) << mode;
    std::set<std::uint32_t> colours;
    for (std::size_t i = 0; i < image.rgb.size(); i += 3)
      colours.insert(image.rgb[i] << 16 | image.rgb[i + 1] << 8 | image.rgb[i + 2]);
    EXPECT_GT(colours.size(), 20u) << mode << " looks blank";
  }
}

TEST_F(DiseViewer, PicturesDifferWithColouringAndIteration) {
  const Image normal = shot("n4", "--color-by normal --iteration 4"),
              curvature = shot("c4", "--color-by curvature --iteration 4"),
              normal0 = shot("n0", "--color-by normal --iteration 0"),
              weights1 = shot("w1", "--color-by weights --iteration 1 --pick 200"),
              weights4 = shot("w4", "--color-by weights --iteration 4 --pick 200"),
              again = shot("again", "--color-by normal --iteration 4");
  ASSERT_EQ(normal.rgb.size(), 400u * 300u * 3u);
  EXPECT_GT(differingShare(normal, curvature), 0.01);
  EXPECT_GT(differingShare(normal, normal0), 0.001);
  EXPECT_GT(differingShare(weights1, weights4), 0.0005);
  EXPECT_LT(differingShare(normal, again), 0.001) << "the same arguments should give the same picture";
}

TEST_F(DiseViewer, OrientedNormalsColourDifferently) {
  // Colour by normal shows the sign: --orient mst turns the normals that faced the sensor origin.
  const Image towards = shot("towards", "--color-by normal --iteration 0"),
              oriented = shot("oriented", "--color-by normal --iteration 0 --orient mst");
  ASSERT_EQ(oriented.rgb.size(), 400u * 300u * 3u);
  EXPECT_GT(differingShare(towards, oriented), 0.001);
}

TEST_F(DiseViewer, ErrorColouringNeedsGroundTruth) {
  // bun0.pcd carries normals: write them as a ground-truth .normals file.
  std::ifstream pcd(std::string(PCL_DISE_SOURCE_DIR) + "/data/clouds/bun0.pcd");
  std::ofstream truth(dir_ + "/bun0.normals");
  std::string line;
  while (std::getline(pcd, line) && line.rfind("DATA", 0) != 0) {}
  float x, y, z, nx, ny, nz, c;
  while (pcd >> x >> y >> z >> nx >> ny >> nz >> c) truth << nx << ' ' << ny << ' ' << nz << '\n';
  truth.close();
  const Image error = shot("error", "--color-by error --normals " + dir_ + "/bun0.normals");
  EXPECT_EQ(error.width, 400);
  const CommandResult r = runCommand(binaryDir() + "/apps/dise_viewer " + std::string(PCL_DISE_SOURCE_DIR) +
                                     "/data/clouds/bun0.pcd --color-by error --screenshot " + dir_ + "/x.png");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--normals"), std::string::npos) << r.output;
}

TEST_F(DiseViewer, BadInputExitsWithAClearError) {
  std::ofstream(dir_ + "/cloud.abc") << "1 2 3\n";
  std::ofstream(dir_ + "/no_xyz.pcd")
      << "# .PCD v0.7\nVERSION 0.7\nFIELDS intensity\nSIZE 4\nTYPE F\nCOUNT 1\nWIDTH 1\n"
         "HEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 1\nDATA ascii\n5\n";
  const struct {
    std::string args, message;
  } cases[] = {{dir_ + "/missing.pcd", "missing.pcd"},
               {dir_ + "/cloud.abc", "cloud.abc"},
               {dir_ + "/no_xyz.pcd", "no_xyz.pcd"},
               {std::string(PCL_DISE_SOURCE_DIR) + "/data/clouds/bun0.pcd --pick 100000", "--pick"},
               {std::string(PCL_DISE_SOURCE_DIR) + "/data/clouds/bun0.pcd --iteration 9", "--iteration"}};
  for (const auto& c : cases) {
    const CommandResult r =
        runCommand(binaryDir() + "/apps/dise_viewer " + c.args + " --screenshot " + dir_ + "/bad.png");
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
  }
}

}  // namespace

namespace {

// The camera position dise_viewer --report gives for `input`, and its framing.
std::pair<std::vector<double>, std::string> cameraOf(const std::string& input, const std::string& dir,
                                                     const std::string& model) {
  const std::string report = dir + "/camera.json";
  const CommandResult r = runCommand("xvfb-run -a -s '-screen 0 1280x1024x24' " + binaryDir() + "/apps/dise_viewer " +
                                     input + " --model " + model + " --iterations 1 --k 8 --width 320 --height 240" +
                                     " --screenshot " + dir + "/camera.png --report " + report);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json json = nlohmann::json::parse(readFile(report));
  return {json["camera"]["position"].get<std::vector<double>>(), json["framing"].get<std::string>()};
}

}  // namespace

TEST_F(DiseViewer, OpensAScanFromItsSensorPose) {
  // An organized scan whose sensor stands at (0.5, -0.25, 0.75): the viewer's camera stands there.
  const std::string scan = dir_ + "/scan.pcd";
  {
    std::ofstream out(scan);
    out << "VERSION .7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 40\nHEIGHT 30\n"
        << "VIEWPOINT 0.5 -0.25 0.75 1 0 0 0\nPOINTS 1200\nDATA ascii\n";
    for (int v = 0; v < 30; ++v)
      for (int u = 0; u < 40; ++u) out << 0.5 + 0.02 * (u - 20) << ' ' << -0.25 + 0.02 * (v - 15) << " 2.75\n";
  }
  const auto [position, framing] = cameraOf(scan, dir_, model_);
  EXPECT_EQ(framing, "sensor pose");
  ASSERT_EQ(position.size(), 3u);
  EXPECT_NEAR(position[0], 0.5, 1e-6);
  EXPECT_NEAR(position[1], -0.25, 1e-6);
  EXPECT_NEAR(position[2], 0.75, 1e-6);
  // PCL's organized Kinect frame opens at its sensor, the origin.
  if (sharedFileExists("data/scans/table_scene_mug_stereo_textured.pcd")) {
    const auto [mug, mug_framing] =
        cameraOf(sharedDir() + "/data/scans/table_scene_mug_stereo_textured.pcd", dir_, model_);
    EXPECT_EQ(mug_framing, "sensor pose");
    for (double c : mug) EXPECT_NEAR(c, 0.0, 1e-6);
  }
  // A cloud without a pose: its bounding box from a three-quarter view, not from the origin.
  const auto [bunny, bunny_framing] =
      cameraOf(std::string(PCL_DISE_SOURCE_DIR) + "/data/clouds/bun0.pcd", dir_, model_);
  EXPECT_EQ(bunny_framing, "bounding box, three-quarter view");
}

TEST_F(DiseViewer, OpensAnAerialSurveyFromAbove) {
  // A LAS or LAZ file states no sensor pose: Autzen (State Plane coordinates, 110,000 points) opens
  // from above its south edge, looking down at its centre, not from the world origin taken as a
  // sensor a million feet away; the picture shows the survey, not one dot.
  if (!sharedFileExists("data/lidar/autzen_trim.laz")) GTEST_SKIP() << "no ../shared/data/lidar";
  for (const std::string name : {"autzen_trim.las", "autzen_trim.laz"}) {
    const auto [position, framing] = cameraOf(sharedDir() + "/data/lidar/" + name, dir_, model_);
    EXPECT_EQ(framing, "aerial survey, from above at an angle") << name;
    ASSERT_EQ(position.size(), 3u);
    // In the local frame (the file's coordinates minus their offset): above the survey, near it.
    EXPECT_GT(position[2], 500.0) << name;
    EXPECT_LT(std::abs(position[0]), 5000.0) << name;
    EXPECT_LT(std::abs(position[1]), 5000.0) << name;
    const Image picture = readPng(dir_ + "/camera.png");
    EXPECT_GT(coveredShare(picture), 0.2) << name << ": the survey should fill much of the picture";
  }
}
