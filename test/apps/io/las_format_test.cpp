// Our LAS reader and writer (apps/io/las_format.h): round trips that keep every coordinate, a
// hand-built LAS 1.2 file of another point format, the extra bytes' description, and clear
// errors on files that are not LAS, compressed, truncated or inconsistent.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "io/las_format.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::io;

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream data;
  data << in.rdbuf();
  return data.str();
}

template <typename T>
T at(const std::string& bytes, std::size_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

template <typename T>
void put(std::string& bytes, std::size_t offset, T v) {
  std::memcpy(&bytes[offset], &v, sizeof v);
}

std::vector<std::array<double, 3>> georeferencedPoints() {
  std::vector<std::array<double, 3>> xyz;
  for (int i = 0; i < 50; ++i) xyz.push_back({512345.25 + 0.5 * i, 5412345.5 - 0.25 * i, 312.125 + 0.01 * i});
  return xyz;
}

std::vector<NormalWithCurvature> someNormals(std::size_t n) {
  std::vector<NormalWithCurvature> normals;
  for (std::size_t i = 0; i < n; ++i) normals.push_back({0.f, 0.6f, 0.8f, 0.01f * i});
  normals[3] = {NAN, NAN, NAN, NAN};  // a point without a normal
  return normals;
}

// A LAS 1.2 file, point format 1 (28 bytes) with 2 extra bytes per record, built by hand.
std::string lasFormat1(const std::vector<std::array<std::int32_t, 3>>& ints, double scale, double offset) {
  const std::size_t header = 227, record = 30;
  std::string bytes(header + ints.size() * record, '\0');
  std::memcpy(&bytes[0], "LASF", 4);
  put<std::uint8_t>(bytes, 24, 1);
  put<std::uint8_t>(bytes, 25, 2);
  put<std::uint16_t>(bytes, 94, header);
  put<std::uint32_t>(bytes, 96, header);
  put<std::uint8_t>(bytes, 104, 1);
  put<std::uint16_t>(bytes, 105, record);
  put<std::uint32_t>(bytes, 107, static_cast<std::uint32_t>(ints.size()));
  for (int c = 0; c < 3; ++c) {
    put<double>(bytes, 131 + 8 * c, scale);
    put<double>(bytes, 155 + 8 * c, offset);
  }
  for (std::size_t i = 0; i < ints.size(); ++i)
    for (int c = 0; c < 3; ++c) put<std::int32_t>(bytes, header + i * record + 4 * c, ints[i][c]);
  return bytes;
}

TEST(LasFormat, WritesAndReadsBackEveryCoordinateAndNormal) {
  const std::string dir = pcl_dise::test::temporaryDir("las_format");
  const auto xyz = georeferencedPoints();
  const auto normals = someNormals(xyz.size());
  std::array<double, 3> scale, offset;
  chooseQuantization(xyz, scale, offset);
  EXPECT_EQ(offset[0], std::round(512345.25 + 0.25 * 49));
  writeLas(dir + "/a.las", xyz, normals, scale, offset);
  const LasCloud back = readLas(dir + "/a.las");
  EXPECT_EQ(back.version_minor, 4);
  EXPECT_EQ(back.point_format, 6);
  EXPECT_EQ(back.scale, scale);
  ASSERT_EQ(back.xyz.size(), xyz.size());
  for (std::size_t i = 0; i < xyz.size(); ++i)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(back.xyz[i][c], xyz[i][c], scale[c]) << i;
  // Writing what was read with the same scale and offset keeps every coordinate bit for bit.
  writeLas(dir + "/b.las", back.xyz, normals, back.scale, back.offset);
  EXPECT_EQ(readLas(dir + "/b.las").xyz, back.xyz);

  // The extra bytes: four floats after the 30-byte format 6 record, described by name and type.
  const std::string bytes = readBytes(dir + "/a.las");
  const std::uint32_t points_at = at<std::uint32_t>(bytes, 96);
  EXPECT_EQ(at<std::uint16_t>(bytes, 105), 46);
  EXPECT_EQ(at<std::uint64_t>(bytes, 247), xyz.size());
  EXPECT_EQ(bytes.compare(375 + 2, 9, "LASF_Spec"), 0);
  EXPECT_EQ(at<std::uint16_t>(bytes, 375 + 18), 4);
  EXPECT_EQ(bytes.compare(375 + 54 + 4, 8, "normal_x"), 0);
  EXPECT_EQ(at<std::uint8_t>(bytes, 375 + 54 + 2), 9);  // float
  EXPECT_EQ(bytes.compare(375 + 54 + 3 * 192 + 4, 9, "curvature"), 0);
  EXPECT_EQ(at<float>(bytes, points_at + 5 * 46 + 30 + 4), 0.6f);
  EXPECT_EQ(at<float>(bytes, points_at + 5 * 46 + 30 + 12), 0.01f * 5);
  EXPECT_TRUE(std::isnan(at<float>(bytes, points_at + 3 * 46 + 30)));
  EXPECT_EQ(at<double>(bytes, 179), xyz.front()[0] + 0.5 * 49);  // max x
}

TEST(LasFormat, ReadsOtherVersionsAndPointFormats) {
  const std::string dir = pcl_dise::test::temporaryDir("las_format12");
  std::ofstream(dir + "/v12.las", std::ios::binary) << lasFormat1({{1, 2, 3}, {-100, 0, 250}}, 0.01, 1000.0);
  const LasCloud las = readLas(dir + "/v12.las");
  EXPECT_EQ(las.version_minor, 2);
  EXPECT_EQ(las.point_format, 1);
  ASSERT_EQ(las.xyz.size(), 2u);
  EXPECT_EQ(las.xyz[0], (std::array<double, 3>{1000.01, 1000.02, 1000.03}));
  EXPECT_EQ(las.xyz[1], (std::array<double, 3>{999.0, 1000.0, 1002.5}));
}

TEST(LasFormat, BadFilesGiveClearErrors) {
  const std::string good = lasFormat1({{1, 2, 3}, {4, 5, 6}}, 0.01, 0.0);
  auto errorOf = [](const std::string& bytes) {
    try {
      parseLas(bytes, "f.las");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(errorOf("PLY\n").find("not a LAS file"), std::string::npos);
  EXPECT_NE(errorOf(good.substr(0, 200)).find("not a LAS file"), std::string::npos);
  std::string laz = good;
  put<std::uint8_t>(laz, 104, 1 | 0x80);
  EXPECT_NE(errorOf(laz).find("LAZ"), std::string::npos);
  std::string format = good;
  put<std::uint8_t>(format, 104, 11);
  EXPECT_NE(errorOf(format).find("point data record format 11"), std::string::npos);
  std::string short_record = good;
  put<std::uint16_t>(short_record, 105, 20);
  EXPECT_NE(errorOf(short_record).find("too short for format 1"), std::string::npos);
  std::string too_many = good;
  put<std::uint32_t>(too_many, 107, 4000000000u);
  EXPECT_NE(errorOf(too_many).find("more than the file holds"), std::string::npos);
  EXPECT_NE(errorOf(good.substr(0, good.size() - 1)).find("more than the file holds"), std::string::npos);
  std::string zero_scale = good;
  put<double>(zero_scale, 139, 0.0);
  EXPECT_NE(errorOf(zero_scale).find("scale"), std::string::npos);
  std::string data_offset = good;
  put<std::uint32_t>(data_offset, 96, 100);
  EXPECT_NE(errorOf(data_offset).find("point data offset"), std::string::npos);
  EXPECT_EQ(errorOf(good), "no error");
  // LAS holds no NaN coordinates: writing one is refused, naming the point.
  const std::string dir = pcl_dise::test::temporaryDir("las_format_nan");
  try {
    writeLas(dir + "/nan.las", {{0, 0, 0}, {NAN, 0, 0}}, std::vector<NormalWithCurvature>(2), {0.001, 0.001, 0.001},
             {0, 0, 0});
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("point 1 has a non-finite coordinate"), std::string::npos) << e.what();
  }
}

}  // namespace
