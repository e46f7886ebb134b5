#include "pcl_dise/orientation/outside_grid.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace pcl_dise {
namespace {

enum Cell : std::uint8_t { kEmpty = 0, kBand = 1, kOutside = 2 };

// Grows every band cell into a cube of 2 × radius + 1 cells, one axis at a time (a cube is the
// product of three segments).
void dilate(std::vector<std::uint8_t>& cells, const std::int64_t dims[3], int radius) {
  if (radius <= 0) return;
  const std::int64_t stride[3] = {1, dims[0], dims[0] * dims[1]};
  std::vector<std::uint8_t> line;
  for (int axis = 0; axis < 3; ++axis) {
    const int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
    line.resize(dims[axis]);
    for (std::int64_t u = 0; u < dims[a1]; ++u)
      for (std::int64_t v = 0; v < dims[a2]; ++v) {
        const std::int64_t base = u * stride[a1] + v * stride[a2];
        for (std::int64_t t = 0; t < dims[axis]; ++t) line[t] = cells[base + t * stride[axis]];
        // Distance to the last band cell seen, forwards then backwards.
        std::int64_t last = -(std::int64_t(radius) + 1);
        for (std::int64_t t = 0; t < dims[axis]; ++t) {
          if (line[t] == kBand) last = t;
          if (t - last <= radius) cells[base + t * stride[axis]] = kBand;
        }
        last = dims[axis] + radius + 1;
        for (std::int64_t t = dims[axis] - 1; t >= 0; --t) {
          if (line[t] == kBand) last = t;
          if (last - t <= radius) cells[base + t * stride[axis]] = kBand;
        }
      }
  }
}

// Marks the empty cells 6-connected to the grid's border as outside (breadth-first).
void floodOutside(std::vector<std::uint8_t>& cells, const std::int64_t dims[3]) {
  std::vector<std::uint32_t> queue;  // cells: at most 2^32 (the grid is capped far below)
  auto visit = [&](std::int64_t c) {
    if (cells[c] != kEmpty) return;
    cells[c] = kOutside;
    queue.push_back(static_cast<std::uint32_t>(c));
  };
  for (std::int64_t z = 0; z < dims[2]; ++z)
    for (std::int64_t y = 0; y < dims[1]; ++y)
      for (std::int64_t x = 0; x < dims[0]; ++x)
        if (x == 0 || y == 0 || z == 0 || x == dims[0] - 1 || y == dims[1] - 1 || z == dims[2] - 1)
          visit((z * dims[1] + y) * dims[0] + x);
  const std::int64_t plane = dims[0] * dims[1];
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::int64_t c = queue[head];
    const std::int64_t x = c % dims[0], y = (c / dims[0]) % dims[1], z = c / plane;
    if (x > 0) visit(c - 1);
    if (x + 1 < dims[0]) visit(c + 1);
    if (y > 0) visit(c - dims[0]);
    if (y + 1 < dims[1]) visit(c + dims[0]);
    if (z > 0) visit(c - plane);
    if (z + 1 < dims[2]) visit(c + plane);
  }
}

}  // namespace

OutsideGrid::OutsideGrid(const float* points, std::size_t num_points, float cell, int dilation, std::size_t max_cells) {
  if (!std::isfinite(cell) || cell <= 0.f)
    throw std::invalid_argument("OutsideGrid: the cell must be finite and positive, got " + std::to_string(cell));
  if (dilation < 0 || dilation > 64)
    throw std::invalid_argument("OutsideGrid: dilation must lie in [0, 64], got " + std::to_string(dilation));
  float lo[3] = {std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
                 std::numeric_limits<float>::max()};
  float hi[3] = {std::numeric_limits<float>::lowest(), std::numeric_limits<float>::lowest(),
                 std::numeric_limits<float>::lowest()};
  std::size_t finite = 0;
  for (std::size_t i = 0; i < num_points; ++i) {
    const float* p = points + 3 * i;
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) continue;
    ++finite;
    for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
  }
  outside_.assign(1, kOutside);
  if (finite == 0) return;
  // A margin of empty cells on every side, so that the border is outside.
  const std::int64_t margin = dilation + 2;
  cell_ = cell;
  max_cells = std::min<std::size_t>(std::max<std::size_t>(max_cells, 1), std::numeric_limits<std::uint32_t>::max());
  for (;;) {
    double cells = 1;
    for (int a = 0; a < 3; ++a) cells *= std::floor(double(hi[a] - lo[a]) / cell_) + 1 + 2 * margin;
    if (cells <= double(max_cells)) break;
    cell_ *= 1.01f * static_cast<float>(std::cbrt(cells / double(max_cells)));
  }
  for (int a = 0; a < 3; ++a) {
    dims_[a] = static_cast<std::int64_t>(std::floor(double(hi[a] - lo[a]) / cell_)) + 1 + 2 * margin;
    lower_[a] = lo[a] - margin * cell_;
  }
  outside_.assign(static_cast<std::size_t>(dims_[0] * dims_[1] * dims_[2]), kEmpty);
  for (std::size_t i = 0; i < num_points; ++i) {
    const float* p = points + 3 * i;
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) continue;
    std::int64_t c[3];
    for (int a = 0; a < 3; ++a)
      c[a] = std::clamp<std::int64_t>(static_cast<std::int64_t>((p[a] - lower_[a]) / cell_), 0, dims_[a] - 1);
    outside_[(c[2] * dims_[1] + c[1]) * dims_[0] + c[0]] = kBand;
  }
  dilate(outside_, dims_, dilation);
  floodOutside(outside_, dims_);
  enclosed_ = static_cast<std::size_t>(std::count(outside_.begin(), outside_.end(), std::uint8_t(kEmpty)));
  band_ = static_cast<std::size_t>(std::count(outside_.begin(), outside_.end(), std::uint8_t(kBand)));
}

std::int64_t OutsideGrid::cellOf(const float p[3]) const {
  std::int64_t c[3];
  for (int a = 0; a < 3; ++a) {
    const float t = (p[a] - lower_[a]) / cell_;
    if (!(t >= 0.f) || t >= float(dims_[a])) return -1;  // beyond the grid, or NaN
    c[a] = static_cast<std::int64_t>(t);
  }
  return (c[2] * dims_[1] + c[1]) * dims_[0] + c[0];
}

bool OutsideGrid::outside(const float p[3]) const {
  const std::int64_t c = cellOf(p);
  return c < 0 || outside_[static_cast<std::size_t>(c)] == kOutside;
}

bool OutsideGrid::enclosed(const float p[3]) const {
  const std::int64_t c = cellOf(p);
  return c >= 0 && outside_[static_cast<std::size_t>(c)] == kEmpty;
}

}  // namespace pcl_dise
