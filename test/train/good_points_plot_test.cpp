// The raster image and the good-points plot: sizes, drawn pixels where they belong, text, PNG
// round trip, and refused input.
#include <set>

#include <gtest/gtest.h>
#include <png.h>

#include "pcl_dise/train/good_points_plot.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::train;

TEST(RasterImage, LinesRectanglesAndText) {
  RasterImage image(40, 30);
  image.line(0, 0, 39, 29, {255, 0, 0});
  EXPECT_EQ(image.pixel(0, 0), (Color{255, 0, 0}));
  EXPECT_EQ(image.pixel(39, 29), (Color{255, 0, 0}));
  EXPECT_EQ(image.pixel(39, 0), (Color{255, 255, 255}));
  image.fillRect(-5, 20, 3, 100, {0, 0, 255});  // clipped, no crash
  EXPECT_EQ(image.pixel(0, 29), (Color{0, 0, 255}));
  RasterImage text(30, 20);
  text.text(1, 1, "1", {0, 0, 0}, 1);  // '1': its stem is column 2 of the glyph
  EXPECT_EQ(text.pixel(3, 3), (Color{0, 0, 0}));
  EXPECT_EQ(text.pixel(1, 3), (Color{255, 255, 255}));
  EXPECT_EQ(RasterImage::textWidth("abc", 2), 36);
  EXPECT_THROW(RasterImage(0, 5), std::invalid_argument);
}

TEST(GoodPointsPlot, DrawsEveryPanelAndCurveAndWritesPng) {
  std::vector<double> rising(18), flat(18, 0.5);
  for (int t = 0; t < 18; ++t) rising[t] = (t + 1) / 18.0;
  const std::vector<GoodPointsPanel> panels = {
      {"no_noise", {{"DISE", {200, 40, 40}, rising}, {"PCA", {40, 90, 200}, flat}}},
      {"low_noise", {{"DISE", {200, 40, 40}, flat}, {"PCA", {40, 90, 200}, rising}}},
      {"med_noise", {{"DISE", {200, 40, 40}, rising}, {"PCA", {40, 90, 200}, rising}}},
      {"high_noise", {{"DISE", {200, 40, 40}, rising}, {"PCA", {40, 90, 200}, flat}}}};
  const RasterImage image = plotGoodPoints(panels, 3);
  EXPECT_EQ(image.width(), 3 * 420);
  EXPECT_EQ(image.height(), 2 * 330 + 50);
  std::size_t red = 0, blue = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      red += image.pixel(x, y) == Color{200, 40, 40};
      blue += image.pixel(x, y) == Color{40, 90, 200};
    }
  EXPECT_GT(red, 1000u);
  EXPECT_GT(blue, 1000u);
  // The second row holds the fourth panel: its curves are there, the empty fifth slot is blank.
  std::size_t coloured_fourth = 0, coloured_fifth = 0;
  for (int y = 50 + 330; y < image.height(); ++y)
    for (int x = 0; x < 420; ++x) coloured_fourth += image.pixel(x, y) == Color{200, 40, 40};
  for (int y = 50 + 330; y < image.height(); ++y)
    for (int x = 420; x < 840; ++x) coloured_fifth += image.pixel(x, y) != Color{255, 255, 255};
  EXPECT_GT(coloured_fourth, 100u);
  EXPECT_EQ(coloured_fifth, 0u);

  const std::string path = pcl_dise::test::temporaryDir("plot") + "/plot.png";
  image.writePng(path);
  png_image read{};
  read.version = PNG_IMAGE_VERSION;
  ASSERT_TRUE(png_image_begin_read_from_file(&read, path.c_str()));
  EXPECT_EQ(read.width, 3u * 420u);
  png_image_free(&read);
  EXPECT_THROW(image.writePng("/nonexistent_dir/plot.png"), std::runtime_error);
}

TEST(GoodPointsPlot, RefusesBadInput) {
  EXPECT_THROW(plotGoodPoints({}), std::invalid_argument);
  EXPECT_THROW(plotGoodPoints({{"x", {{"DISE", {0, 0, 0}, {0.5, 0.6}}}}}), std::invalid_argument);
}

}  // namespace
