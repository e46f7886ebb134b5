// readTextTriples (text_io.h): what it accepts, and a clear error naming the file and line for
// anything else.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <thread>

#include "pcl_dise/io/text_io.h"
#include "test_support.h"

namespace {

std::string writeText(const std::string& name, const std::string& text) {
  const std::string path = pcl_dise::test::temporaryDir("text_io") + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string errorOf(const std::string& text) {
  try {
    pcl_dise::io::readTextTriples(writeText("bad.xyz", text));
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// A pipe has no size to read in one piece: it is read as a stream.
TEST(TextTriples, ReadsFromAPipe) {
  const std::string path = pcl_dise::test::temporaryDir("text_io") + "/pipe.xyz";
  std::remove(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(path) << "1 2 3\n4 5 6\n"; });
  const auto rows = pcl_dise::io::readTextTriplesInDouble(path);
  writer.join();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][2], 6.0);
}

TEST(TextTriples, ReadsNumbersInEveryFormStrtofAccepts) {
  const auto rows = pcl_dise::io::readTextTriples(
      writeText("ok.xyz", "1 2 3\n\n  -0.5\t+2e3 1e-50\r\nnan -inf 0x1p3\n4 5 6"));  // no newline at the end
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0][2], 3.f);
  EXPECT_EQ(rows[1][0], -0.5f);
  EXPECT_EQ(rows[1][1], 2000.f);
  EXPECT_EQ(rows[1][2], 0.f);
  EXPECT_TRUE(std::isnan(rows[2][0]));
  EXPECT_EQ(rows[2][1], -INFINITY);
  EXPECT_EQ(rows[2][2], 8.f);
  EXPECT_EQ(rows[3][2], 6.f);
}

TEST(TextTriples, BadLinesNameTheFileAndLine) {
  EXPECT_NE(errorOf("1 2 3\n1 2\n").find("line 2: 2 values, expected 3"), std::string::npos);
  EXPECT_NE(errorOf("1 2 3 4\n").find("line 1: more than 3 values"), std::string::npos);
  EXPECT_NE(errorOf("1 2 x\n").find("line 1: 'x' is not a number"), std::string::npos);
  EXPECT_NE(errorOf("1 2 3abc\n").find("'3abc' is not a number"), std::string::npos);
  EXPECT_NE(errorOf("1 2\n").find("bad.xyz': line 1"), std::string::npos);
  EXPECT_THROW(pcl_dise::io::readTextTriples("/nonexistent/file.xyz"), std::runtime_error);
}

TEST(TextTriples, PointsMayHaveMoreColumnsAsManyOnEveryLine) {
  // x y z nx ny nz curvature, as dise_normals writes .xyz: the points are the first three.
  const auto rows =
      pcl_dise::io::readTextTriplesInDouble(writeText("xyzn.xyz", "1 2 3 0 0 1 0.5\n\n4 5 6 1 0 0 nan\n"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][0], 4.0);
  EXPECT_EQ(rows[1][2], 6.0);
  pcl_dise::io::TextTripleStream stream(writeText("stream.xyz", "1 2 3 9\n4 5 6 9\n"));
  std::array<double, 3> row;
  ASSERT_TRUE(stream.next(row));
  ASSERT_TRUE(stream.next(row));
  EXPECT_EQ(row[1], 5.0);
  EXPECT_FALSE(stream.next(row));
  auto pointsError = [](const std::string& text) {
    try {
      pcl_dise::io::readTextTriplesInDouble(writeText("bad_points.xyz", text));
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(pointsError("1 2 3 4\n1 2 3\n").find("line 2: 3 values, expected 4"), std::string::npos);
  EXPECT_NE(pointsError("1 2\n").find("line 1: 2 values, expected 3 or more"), std::string::npos);
}

TEST(TextTriples, LargeFilesParseInPiecesWithTheWholeFilesLineNumbers) {
  // Over a megabyte: parsed in one piece per thread. The rows come in order, and an error in a
  // later piece names its line in the whole file.
  std::string text;
  const int n = 100000;
  for (int i = 0; i < n; ++i) text += std::to_string(i) + " " + std::to_string(2 * i) + " 0.25\n";
  ASSERT_GT(text.size(), 1u << 20);
  const auto rows = pcl_dise::io::readTextTriplesInDouble(writeText("large.xyz", text));
  ASSERT_EQ(rows.size(), std::size_t(n));
  for (int i = 0; i < n; i += 997) EXPECT_EQ(rows[i][1], 2.0 * i);
  EXPECT_EQ(rows.back()[0], n - 1.0);
  std::string broken = text + "1 2 x\n";
  EXPECT_NE(errorOf(broken).find("line " + std::to_string(n + 1) + ": 'x' is not a number"), std::string::npos)
      << errorOf(broken);
  std::string wider = text + "1 2 3 4\n";
  try {
    pcl_dise::io::readTextTriplesInDouble(writeText("wider.xyz", wider));
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("line " + std::to_string(n + 1) + ": more than 3 values"), std::string::npos)
        << e.what();
  }
}

}  // namespace
