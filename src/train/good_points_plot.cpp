#include "pcl_dise/train/good_points_plot.h"

#include <cmath>
#include <stdexcept>

namespace pcl_dise {
namespace train {

namespace {

constexpr int kThresholds = 18;  // 5, 10, ..., 90 degrees
constexpr int kPanelWidth = 420, kPanelHeight = 330, kLegendHeight = 50;
constexpr int kLeft = 70, kRight = 20, kTop = 40, kBottom = 55;  // plot margins inside a panel
const Color kInk{30, 30, 30}, kGrid{225, 225, 225};

void drawPanel(RasterImage& image, int x0, int y0, const GoodPointsPanel& panel) {
  const int px0 = x0 + kLeft, px1 = x0 + kPanelWidth - kRight, py0 = y0 + kTop, py1 = y0 + kPanelHeight - kBottom;
  auto toX = [&](double degrees) { return px0 + static_cast<int>(std::lround((px1 - px0) * degrees / 90.0)); };
  auto toY = [&](double share) { return py1 - static_cast<int>(std::lround((py1 - py0) * share)); };
  for (int d = 0; d <= 90; d += 10) {
    image.line(toX(d), py0, toX(d), py1, kGrid);
    const std::string label = std::to_string(d);
    image.text(toX(d) - RasterImage::textWidth(label) / 2, py1 + 8, label, kInk);
  }
  for (int p = 0; p <= 100; p += 20) {
    image.line(px0, toY(p / 100.0), px1, toY(p / 100.0), kGrid);
    const std::string label = std::to_string(p);
    image.text(px0 - 8 - RasterImage::textWidth(label), toY(p / 100.0) - 7, label, kInk);
  }
  image.line(px0, py0, px0, py1, kInk, 2);
  image.line(px0, py1, px1, py1, kInk, 2);
  image.text(x0 + (kPanelWidth - RasterImage::textWidth(panel.title)) / 2, y0 + 12, panel.title, kInk);
  const std::string x_label = "ANGLE (DEG)";
  image.text((px0 + px1 - RasterImage::textWidth(x_label)) / 2, py1 + 30, x_label, kInk);
  image.text(x0 + 6, y0 + 12, "% GOOD", kInk);
  for (const auto& curve : panel.curves) {
    // From (0, 0): no point has an error under 0 degrees.
    int x = toX(0), y = toY(0);
    for (int t = 0; t < kThresholds; ++t) {
      const int nx = toX(5.0 * (t + 1)), ny = toY(curve.shares[t]);
      image.line(x, y, nx, ny, curve.color, 3);
      x = nx, y = ny;
    }
  }
}

}  // namespace

RasterImage plotGoodPoints(const std::vector<GoodPointsPanel>& panels, int columns) {
  if (panels.empty() || columns < 1) throw std::invalid_argument("plotGoodPoints needs panels and columns >= 1");
  for (const auto& panel : panels)
    for (const auto& curve : panel.curves)
      if (curve.shares.size() != kThresholds)
        throw std::invalid_argument("curve '" + curve.method + "' of '" + panel.title + "' needs 18 shares");
  const int cols = std::min<int>(columns, static_cast<int>(panels.size()));
  const int rows = static_cast<int>((panels.size() + cols - 1) / cols);
  RasterImage image(cols * kPanelWidth, rows * kPanelHeight + kLegendHeight);
  // Legend: the methods of the first panel, in order.
  int x = 20;
  for (const auto& curve : panels.front().curves) {
    image.fillRect(x, 18, x + 30, 22, curve.color);
    image.text(x + 40, 13, curve.method, kInk);
    x += 80 + RasterImage::textWidth(curve.method);
  }
  for (std::size_t i = 0; i < panels.size(); ++i)
    drawPanel(image, static_cast<int>(i % cols) * kPanelWidth,
              kLegendHeight + static_cast<int>(i / cols) * kPanelHeight, panels[i]);
  return image;
}

}  // namespace train
}  // namespace pcl_dise
