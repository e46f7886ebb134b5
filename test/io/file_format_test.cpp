// The table of formats (file_format.h), each codec's round trip through NormalsWriter and back
// through PointStream and readPointTable, and the writer's guarantees.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <tuple>

#include "pcl_dise/core/errors.h"
#include "pcl_dise/io/file_format.h"
#include "pcl_dise/io/las_format.h"
#include "pcl_dise/io/local_frame.h"
#include "pcl_dise/io/normals_writer.h"
#include "pcl_dise/io/point_stream.h"
#include "pcl_dise/io/point_table.h"
#include "test_support.h"

namespace pcl_dise {
namespace io {
namespace {

// Points around a georeferenced offset (double coordinates needed) with unit normals.
struct Points {
  std::vector<std::array<double, 3>> xyz;
  std::vector<std::array<float, 3>> normals;
  std::vector<float> curvature;
};

Points somePoints(std::size_t n) {
  Points p;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = 0.37 * double(i);
    p.xyz.push_back({512345.25 + std::cos(t), 5412345.5 + std::sin(t), 250.0 + 0.01 * double(i)});
    const float a = float(0.1 * double(i));
    p.normals.push_back({std::cos(a) * 0.6f, std::sin(a) * 0.6f, 0.8f});
    p.curvature.push_back(float(i) / float(n));
  }
  return p;
}

// Writes the points to `path` with a layout every format can hold; each value (in `values`' order)
// 0.25 + its position in the list, or (LAS from a source) over the records of `las_source`.
void writePoints(const std::string& path, const Points& p, const std::vector<PointValue>& values = {},
                 const std::string& las_source = "") {
  NormalsFileLayout layout;
  layout.points = p.xyz.size();
  layout.double_coordinates = true;
  FiniteBounds bounds;
  for (const auto& q : p.xyz) bounds.add(q);
  chooseQuantization(bounds.lo.data(), bounds.hi.data(), layout.las_scale, layout.las_offset);
  layout.values = values;
  layout.las_source = las_source;
  const std::vector<float> written = {0.25f, 1.25f};
  NormalsWriter writer(path, layout);
  for (std::size_t i = 0; i < p.xyz.size(); ++i)
    writer.add(p.xyz[i], p.normals[i].data(), p.curvature[i], written.data());
  writer.finish();
}

const PointField* field(const PointTable& table, std::initializer_list<const char*> names) {
  for (const PointField& f : table.fields)
    for (const char* name : names)
      if (f.name == name) return &f;
  return nullptr;
}

// The formats both read and written, each with its codec and a file name in `dir` (cloud.EXT).
std::vector<std::tuple<const FormatCodec*, FormatTraits, std::string>> roundTripFormats(const std::string& dir) {
  std::vector<std::tuple<const FormatCodec*, FormatTraits, std::string>> formats;
  for (const FormatCodec* codec : fileFormats())
    if (codec->traits().read && codec->traits().written)
      formats.emplace_back(codec, codec->traits(), dir + "/cloud" + codec->traits().extension);
  return formats;
}

TEST(FileFormats, EachExtensionNamesOneFormatAndEveryMessageListsThem) {
  std::set<std::string> extensions;
  for (const FormatCodec* codec : fileFormats()) {
    const FormatTraits t = codec->traits();
    EXPECT_TRUE(extensions.insert(t.extension).second) << t.extension;
    EXPECT_EQ(t.extension, extension(std::string("a/b.c/cloud") + t.extension));
    if (t.read) {
      EXPECT_EQ(&inputFormat(std::string("x") + t.extension), codec);
    }
    if (t.written) {  // case does not matter
      EXPECT_EQ(&outputFormat(std::string("X") + t.extension), codec);
    }
  }
  EXPECT_EQ(formatExtensions(false), ".pcd, .ply, .las, .laz or .xyz");
  EXPECT_EQ(formatExtensions(true), ".pcd, .ply, .las, .laz, .xyz or .normals");
  try {
    inputFormat("cloud.normals");
    FAIL() << "a .normals file is not an input";
  } catch (const FileError& e) {
    EXPECT_STREQ(e.what(), "'cloud.normals': unknown extension '.normals' (expected .pcd, .ply, .las, .laz or .xyz)");
  }
  EXPECT_THROW(outputFormat("cloud.txt"), FileError);
  EXPECT_THROW(inputFormat("folder.d/cloud"), FileError);  // no extension
}

TEST(FileFormats, EveryFormatReadAndWrittenRoundTripsThroughTheWriterTheStreamAndTheTable) {
  const std::string dir = test::temporaryDir("file_formats_round_trip");
  const Points p = somePoints(1000);
  for (const auto& [codec, t, path] : roundTripFormats(dir)) {
    SCOPED_TRACE(t.extension);
    writePoints(path, p);
    // The stream, in chunks that do not divide the count, twice (restart).
    PointStream stream(path);
    EXPECT_EQ(stream.countPoints(), p.xyz.size());
    EXPECT_EQ(stream.traits().keeps_records, t.keeps_records);
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<std::array<double, 3>> xyz;
      while (stream.read(77, xyz) > 0) {}
      ASSERT_EQ(xyz.size(), p.xyz.size());
      const double tolerance = t.keeps_records ? 1e-6 : 0.0;  // LAS quantises (here to 1e-9)
      for (std::size_t i = 0; i < xyz.size(); ++i)
        for (int c = 0; c < 3; ++c) ASSERT_NEAR(xyz[i][c], p.xyz[i][c], tolerance) << i;
      stream.restart();
    }
    // The whole table: the same points and the normals as fields.
    const PointTable table = readPointTable(path);
    EXPECT_EQ(table.format, t.name);
    ASSERT_EQ(table.xyz.size(), p.xyz.size());
    const PointField* nz = field(table, {"normal_z", "NormalZ", "nz"});
    ASSERT_NE(nz, nullptr);
    for (std::size_t i = 0; i < p.xyz.size(); ++i) EXPECT_FLOAT_EQ(float(nz->values[i]), p.normals[i][2]);
    // The codec's own whole read gives the same coordinates.
    EXPECT_EQ(codec->read(path, false).xyz, table.xyz);
  }
}

TEST(FileFormats, PointValuesGoWhereTheFormatHoldsThemUnderTheirNames) {
  const std::string dir = test::temporaryDir("file_formats_values");
  const Points p = somePoints(10);
  for (const auto& [codec, t, path] : roundTripFormats(dir)) {
    SCOPED_TRACE(t.extension);
    writePoints(path, p, {PointValue::kErrorBound, PointValue::kOrientationConfidence});
    const PointTable table = readPointTable(path);
    const PointValueNames& bound = namesOf(PointValue::kErrorBound);
    const PointValueNames& confidence = namesOf(PointValue::kOrientationConfidence);
    const PointField* bounds = field(table, {bound.field, bound.las_name});
    const PointField* confidences = field(table, {confidence.field, confidence.las_name});
    EXPECT_EQ(bounds != nullptr, t.point_values);
    EXPECT_EQ(confidences != nullptr, t.point_values);
    if (bounds && confidences) {  // in the order asked for
      EXPECT_EQ(bounds->values[3], 0.25);
      EXPECT_EQ(confidences->values[3], 1.25);
    }
  }
  std::vector<PointValue> twice = {PointValue::kErrorBound, PointValue::kErrorBound};
  EXPECT_THROW(writePoints(dir + "/twice.pcd", p, twice), FileError);
}

TEST(FileFormats, ALasSourceKeepsItsRecordsAndNoStaleValue) {
  const std::string dir = test::temporaryDir("file_formats_las_values");
  const Points p = somePoints(10);
  writePoints(dir + "/first.las", p, {PointValue::kOrientationConfidence});
  // Written again over its own records with the error bound alone: the confidence's extra byte
  // stays in the records, NaN (this run gave none), the bound added after it.
  writePoints(dir + "/again.las", p, {PointValue::kErrorBound}, dir + "/first.las");
  const PointTable table = readPointTable(dir + "/again.las");
  const PointField* confidences = field(table, {namesOf(PointValue::kOrientationConfidence).las_name});
  const PointField* bounds = field(table, {namesOf(PointValue::kErrorBound).las_name});
  ASSERT_NE(confidences, nullptr);
  ASSERT_NE(bounds, nullptr);
  for (std::size_t i = 0; i < p.xyz.size(); ++i) {
    EXPECT_TRUE(std::isnan(confidences->values[i])) << i;
    EXPECT_EQ(bounds->values[i], 0.25) << i;
  }
  std::size_t ours = 0;
  for (const PointField& f : table.fields) ours += f.name == "NormalX" || f.name == bounds->name;
  EXPECT_EQ(ours, 2u);  // each once: a source's own extra bytes are reused, not added again
}

TEST(NormalsWriter, TheNormalsFileHoldsOneLinePerPoint) {
  const std::string path = test::temporaryDir("normals_writer_text") + "/cloud.normals";
  writePoints(path, somePoints(3));
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "0.6 0 0.8");
}

TEST(NormalsWriter, AFileThatIsNotCompleteIsNeverLeftUnderItsName) {
  const std::string dir = test::temporaryDir("normals_writer_partial");
  NormalsFileLayout layout;
  layout.points = 2;
  const float normal[3] = {0, 0, 1};
  {
    NormalsWriter writer(dir + "/short.pcd", layout);
    writer.add({0, 0, 0}, normal, 0.f);
    EXPECT_THROW(writer.finish(), FileError);  // one point of two
  }
  {
    NormalsWriter writer(dir + "/long.ply", layout);
    writer.add({0, 0, 0}, normal, 0.f);
    writer.add({1, 0, 0}, normal, 0.f);
    EXPECT_THROW(writer.add({2, 0, 0}, normal, 0.f), FileError);
  }
  {
    NormalsWriter writer(dir + "/dropped.xyz", layout);  // never finished
    writer.add({0, 0, 0}, normal, 0.f);
  }
  for (const char* name : {"short.pcd", "long.ply", "dropped.xyz"}) {
    EXPECT_FALSE(std::filesystem::exists(dir + "/" + name)) << name;
    EXPECT_FALSE(std::filesystem::exists(dir + "/" + name + ".partial")) << name;
  }
  layout.width = 3;  // 3 x 1 is not 2 points
  EXPECT_THROW(NormalsWriter(dir + "/organized.pcd", layout), FileError);
  layout.width = 0;
  EXPECT_THROW(NormalsWriter(dir + "/new.las", layout), FileError);  // LAS needs a scale and offset
  EXPECT_THROW(NormalsWriter(dir + "/cloud.txt", layout), FileError);
}

TEST(PointStream, RefusesWhatCannotBeReadPieceByPieceSayingWhatToDo) {
  const std::string dir = test::temporaryDir("point_stream_refusals");
  {
    std::ofstream(dir + "/ascii.pcd") << "VERSION .7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 1\n"
                                         "HEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 1\nDATA ascii\n1 2 3\n";
    std::ofstream(dir + "/ascii.ply") << "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                                         "property float y\nproperty float z\nend_header\n1 2 3\n";
    std::ofstream(dir + "/short.pcd") << "VERSION .7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 9\n"
                                         "HEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 9\nDATA binary\n123456789012";
  }
  EXPECT_THROW(
      {
        try {
          PointStream stream(dir + "/ascii.pcd");
        } catch (const FileError& e) {
          EXPECT_NE(std::string(e.what()).find("pcl_convert_pcd_ascii_binary"), std::string::npos) << e.what();
          throw;
        }
      },
      FileError);
  EXPECT_THROW(PointStream stream(dir + "/ascii.ply"), FileError);
  try {
    PointStream stream(dir + "/short.pcd");
    FAIL() << "a header promising more than the file holds";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("more than the file holds"), std::string::npos) << e.what();
  }
  EXPECT_THROW(PointStream stream(dir + "/missing.las"), FileError);
}

TEST(PointStream, AnOrganizedPcdKeepsItsLayoutAndViewpoint) {
  const std::string path = test::temporaryDir("point_stream_layout") + "/organized.pcd";
  NormalsFileLayout layout;
  layout.points = 6;
  layout.width = 3;
  layout.height = 2;
  layout.viewpoint = {1, 2, 3, 0, 1, 0, 0};
  {
    NormalsWriter writer(path, layout);
    const float normal[3] = {0, 0, 1};
    for (int i = 0; i < 6; ++i) writer.add({double(i), 0, 0}, normal, 0.f);
    writer.finish();
  }
  PointStream stream(path);
  EXPECT_EQ(stream.layout().width, 3u);
  EXPECT_EQ(stream.layout().height, 2u);
  EXPECT_EQ(stream.layout().viewpoint, layout.viewpoint);
  EXPECT_EQ(stream.countPoints(), 6u);
}

}  // namespace
}  // namespace io
}  // namespace pcl_dise
