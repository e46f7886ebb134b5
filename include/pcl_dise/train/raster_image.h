#pragma once
// A small RGB raster with lines, rectangles and 5x7 bitmap text, written as PNG (libpng): enough
// for dise_eval's plots without a display or a plotting library.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pcl_dise {
namespace train {

using Color = std::array<std::uint8_t, 3>;

/** An RGB picture drawn with rectangles, lines and a small bitmap font, written as PNG (the
 *  evaluation's plots, without a plotting library). */
class RasterImage {
 public:
  /** A width x height image filled with `background`. */
  RasterImage(int width, int height, Color background = {255, 255, 255});

  int width() const { return width_; }    ///< pixels
  int height() const { return height_; }  ///< pixels
  /** Pixel (x, y), x to the right and y downwards from the top-left corner. */
  Color pixel(int x, int y) const;

  /** Pixels outside the image are ignored by every drawing call. */
  void fillRect(int x0, int y0, int x1, int y1, Color color);
  /** A line of square pen `thickness` pixels from (x0, y0) to (x1, y1), ends included. */
  void line(int x0, int y0, int x1, int y1, Color color, int thickness = 1);
  /** Text in a 5x7 font scaled by `scale` (each glyph 6*scale wide), top-left at (x, y). Lower
   *  case is drawn as upper case; characters the font lacks leave a blank. */
  void text(int x, int y, const std::string& s, Color color, int scale = 2);
  /** \brief The width text() gives `s` at `scale`, in pixels. */
  static int textWidth(const std::string& s, int scale = 2) { return static_cast<int>(s.size()) * 6 * scale; }

  /** Writes a PNG; throws std::runtime_error naming the file where that fails. */
  void writePng(const std::string& path) const;

 private:
  int width_, height_;
  std::vector<std::uint8_t> rgb_;  ///< height x width x 3
};

}  // namespace train
}  // namespace pcl_dise
