#pragma once
// A tiled cloud kept on disk (tiled_cloud.h): the points, streamed in once, go into one file per
// tile in a scratch folder; a tile loads its own file and its neighbours'. Memory holds one
// tile's load and write buffers of at most 32 MB, whatever the cloud's size.
#include <string>
#include <vector>

#include "pcl_dise/core/tiled_cloud.h"

namespace pcl_dise {
namespace io {

/** A tiled cloud whose points wait on disk, one scratch file per tile (16 bytes a point: its
 *  global index and x, y, z), for clouds larger than memory. */
class TiledCloudOnDisk : public TiledCloud {
 public:
  /** A new scratch folder inside `parent` (which must exist) for points in `tiles`
   *  (DensityHistogram::tiles over every point that will be added). Throws std::runtime_error
   *  where the folder cannot be made. */
  TiledCloudOnDisk(const std::string& parent, const TileTree& tiles);
  /** Removes the scratch folder and its files. */
  ~TiledCloudOnDisk() override;
  TiledCloudOnDisk(const TiledCloudOnDisk&) = delete;
  TiledCloudOnDisk& operator=(const TiledCloudOnDisk&) = delete;

  /** Adds the point p (3 floats, finite, inside the tiles' bounds) with its global index; global
   *  indices come in ascending order. Throws std::runtime_error where a write fails (a full disk). */
  void add(std::uint64_t global, const float* p);
  /** Writes what is buffered; then load() sees every point added. Throws as add. */
  void finish();

  /** \brief The scratch folder. */
  const std::string& folder() const { return folder_; }

 private:
  void readTile(std::size_t tile, std::vector<std::uint64_t>& global, std::vector<float>& positions) const override;
  void flush(std::size_t tile);
  std::string tileFile(std::size_t tile) const;

  std::string folder_;
  std::vector<std::string> buffers_;   ///< per tile, records not yet written
  std::vector<std::uint8_t> written_;  ///< per tile: its file exists
  std::size_t buffered_ = 0;
};

}  // namespace io
}  // namespace pcl_dise
