#pragma once
// A cloud cut into tiles, as the tiled forward pass (tiled_forward.h) reads it: boxes that hold
// at most a given number of points each, and any box's points on request. The points stay where they are (in memory:
// TiledCloudInMemory; on disk: TiledCloudOnDisk, disk_tiled_cloud.h); a tile loads only its box grown by a halo.
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pcl_dise {

/** An axis-aligned box, closed on both sides. */
struct Box {
  std::array<double, 3> lo{0, 0, 0};  ///< the smallest x, y, z
  std::array<double, 3> hi{0, 0, 0};  ///< the largest x, y, z
  /** \brief Whether point p (3 floats) lies in the box, faces included. */
  bool contains(const float* p) const {
    return p[0] >= lo[0] && p[0] <= hi[0] && p[1] >= lo[1] && p[1] <= hi[1] && p[2] >= lo[2] && p[2] <= hi[2];
  }
  /** \brief The box grown by `margin` (units of the points) on every side. */
  Box grown(double margin) const;
};

/** Boxes that cut a cloud's bounds into tiles of at most a given number of points: a k-d tree
 *  over a fine grid (128 cells along the longest side) whose boxes split along their longest side
 *  until each holds few enough (or is one fine cell). A box needing t tiles gives floor(t / 2)
 *  tiles' worth to its first part, so tiles come out near the allowed size, not halved down to a
 *  power of two. Tiles follow the density: a dense blob gets small tiles, sparse parts large ones. */
class TileTree {
 public:
  /** \brief The number of tiles. */
  std::size_t size() const { return boxes_.size(); }
  /** \brief The box the tiles cut: the cloud's bounds. */
  const Box& bounds() const { return bounds_; }
  /** \brief Tile `tile`'s box (tile < size()). */
  const Box& tileBox(std::size_t tile) const { return boxes_[tile]; }
  /** Points the histogram counted in the tile. */
  std::size_t tilePoints(std::size_t tile) const { return counts_[tile]; }
  /** The tile holding p (points on the bounds' far faces fall in the last tiles). */
  std::size_t tileOf(const float* p) const;
  /** Every tile whose box meets `region`. */
  std::vector<std::size_t> tilesMeeting(const Box& region) const;

 private:
  friend class DensityHistogram;
  struct Node {
    int axis = -1;  ///< -1: a leaf, tile `split`
    int split = 0;  ///< fine cells below split go to child[0]
    std::int32_t child[2] = {-1, -1};
  };
  std::array<int, 3> fineCell(const float* p) const;

  Box bounds_;
  double fine_side_ = 1;
  std::array<int, 3> fine_dims_{1, 1, 1};
  std::vector<Node> nodes_;
  std::vector<Box> boxes_;
  std::vector<std::size_t> counts_;
};

/** Counts of points on the fine grid over known bounds, from which tiles() builds the TileTree.
 *  One pass over the points, 8 MB at most. */
class DensityHistogram {
 public:
  /** \brief An empty histogram over `bounds`, which every point added must lie in. */
  explicit DensityHistogram(const Box& bounds);
  /** \brief Counts point p (3 floats). */
  void add(const float* p);
  /** Tiles of at most tile_points points each, where one fine cell does not hold more. */
  TileTree tiles(std::size_t tile_points) const;

 private:
  TileTree grid_;  ///< the fine grid, no nodes yet
  std::vector<std::uint32_t> counts_;
};

/** Some of a tile's points: all of them (`whole`), or those inside `box`, whose upper faces are
 *  open where `open_hi` says (so that the two halves of a split share no point). A tile whose
 *  halo outgrows the memory budget is run in parts. */
struct TilePart {
  std::size_t tile = 0;                              ///< the tile this is a part of
  Box box;                                           ///< the part's box (unused where whole)
  bool whole = true;                                 ///< the whole tile
  std::array<bool, 3> open_hi{false, false, false};  ///< per axis, whether box's upper face is open
  /** \brief Whether point p (3 floats, one of the tile's) belongs to this part. */
  bool holds(const float* p) const;
  /** The two halves of `box` along its longest side, each a part of the same tile. */
  std::array<TilePart, 2> halves() const;
};

/** What a tile (or a part of one) loads: its own points and every other point inside `region`,
 *  ascending by global index (so that ties in distance break as in the whole cloud). */
struct TileLoad {
  std::vector<std::uint64_t> global;  ///< loaded point -> global index
  std::vector<float> positions;       ///< loaded points x 3
  std::vector<std::int32_t> core;     ///< loaded indices of the tile's (or the part's) own points
  Box region;                         ///< the box whose points were loaded
  /// Own points the tiled forward pass left out because an earlier loaded point holds their
  /// position (it loads each position once where iterations run): global index, and the loaded
  /// index of the point that stands for them. Empty as TiledCloud::load gives it.
  std::vector<std::pair<std::uint64_t, std::int32_t>> own_twins;
};

/** A cloud of `size()` finite points (float, one local frame, global indices 0..size()-1) cut
 *  into the tiles of a TileTree. */
class TiledCloud {
 public:
  virtual ~TiledCloud() = default;
  /** \brief The number of points. */
  std::size_t size() const { return size_; }
  /** \brief The tiles the points are cut into. */
  const TileTree& tiles() const { return tiles_; }
  /** Loads tile `tile` with every point inside `region`, a box that holds the tile's. */
  TileLoad load(std::size_t tile, const Box& region) const;
  /** Loads a part of a tile as its own points, with every other point inside `region`, a box that
   *  holds the part's (the tile's points outside the part count as others). */
  TileLoad load(const TilePart& part, const Box& region) const;

 protected:
  /** Appends the points of tile `tile` (ascending global index) to global and positions. */
  virtual void readTile(std::size_t tile, std::vector<std::uint64_t>& global, std::vector<float>& positions) const = 0;

  std::size_t size_ = 0;  ///< points
  TileTree tiles_;        ///< the tiles
};

/** A tiled view of points held in memory. points: num_points x 3 row-major, finite (checked by
 *  the caller), kept by pointer: they must outlive this object. */
class TiledCloudInMemory : public TiledCloud {
 public:
  /** \brief Cuts `points` (num_points x 3) into tiles of at most `tile_points` points. */
  TiledCloudInMemory(const float* points, std::size_t num_points, std::size_t tile_points);

 private:
  void readTile(std::size_t tile, std::vector<std::uint64_t>& global, std::vector<float>& positions) const override;

  const float* points_;
  std::vector<std::vector<std::uint32_t>> members_;  ///< per tile, ascending
};

/** The bounding box of num_points finite points (x 3, row-major); an empty box at 0 for none. */
Box boundsOf(const float* points, std::size_t num_points);

}  // namespace pcl_dise
