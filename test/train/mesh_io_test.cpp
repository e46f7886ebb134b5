// Mesh readers: the same square from .off, .obj, ASCII and binary .ply; clear errors otherwise.
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

#include "pcl_dise/train/pcpnet_data.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::train;

// The unit square of two triangles (a quad, fanned) in z = 0, and a degenerate triangle.
void expectSquare(const std::string& path) {
  std::size_t dropped = 0;
  const Mesh mesh = readMesh(path, &dropped);
  ASSERT_EQ(mesh.vertices.size(), 5u);
  ASSERT_EQ(mesh.triangles.size(), 2u);
  EXPECT_EQ(dropped, 1u);
  EXPECT_EQ(mesh.vertices[2][0], 1.0);
  EXPECT_EQ(mesh.vertices[2][1], 1.0);
  EXPECT_EQ(mesh.triangles[1], (std::array<int, 3>{0, 2, 3}));
}

TEST(MeshIo, ReadsOffObjAndPly) {
  const std::string dir = pcl_dise::test::temporaryDir("mesh_io");
  std::ofstream(dir + "/s.off") << "OFF\n5 2 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n2 2 0\n4 0 1 2 3\n3 0 0 4\n";
  expectSquare(dir + "/s.off");
  // COFF (colours of 3 or 4 values after each vertex) and NOFF (a normal after each vertex).
  std::ofstream(dir + "/c.off") << "COFF\n5 2 0\n0 0 0 192 192 192 255\n1 0 0 1 2 3 4\n1 1 0 0.5 0.5 0.5\n"
                                << "0 1 0 9 9 9 9\n2 2 0 1 1 1 1\n4 0 1 2 3 255 0 0\n3 0 0 4\n";
  expectSquare(dir + "/c.off");
  std::ofstream(dir + "/n.off") << "NOFF\n5 2 0\n0 0 0 0 0 1\n1 0 0 0 0 1\n1 1 0 0 0 1\n0 1 0 0 0 1\n2 2 0 0 0 1\n"
                                << "4 0 1 2 3\n3 0 0 4\n";
  expectSquare(dir + "/n.off");

  std::ofstream(dir + "/s.obj") << "# square\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 2 0\nvn 0 0 1\n"
                                << "f 1/1/1 2/2/1 3/3/1 4//1\nf -5 -5 -1\n";
  expectSquare(dir + "/s.obj");

  const std::string header =
      "element vertex 5\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 2\nproperty list uchar int vertex_indices\nend_header\n";
  std::ofstream(dir + "/a.ply") << "ply\nformat ascii 1.0\ncomment square\n"
                                << header << "0 0 0\n1 0 0\n1 1 0\n0 1 0\n2 2 0\n4 0 1 2 3\n3 0 0 4\n";
  expectSquare(dir + "/a.ply");

  std::ofstream binary(dir + "/b.PLY", std::ios::binary);
  binary << "ply\nformat binary_little_endian 1.0\n" << header;
  const float xyz[15] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 2, 0};
  binary.write(reinterpret_cast<const char*>(xyz), sizeof(xyz));
  for (std::vector<int> face : {std::vector<int>{0, 1, 2, 3}, std::vector<int>{0, 0, 4}}) {
    const unsigned char n = static_cast<unsigned char>(face.size());
    binary.write(reinterpret_cast<const char*>(&n), 1);
    binary.write(reinterpret_cast<const char*>(face.data()), face.size() * sizeof(int));
  }
  binary.close();
  expectSquare(dir + "/b.PLY");
}

TEST(MeshIo, BadInputGivesClearErrors) {
  const std::string dir = pcl_dise::test::temporaryDir("mesh_io_bad");
  auto errorOf = [](const std::string& path) {
    try {
      readMesh(path);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::ofstream(dir + "/m.stl") << "solid\n";
  EXPECT_NE(errorOf(dir + "/m.stl").find("unknown mesh extension"), std::string::npos);
  EXPECT_NE(errorOf(dir + "/missing.obj").find("cannot be opened"), std::string::npos);
  std::ofstream(dir + "/v.obj") << "v 0 0\n";
  EXPECT_NE(errorOf(dir + "/v.obj").find("fewer than 3 numbers"), std::string::npos);
  std::ofstream(dir + "/i.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n";
  EXPECT_NE(errorOf(dir + "/i.obj").find("names vertex 6"), std::string::npos);
  // Counts the file cannot hold are refused before anything is allocated for them (fuzzing).
  std::ofstream(dir + "/huge.off") << "OFF\n900000000000 1 0\n0 0 0\n";
  EXPECT_NE(errorOf(dir + "/huge.off").find("more vertices or faces than the file holds"), std::string::npos);
  std::ofstream(dir + "/corners.off") << "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n-5 0 1 2\n";
  EXPECT_NE(errorOf(dir + "/corners.off").find("face 0 claims -5 vertices"), std::string::npos);
  std::ofstream(dir + "/e.obj") << "v 0 0 0\n";
  EXPECT_NE(errorOf(dir + "/e.obj").find("has no faces"), std::string::npos);
  std::ofstream(dir + "/odd.ply") << "ply\nformat binary_middle_endian 1.0\nend_header\n";
  EXPECT_NE(errorOf(dir + "/odd.ply").find("binary_middle_endian"), std::string::npos);
  std::ofstream(dir + "/short.ply") << "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                                       "property float z\nend_header\n0 0 0\n1\n";
  EXPECT_NE(errorOf(dir + "/short.ply").find("ends early"), std::string::npos);
}

}  // namespace
