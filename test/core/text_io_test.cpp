// readTextTriples (text_io.h): what it accepts, and a clear error naming the file and line for
// anything else.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "pcl_dise/core/text_io.h"
#include "test_support.h"

namespace {

std::string writeText(const std::string& name, const std::string& text) {
  const std::string path = pcl_dise::test::temporaryDir("text_io") + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string errorOf(const std::string& text) {
  try {
    pcl_dise::readTextTriples(writeText("bad.xyz", text));
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(TextTriples, ReadsNumbersInEveryFormStrtofAccepts) {
  const auto rows = pcl_dise::readTextTriples(
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
  EXPECT_THROW(pcl_dise::readTextTriples("/nonexistent/file.xyz"), std::runtime_error);
}

}  // namespace
