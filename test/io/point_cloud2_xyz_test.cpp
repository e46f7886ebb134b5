// pointCloud2Problem / xyzFromPointCloud2 on pcl::PCLPointCloud2: a well-formed cloud reads back
// exactly (float and double coordinates, an organized cloud, padding between rows), and each kind of
// malformed layout is refused with its reason before a byte is read (run under ASan in CI).
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <pcl/PCLPointCloud2.h>
#include <pcl/conversions.h>

#include "pcl_dise/io/point_cloud2_xyz.h"

namespace {

pcl::PCLPointCloud2 goodCloud(std::uint32_t width = 4, std::uint32_t height = 3) {
  pcl::PointCloud<pcl::PointXYZI> cloud(width, height);
  for (std::size_t i = 0; i < cloud.size(); ++i) {
    cloud[i].x = float(i);
    cloud[i].y = -0.5f * float(i);
    cloud[i].z = 1.f + float(i);
    cloud[i].intensity = 7.f;
  }
  pcl::PCLPointCloud2 blob;
  pcl::toPCLPointCloud2(cloud, blob);
  return blob;
}

pcl::PCLPointField* field(pcl::PCLPointCloud2& cloud, const std::string& name) {
  for (auto& f : cloud.fields)
    if (f.name == name) return &f;
  return nullptr;
}

void expectRefused(const pcl::PCLPointCloud2& cloud, const std::string& reason) {
  EXPECT_NE(pcl_dise::pointCloud2Problem(cloud).find(reason), std::string::npos) << pcl_dise::pointCloud2Problem(cloud);
  pcl::PointCloud<pcl::PointXYZ> out;
  EXPECT_THROW(pcl_dise::xyzFromPointCloud2(cloud, out), std::invalid_argument);
}

TEST(PointCloud2Xyz, AWellFormedOrganizedCloudReadsBackExactly) {
  const pcl::PCLPointCloud2 blob = goodCloud();
  EXPECT_EQ(pcl_dise::pointCloud2Problem(blob), "");
  pcl::PointCloud<pcl::PointXYZ> out;
  pcl_dise::xyzFromPointCloud2(blob, out);
  ASSERT_EQ(out.size(), 12u);
  EXPECT_EQ(out.width, 4u);
  EXPECT_EQ(out.height, 3u);
  EXPECT_TRUE(out.is_dense);
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].x, float(i));
    EXPECT_EQ(out[i].y, -0.5f * float(i));
    EXPECT_EQ(out[i].z, 1.f + float(i));
  }
}

TEST(PointCloud2Xyz, RowPaddingAndDoubleCoordinatesAreRead) {
  // Two points per row, each 3 doubles (24 bytes), rows padded to 56 bytes.
  pcl::PCLPointCloud2 blob;
  blob.width = 2;
  blob.height = 2;
  blob.point_step = 24;
  blob.row_step = 56;
  for (int a = 0; a < 3; ++a) {
    pcl::PCLPointField f;
    f.name = std::string(1, char('x' + a));
    f.offset = 8 * a;
    f.datatype = pcl::PCLPointField::FLOAT64;
    f.count = 1;
    blob.fields.push_back(f);
  }
  blob.data.assign(112, 0);
  for (int row = 0; row < 2; ++row)
    for (int column = 0; column < 2; ++column)
      for (int a = 0; a < 3; ++a) {
        const double value = 100 * row + 10 * column + a + 0.25;
        std::memcpy(&blob.data[row * 56 + column * 24 + 8 * a], &value, 8);
      }
  pcl::PointCloud<pcl::PointXYZ> out;
  pcl_dise::xyzFromPointCloud2(blob, out);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[3].x, 110.25f);
  EXPECT_EQ(out[3].z, 112.25f);
  EXPECT_EQ(out[2].y, 101.25f);
}

TEST(PointCloud2Xyz, NonFinitePointsClearIsDense) {
  pcl::PCLPointCloud2 blob = goodCloud(2, 1);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(&blob.data[blob.point_step + field(blob, "y")->offset], &nan, 4);
  pcl::PointCloud<pcl::PointXYZ> out;
  pcl_dise::xyzFromPointCloud2(blob, out);
  EXPECT_FALSE(out.is_dense);
  EXPECT_TRUE(std::isnan(out[1].y));
}

TEST(PointCloud2Xyz, AnEmptyCloudIsNoProblem) {
  pcl::PCLPointCloud2 blob = goodCloud(0, 0);
  blob.data.clear();
  EXPECT_EQ(pcl_dise::pointCloud2Problem(blob), "");
  pcl::PointCloud<pcl::PointXYZ> out;
  pcl_dise::xyzFromPointCloud2(blob, out);
  EXPECT_TRUE(out.empty());
}

TEST(PointCloud2Xyz, DataShorterThanPromisedIsRefused) {
  pcl::PCLPointCloud2 blob = goodCloud(1000, 1);
  blob.data.resize(100);
  expectRefused(blob, "data holds 100 bytes");
}

TEST(PointCloud2Xyz, AHugePointStepWithLittleDataIsRefused) {
  pcl::PCLPointCloud2 blob = goodCloud();
  blob.point_step = 1u << 20;
  blob.row_step = blob.point_step * blob.width;
  expectRefused(blob, "data holds");
}

TEST(PointCloud2Xyz, RowStepShorterThanItsPointsIsRefused) {
  pcl::PCLPointCloud2 blob = goodCloud();
  blob.row_step = blob.point_step * blob.width - 1;
  blob.data.resize(std::size_t(blob.row_step) * blob.height);
  expectRefused(blob, "row_step");
}

TEST(PointCloud2Xyz, APointStepSmallerThanItsFieldsIsRefused) {
  pcl::PCLPointCloud2 blob = goodCloud();
  blob.point_step = 4;
  blob.row_step = 4 * blob.width;
  blob.data.resize(std::size_t(blob.row_step) * blob.height);
  expectRefused(blob, "reaches past point_step");
}

TEST(PointCloud2Xyz, AFieldPastThePointIsRefused) {
  pcl::PCLPointCloud2 blob = goodCloud();
  field(blob, "intensity")->count = 100;
  expectRefused(blob, "'intensity'");
}

TEST(PointCloud2Xyz, MissingOrIntegerCoordinatesAreRefused) {
  pcl::PCLPointCloud2 blob = goodCloud();
  field(blob, "z")->name = "depth";
  expectRefused(blob, "no 'z' field");
  blob = goodCloud();
  field(blob, "x")->datatype = pcl::PCLPointField::INT32;
  expectRefused(blob, "'x' is of type 5");
  blob = goodCloud();
  field(blob, "y")->datatype = 42;
  expectRefused(blob, "unknown type 42");
}

TEST(PointCloud2Xyz, BigEndianDataIsRefused) {
  pcl::PCLPointCloud2 blob = goodCloud();
  blob.is_bigendian = 1;
  expectRefused(blob, "big-endian");
}

TEST(PointCloud2Xyz, ZeroPointStepIsRefused) {
  pcl::PCLPointCloud2 blob = goodCloud();
  blob.point_step = 0;
  blob.row_step = 0;
  blob.data.clear();
  expectRefused(blob, "point_step is 0");
}

}  // namespace
