// Our LAS reader and writer (pcl_dise/io/las_format.h): round trips that keep every coordinate, a
// hand-built LAS 1.2 file of another point format, the extra bytes' description, a LAS input's
// records, VLRs and EVLRs kept in every point format, and clear errors on files that are not LAS,
// compressed, truncated or inconsistent.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "pcl_dise/io/las_format.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::io;
using namespace pcl_dise::test;

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream data;
  data << in.rdbuf();
  return data.str();
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
  putAt<std::uint8_t>(bytes, 24, 1);
  putAt<std::uint8_t>(bytes, 25, 2);
  putAt<std::uint16_t>(bytes, 94, header);
  putAt<std::uint32_t>(bytes, 96, header);
  putAt<std::uint8_t>(bytes, 104, 1);
  putAt<std::uint16_t>(bytes, 105, record);
  putAt<std::uint32_t>(bytes, 107, static_cast<std::uint32_t>(ints.size()));
  for (int c = 0; c < 3; ++c) {
    putAt<double>(bytes, 131 + 8 * c, scale);
    putAt<double>(bytes, 155 + 8 * c, offset);
  }
  for (std::size_t i = 0; i < ints.size(); ++i)
    for (int c = 0; c < 3; ++c) putAt<std::int32_t>(bytes, header + i * record + 4 * c, ints[i][c]);
  return bytes;
}

struct Vlr {
  std::string user;
  std::uint16_t id;
  std::string payload;
};

std::string vlrBytes(const Vlr& v, bool extended) {
  std::string bytes(extended ? 60 : 54, '\0');
  std::memcpy(&bytes[2], v.user.data(), v.user.size());
  putAt<std::uint16_t>(bytes, 18, v.id);
  if (extended)
    putAt<std::uint64_t>(bytes, 20, v.payload.size());
  else
    putAt<std::uint16_t>(bytes, 20, static_cast<std::uint16_t>(v.payload.size()));
  return bytes + v.payload;
}

// A hand-built LAS 1.`minor` file of point format `format`, `record` bytes per point: the
// coordinates, then every other byte of the record numbered (so that a copy can be recognised).
std::string lasFile(std::uint8_t minor, std::uint8_t format, std::uint16_t record,
                    const std::vector<std::array<std::int32_t, 3>>& ints, const std::vector<Vlr>& vlrs,
                    const std::vector<Vlr>& evlrs = {}) {
  const std::size_t header = minor >= 4 ? 375 : 227;
  std::string bytes(header, '\0');
  std::memcpy(&bytes[0], "LASF", 4);
  putAt<std::uint16_t>(bytes, 6, format >= 6 ? 0x10 : 0x0);
  putAt<std::uint8_t>(bytes, 24, 1);
  putAt<std::uint8_t>(bytes, 25, minor);
  putAt<std::uint16_t>(bytes, 94, static_cast<std::uint16_t>(header));
  putAt<std::uint32_t>(bytes, 100, static_cast<std::uint32_t>(vlrs.size()));
  putAt<std::uint8_t>(bytes, 104, format);
  putAt<std::uint16_t>(bytes, 105, record);
  if (format < 6) putAt<std::uint32_t>(bytes, 107, static_cast<std::uint32_t>(ints.size()));
  if (format < 6) putAt<std::uint32_t>(bytes, 111, static_cast<std::uint32_t>(ints.size()));  // first returns
  if (minor >= 4) putAt<std::uint64_t>(bytes, 247, ints.size());
  for (int c = 0; c < 3; ++c) {
    putAt<double>(bytes, 131 + 8 * c, 0.01);
    putAt<double>(bytes, 155 + 8 * c, 1e6);
  }
  for (const Vlr& v : vlrs) bytes += vlrBytes(v, false);
  putAt<std::uint32_t>(bytes, 96, static_cast<std::uint32_t>(bytes.size()));
  for (std::size_t i = 0; i < ints.size(); ++i) {
    std::string r(record, '\0');
    for (std::size_t b = 12; b < record; ++b) r[b] = static_cast<char>(7 * i + b);
    for (int c = 0; c < 3; ++c) putAt<std::int32_t>(r, 4 * c, ints[i][c]);
    bytes += r;
  }
  if (!evlrs.empty()) {
    putAt<std::uint64_t>(bytes, 235, bytes.size());
    putAt<std::uint32_t>(bytes, 243, static_cast<std::uint32_t>(evlrs.size()));
    for (const Vlr& v : evlrs) bytes += vlrBytes(v, true);
  }
  return bytes;
}

// Writes `source` again with the normals someNormals gives, keeping its records.
std::string keptThrough(const std::string& dir, const std::string& source_bytes) {
  std::ofstream(dir + "/in.las", std::ios::binary) << source_bytes;
  const LasCloud in = readLas(dir + "/in.las");
  const auto normals = someNormals(std::max<std::size_t>(in.xyz.size(), 4));
  {
    std::ofstream out(dir + "/out.las", std::ios::binary);
    LasWriter writer(out, dir + "/out.las", dir + "/in.las");
    for (std::size_t i = 0; i < in.xyz.size(); ++i) writer.add(in.xyz[i], normals[i]);
    writer.finish();
  }
  return readBytes(dir + "/out.las");
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
  const std::uint32_t points_at = valueAt<std::uint32_t>(bytes, 96);
  EXPECT_EQ(valueAt<std::uint16_t>(bytes, 105), 46);
  EXPECT_EQ(valueAt<std::uint64_t>(bytes, 247), xyz.size());
  EXPECT_EQ(bytes.compare(375 + 2, 9, "LASF_Spec"), 0);
  EXPECT_EQ(valueAt<std::uint16_t>(bytes, 375 + 18), 4);
  EXPECT_EQ(bytes.compare(375 + 54 + 4, 7, "NormalX"), 0);   // PDAL's names
  EXPECT_EQ(valueAt<std::uint8_t>(bytes, 375 + 54 + 2), 9);  // float
  EXPECT_EQ(bytes.compare(375 + 54 + 3 * 192 + 4, 9, "Curvature"), 0);
  EXPECT_EQ(valueAt<float>(bytes, points_at + 5 * 46 + 30 + 4), 0.6f);
  EXPECT_EQ(valueAt<float>(bytes, points_at + 5 * 46 + 30 + 12), 0.01f * 5);
  EXPECT_TRUE(std::isnan(valueAt<float>(bytes, points_at + 3 * 46 + 30)));
  EXPECT_EQ(valueAt<double>(bytes, 179), xyz.front()[0] + 0.5 * 49);  // max x
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

TEST(LasFormat, KeepsEveryRecordVlrAndEvlrOfALasInputInEveryPointFormat) {
  const std::string dir = pcl_dise::test::temporaryDir("las_keep");
  const std::uint16_t kMinRecord[] = {20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67};
  const Vlr geokeys{"LASF_Projection", 34735, std::string("\1\0\1\0\0\0\1\0", 8)};
  const Vlr wkt{"LASF_Projection", 2112, "PROJCS[\"WGS 84 / UTM zone 32N\"]"};
  const std::vector<std::array<std::int32_t, 3>> ints{{1, 2, 3}, {-400, 500, 600}, {7, -8, 9}};
  for (std::uint8_t format : {0, 1, 2, 3, 4, 6, 7, 8}) {
    SCOPED_TRACE("point format " + std::to_string(format));
    const std::uint8_t minor = format < 6 ? 2 : 4;
    const std::uint16_t record = kMinRecord[format] + 3;  // 3 extra bytes that no VLR describes
    const std::string in =
        lasFile(minor, format, record, ints, {geokeys}, minor == 4 ? std::vector<Vlr>{wkt} : std::vector<Vlr>{});
    const std::string out = keptThrough(dir, in);
    EXPECT_EQ(valueAt<std::uint8_t>(out, 25), 4);
    EXPECT_EQ(valueAt<std::uint8_t>(out, 104), format);
    ASSERT_EQ(valueAt<std::uint16_t>(out, 105), record + 16);
    EXPECT_EQ(valueAt<std::uint64_t>(out, 247), ints.size());
    if (format < 6) {
      EXPECT_EQ(valueAt<std::uint32_t>(out, 107), ints.size());  // the legacy count stays
    }
    EXPECT_EQ(valueAt<double>(out, 155), 1e6);  // the input's scale and offset
    // The input's VLR as it was, then the Extra Bytes VLR: its 3 bytes undocumented, then ours.
    ASSERT_EQ(valueAt<std::uint32_t>(out, 100), 2u);
    const std::string geokeys_vlr = vlrBytes(geokeys, false);
    EXPECT_EQ(out.compare(375, geokeys_vlr.size(), geokeys_vlr), 0);
    const std::size_t extra = 375 + geokeys_vlr.size();
    EXPECT_EQ(valueAt<std::uint16_t>(out, extra + 18), 4);
    ASSERT_EQ(valueAt<std::uint16_t>(out, extra + 20), 5 * 192);
    EXPECT_EQ(valueAt<std::uint8_t>(out, extra + 54 + 2), 0);  // undocumented,
    EXPECT_EQ(valueAt<std::uint8_t>(out, extra + 54 + 3), 3);  // 3 bytes
    EXPECT_EQ(out.compare(extra + 54 + 192 + 4, 7, "NormalX"), 0);
    // Every record as it was, the normal after it (a waveform's descriptor index cleared).
    const std::size_t points_in = valueAt<std::uint32_t>(in, 96), points_out = valueAt<std::uint32_t>(out, 96);
    EXPECT_EQ(points_out, extra + 54 + 5 * 192);
    for (std::size_t i = 0; i < ints.size(); ++i) {
      std::string kept = in.substr(points_in + i * record, record);
      if (format == 4) kept[28] = 0;
      EXPECT_EQ(out.substr(points_out + i * (record + 16), record), kept) << i;
      EXPECT_EQ(valueAt<float>(out, points_out + i * (record + 16) + record + 4), 0.6f);
    }
    EXPECT_EQ(readLas(dir + "/out.las").xyz, readLas(dir + "/in.las").xyz);
    // The EVLR (here the CRS as WKT) follows the points.
    if (minor == 4) {
      EXPECT_EQ(valueAt<std::uint32_t>(out, 243), 1u);
      const std::string wkt_evlr = vlrBytes(wkt, true);
      EXPECT_EQ(out.compare(valueAt<std::uint64_t>(out, 235), wkt_evlr.size(), wkt_evlr), 0);
    }
  }
}

TEST(LasFormat, KeepsTheInputsOwnExtraBytesDescriptions) {
  const std::string dir = pcl_dise::test::temporaryDir("las_keep_extra");
  std::string amplitude(192, '\0');
  putAt<std::uint8_t>(amplitude, 2, 9);  // float
  std::memcpy(&amplitude[4], "Amplitude", 9);
  const std::string out = keptThrough(dir, lasFile(4, 6, 34, {{1, 2, 3}, {4, 5, 6}}, {Vlr{"LASF_Spec", 4, amplitude}}));
  ASSERT_EQ(valueAt<std::uint32_t>(out, 100), 1u);  // one Extra Bytes VLR, extended
  ASSERT_EQ(valueAt<std::uint16_t>(out, 375 + 20), 5 * 192);
  EXPECT_EQ(out.compare(375 + 54, 192, amplitude), 0);
  EXPECT_EQ(out.compare(375 + 54 + 192 + 4, 7, "NormalX"), 0);
  EXPECT_EQ(valueAt<std::uint16_t>(out, 105), 34 + 16);
}

TEST(LasFormat, AnOutputReadAgainGetsItsNormalsReplaced) {
  // Our own output as input: its NormalX..Curvature floats take the new normals; nothing is added.
  const std::string dir = pcl_dise::test::temporaryDir("las_keep_again");
  const auto xyz = georeferencedPoints();
  writeLas(dir + "/first.las", xyz, std::vector<NormalWithCurvature>(xyz.size(), {1.f, 0.f, 0.f, 0.5f}),
           {0.001, 0.001, 0.001}, {512000, 5412000, 300});
  const std::string out = keptThrough(dir, readBytes(dir + "/first.las"));
  EXPECT_EQ(out.size(), readBytes(dir + "/first.las").size());
  EXPECT_EQ(valueAt<std::uint16_t>(out, 105), 46);
  EXPECT_EQ(valueAt<std::uint16_t>(out, 375 + 20), 4 * 192);
  const std::size_t points = valueAt<std::uint32_t>(out, 96);
  EXPECT_EQ(valueAt<float>(out, points + 46 + 30 + 4), 0.6f);  // someNormals' y, not the first run's 0
  EXPECT_EQ(readLas(dir + "/out.las").xyz, readLas(dir + "/first.las").xyz);
}

TEST(LasFormat, KeepingAnInputNeedsAllItsPointsInOrder) {
  const std::string dir = pcl_dise::test::temporaryDir("las_keep_count");
  std::ofstream(dir + "/in.las", std::ios::binary) << lasFile(2, 1, 28, {{1, 2, 3}, {4, 5, 6}}, {});
  auto errorOf = [&](std::size_t points) {
    try {
      std::ofstream out(dir + "/out.las", std::ios::binary);
      LasWriter writer(out, dir + "/out.las", dir + "/in.las");
      for (std::size_t i = 0; i < points; ++i) writer.add({0, 0, 0}, {0.f, 0.f, 1.f, 0.f});
      writer.finish();
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(errorOf(1).find("1 points came for the 2"), std::string::npos) << errorOf(1);
  EXPECT_NE(errorOf(3).find("more points came"), std::string::npos) << errorOf(3);
  EXPECT_EQ(errorOf(2), "no error");
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
  putAt<std::uint8_t>(laz, 104, 1 | 0x80);
  EXPECT_NE(errorOf(laz).find("LAZ"), std::string::npos);
  std::string format = good;
  putAt<std::uint8_t>(format, 104, 11);
  EXPECT_NE(errorOf(format).find("point data record format 11"), std::string::npos);
  std::string short_record = good;
  putAt<std::uint16_t>(short_record, 105, 20);
  EXPECT_NE(errorOf(short_record).find("too short for format 1"), std::string::npos);
  std::string too_many = good;
  putAt<std::uint32_t>(too_many, 107, 4000000000u);
  EXPECT_NE(errorOf(too_many).find("more than the file holds"), std::string::npos);
  EXPECT_NE(errorOf(good.substr(0, good.size() - 1)).find("more than the file holds"), std::string::npos);
  std::string zero_scale = good;
  putAt<double>(zero_scale, 139, 0.0);
  EXPECT_NE(errorOf(zero_scale).find("scale"), std::string::npos);
  std::string data_offset = good;
  putAt<std::uint32_t>(data_offset, 96, 100);
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
