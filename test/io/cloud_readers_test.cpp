// Our PCD and PLY readers (src/io): the same points as PCL's readers on good files (ASCII,
// binary, binary_compressed, organized with NaNs), and clear errors, not crashes, on the mutated
// files of ../shared/data/bad_inputs and on malformed headers.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <pcl/io/pcd_io.h>
#include <pcl/io/ply_io.h>

#include "pcl_dise/io/pcd_reader.h"
#include "pcl_dise/io/ply_reader.h"
#include "test_support.h"

namespace {

using namespace pcl_dise;

bool sameValue(double a, float b) { return (std::isnan(a) && std::isnan(b)) || static_cast<float>(a) == b; }

void expectSameAsPcl(const io::PcdCloud& ours, const pcl::PointCloud<pcl::PointXYZ>& theirs) {
  ASSERT_EQ(ours.xyz.size(), theirs.size());
  EXPECT_EQ(ours.width, theirs.width);
  EXPECT_EQ(ours.height, theirs.height);
  for (std::size_t i = 0; i < theirs.size(); ++i)
    ASSERT_TRUE(sameValue(ours.xyz[i][0], theirs[i].x) && sameValue(ours.xyz[i][1], theirs[i].y) &&
                sameValue(ours.xyz[i][2], theirs[i].z))
        << "point " << i;
}

pcl::PointCloud<pcl::PointXYZ> organizedWithNans() {
  pcl::PointCloud<pcl::PointXYZ> c(7, 5);
  for (std::size_t i = 0; i < c.size(); ++i)
    c[i] = i % 4 == 1 ? pcl::PointXYZ(NAN, NAN, NAN) : pcl::PointXYZ(0.1f * i, -0.3f * i, 1e5f + i);
  return c;
}

TEST(PcdReader, ReadsWhatPclWritesInEveryDataKind) {
  const std::string dir = test::temporaryDir("pcd_reader");
  const auto cloud = organizedWithNans();
  pcl::PCDWriter writer;
  for (const std::string kind : {"ascii", "binary", "binary_compressed"}) {
    SCOPED_TRACE(kind);
    const std::string path = dir + "/" + kind + ".pcd";
    if (kind == "ascii") writer.writeASCII(path, cloud, 9);
    if (kind == "binary") writer.writeBinary(path, cloud);
    if (kind == "binary_compressed") writer.writeBinaryCompressed(path, cloud);
    pcl::PointCloud<pcl::PointXYZ> theirs;
    ASSERT_EQ(pcl::io::loadPCDFile(path, theirs), 0);
    expectSameAsPcl(io::readPcd(path), theirs);
  }
}

TEST(PcdReader, ReadsTheSharedScansAsPclDoes) {
  for (const std::string name : {"bun0.pcd", "office1.pcd", "table_scene_mug_stereo_textured.pcd"}) {
    if (!test::sharedFileExists("data/scans/" + name)) GTEST_SKIP() << "../shared/data/scans not found";
    SCOPED_TRACE(name);
    const std::string path = test::sharedDir() + "/data/scans/" + name;
    pcl::PointCloud<pcl::PointXYZ> theirs;
    ASSERT_EQ(pcl::io::loadPCDFile(path, theirs), 0);
    expectSameAsPcl(io::readPcd(path), theirs);
  }
}

TEST(PcdReader, MutatedFilesGiveClearErrors) {
  // Each of these crashed PCL 1.13's reader inside dise_normals.
  const std::string dir = test::sharedDir() + "/data/bad_inputs";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " not found";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_THROW(io::readPcd(entry.path().string()), std::runtime_error) << entry.path();
  }
  EXPECT_GE(files, 3);
}

std::string errorOf(const std::string& bytes) {
  try {
    io::parsePcd(bytes, "t.pcd");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(PcdReader, MalformedHeadersAreNamed) {
  const std::string fields = "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\n";
  EXPECT_NE(errorOf("WIDTH 1\nDATA ascii\n1 2 3\n").find("no FIELDS"), std::string::npos);
  EXPECT_NE(errorOf(fields + "WIDTH 2\nPOINTS 3\nDATA ascii\n1 2 3\n").find("not WIDTH x HEIGHT"), std::string::npos);
  EXPECT_NE(errorOf(fields + "WIDTH 2\nDATA ascii\n1 2 3\n").find("ends at point 1"), std::string::npos);
  EXPECT_NE(errorOf(fields + "WIDTH 4000000000\nHEIGHT 4000000000\nDATA binary\n").find("more than the file holds"),
            std::string::npos);
  EXPECT_NE(errorOf(fields + "WIDTH 1\nDATA binary\n12345").find("fewer bytes"), std::string::npos);
  const std::string corrupt("\x05\0\0\0\x0c\0\0\0\xff\xff\xff\xff\xff", 13);  // 5 bytes that unpack to 12
  EXPECT_NE(errorOf(fields + "WIDTH 1\nDATA binary_compressed\n" + corrupt).find("corrupt"), std::string::npos);
  EXPECT_NE(
      errorOf("FIELDS a b c\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 1\nDATA ascii\n1 2 3\n").find("no x, y and z"),
      std::string::npos);
  EXPECT_NE(errorOf("FIELDS x y z\nSIZE 4 4\n").find("SIZE has 2 entries for 3 fields"), std::string::npos);
  EXPECT_NE(errorOf(fields + "WIDTH 1\nDATA json\n").find("DATA 'json'"), std::string::npos);
  EXPECT_EQ(errorOf(fields + "WIDTH 1\nDATA ascii\n1 2 3\n"), "");
}

TEST(PlyReader, ReadsWhatPclWritesAsciiAndBinary) {
  const std::string dir = test::temporaryDir("ply_reader");
  pcl::PointCloud<pcl::PointXYZ> cloud;
  for (int i = 0; i < 50; ++i) cloud.push_back(pcl::PointXYZ(0.5f * i, -1.f / (i + 1), 3e4f + i));
  for (const bool binary : {false, true}) {
    const std::string path = dir + (binary ? "/b.ply" : "/a.ply");
    ASSERT_EQ(binary ? pcl::io::savePLYFileBinary(path, cloud) : pcl::io::savePLYFileASCII(path, cloud), 0);
    const io::PlyData ours = io::readPly(path);
    ASSERT_EQ(ours.vertices.size(), cloud.size());
    for (std::size_t i = 0; i < cloud.size(); ++i)
      EXPECT_TRUE(sameValue(ours.vertices[i][0], cloud[i].x) && sameValue(ours.vertices[i][1], cloud[i].y) &&
                  sameValue(ours.vertices[i][2], cloud[i].z));
  }
  std::ofstream(dir + "/big.ply", std::ios::binary) << "ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty "
                                                       "float x\nproperty float y\nproperty float z\nend_header\n"
                                                    << std::string("\x3f\x80\0\0\x40\0\0\0\x40\x40\0\0", 12);
  const io::PlyData big = io::readPly(dir + "/big.ply");
  ASSERT_EQ(big.vertices.size(), 1u);
  EXPECT_EQ(big.vertices[0], (std::array<double, 3>{1, 2, 3}));
}

TEST(PlyReader, MalformedFilesGiveClearErrors) {
  auto error = [](const std::string& bytes) {
    try {
      io::parsePly(bytes, "t.ply");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string header =
      "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\n";
  EXPECT_NE(error("off\n").find("not a PLY file"), std::string::npos);
  EXPECT_NE(error(header).find("no end_header"), std::string::npos);
  EXPECT_NE(error(header + "end_header\n1 2 3\n").find("ends early"), std::string::npos);
  EXPECT_NE(error(header + "end_header\n1 2 x 4 5 6\n").find("'x' is not a number"), std::string::npos);
  EXPECT_NE(
      error("ply\nformat ascii 1.0\nelement vertex 99999999999\nproperty float x\nproperty float y\nproperty float z\n"
            "end_header\n1 2 3\n")
          .find("more than the file holds"),
      std::string::npos);
  // A negative count once wrapped to 2^64 - 3 entries of an element without properties: a hang.
  EXPECT_NE(error("ply\nformat ascii 1.0\nelement junk -3\nend_header\n").find("has count '-3'"), std::string::npos);
  EXPECT_NE(error("ply\nformat ascii 1.0\nelement vertex 1e3\nend_header\n").find("has count '1e3'"),
            std::string::npos);
  EXPECT_EQ(error("ply\nformat ascii 1.0\nelement junk 99999999999\nend_header\n"), "");
  EXPECT_NE(error("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n1\n").find("no x, y and z"),
            std::string::npos);
  EXPECT_NE(error("ply\nformat ascii 1.0\nelement vertex 1\nproperty quad x\nend_header\n").find("unknown PLY type"),
            std::string::npos);
}

}  // namespace
