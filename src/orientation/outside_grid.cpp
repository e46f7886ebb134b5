#include "pcl_dise/orientation/outside_grid.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace pcl_dise {
namespace {

enum Cell : std::uint8_t { kEmpty = 0, kBand = 1, kOutside = 2 };

// Grows every band cell into a cube of 2 × radius + 1 cells, one axis at a time (a cube is the
// product of three segments). Along an axis a cell becomes band where the axis' line holds a band
// cell within radius of it: the distance to the nearest one is carried forwards, then backwards.
// Lines side by side (a row of x for y, a plane for z) are carried together, each with its own
// distance, so that every pass reads memory in order.
void dilate(std::vector<std::uint8_t>& cells, const std::int64_t dims[3], int radius) {
  if (radius <= 0) return;
  const std::int64_t nx = dims[0], ny = dims[1], nz = dims[2];
  const auto far = static_cast<std::int32_t>(radius) + 1;  // no band cell within radius
  std::vector<std::uint8_t> band;
  std::vector<std::int32_t> since;
  auto along = [&](std::int64_t groups, std::int64_t width, std::int64_t length, std::int64_t group_step) {
    band.resize(static_cast<std::size_t>(width * length));
    since.resize(static_cast<std::size_t>(width));
    for (std::int64_t g = 0; g < groups; ++g) {
      std::uint8_t* first = &cells[static_cast<std::size_t>(g * group_step)];
      std::copy_n(first, width * length, band.begin());
      for (int pass = 0; pass < 2; ++pass) {
        std::fill(since.begin(), since.end(), far);
        for (std::int64_t u = 0; u < length; ++u) {
          const std::int64_t t = pass == 0 ? u : length - 1 - u;
          const std::uint8_t* from = &band[static_cast<std::size_t>(t * width)];
          std::uint8_t* to = first + t * width;
          for (std::int64_t x = 0; x < width; ++x) {
            since[x] = from[x] == kBand ? 0 : std::min(since[x] + 1, far);
            if (since[x] <= radius) to[x] = kBand;
          }
        }
      }
    }
  };
  along(ny * nz, 1, nx, nx);   // x: each row alone
  along(nz, nx, ny, nx * ny);  // y: in each plane, its rows
  along(1, nx * ny, nz, 0);    // z: the planes
}

// Marks the empty cells 6-connected to the grid's border as outside: a scanline flood, which fills
// a row's run of empty cells at once and queues one cell of each empty run it touches in the four
// neighbouring rows, so that memory is read in order.
void floodOutside(std::vector<std::uint8_t>& cells, const std::int64_t dims[3]) {
  const std::int64_t nx = dims[0], ny = dims[1], nz = dims[2];
  std::vector<std::int64_t> queue;  // a cell of each run to fill
  // Queues the start of each empty run among cells [x0, x1] of row (y, z).
  auto queueRuns = [&](std::int64_t y, std::int64_t z, std::int64_t x0, std::int64_t x1) {
    if (y < 0 || z < 0 || y >= ny || z >= nz) return;
    const std::uint8_t* const first = &cells[(z * ny + y) * nx];
    const std::uint8_t* const end = first + x1 + 1;
    for (const std::uint8_t* c = first + x0; c < end;) {
      c = static_cast<const std::uint8_t*>(std::memchr(c, kEmpty, end - c));  // kEmpty is 0
      if (!c) return;
      queue.push_back(c - cells.data());
      while (c < end && *c == kEmpty) ++c;
    }
  };
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < ny; ++y) {
      if (y == 0 || z == 0 || y == ny - 1 || z == nz - 1) {
        queueRuns(y, z, 0, nx - 1);
      } else {
        queueRuns(y, z, 0, 0);
        queueRuns(y, z, nx - 1, nx - 1);
      }
    }
  while (!queue.empty()) {
    const std::int64_t c = queue.back();
    queue.pop_back();
    if (cells[c] != kEmpty) continue;  // filled from another seed since
    const std::int64_t row = c - c % nx, y = (c / nx) % ny, z = c / (nx * ny);
    std::int64_t x0 = c - row, x1 = x0;
    while (x0 > 0 && cells[row + x0 - 1] == kEmpty) --x0;
    while (x1 + 1 < nx && cells[row + x1 + 1] == kEmpty) ++x1;
    std::fill(&cells[row + x0], &cells[row + x1] + 1, std::uint8_t(kOutside));
    queueRuns(y - 1, z, x0, x1);
    queueRuns(y + 1, z, x0, x1);
    queueRuns(y, z - 1, x0, x1);
    queueRuns(y, z + 1, x0, x1);
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
