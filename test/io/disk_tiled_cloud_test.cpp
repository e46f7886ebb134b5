// The tiled cloud on disk (include/pcl_dise/io/disk_tiled_cloud.h) as a unit: every load gives what
// the same tiles give in memory (points, global indices, own points), its scratch folder goes with
// it, and a folder it cannot make is an error. The forward pass over it: test/core/tiled_forward_test.cpp.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pcl_dise/core/tiled_cloud.h"
#include "pcl_dise/io/disk_tiled_cloud.h"
#include "test_support.h"

namespace {

using namespace pcl_dise;

// The test terrain (3,600 points with a ridge and a step) as floats.
std::vector<float> terrain() {
  std::vector<float> p;
  for (const auto& q : test::terrainPoints({0, 0, 0})) p.insert(p.end(), {float(q[0]), float(q[1]), float(q[2])});
  return p;
}

TEST(TiledCloudOnDisk, LoadsWhatTheSameTilesLoadInMemory) {
  const std::vector<float> points = terrain();
  const std::size_t n = points.size() / 3;
  const TiledCloudInMemory memory(points.data(), n, 400);
  DensityHistogram histogram(boundsOf(points.data(), n));
  for (std::size_t i = 0; i < n; ++i) histogram.add(points.data() + 3 * i);
  std::string folder;
  {
    io::TiledCloudOnDisk disk(test::temporaryDir("disk_tiled_cloud"), histogram.tiles(400));
    folder = disk.folder();
    for (std::size_t i = 0; i < n; ++i) disk.add(i, points.data() + 3 * i);
    disk.finish();
    EXPECT_TRUE(std::filesystem::is_directory(folder));
    EXPECT_EQ(disk.size(), n);
    ASSERT_EQ(disk.tiles().size(), memory.tiles().size());
    ASSERT_GT(disk.tiles().size(), 4u);
    for (std::size_t tile = 0; tile < disk.tiles().size(); ++tile) {
      SCOPED_TRACE(tile);
      const Box region = disk.tiles().tileBox(tile).grown(1.2);  // two spacings of other tiles' points
      const TileLoad on_disk = disk.load(tile, region), in_memory = memory.load(tile, region);
      EXPECT_EQ(on_disk.global, in_memory.global);
      EXPECT_EQ(on_disk.positions, in_memory.positions);
      EXPECT_EQ(on_disk.core, in_memory.core);
      EXPECT_GT(on_disk.global.size(), on_disk.core.size());  // the region reached its neighbours
    }
  }
  EXPECT_FALSE(std::filesystem::exists(folder));  // the scratch files go with the cloud
}

TEST(TiledCloudOnDisk, AFolderItCannotMakeIsAnError) {
  const std::vector<float> points = terrain();
  DensityHistogram histogram(boundsOf(points.data(), points.size() / 3));
  for (std::size_t i = 0; i < points.size() / 3; ++i) histogram.add(points.data() + 3 * i);
  EXPECT_THROW(io::TiledCloudOnDisk("/nonexistent/folder/for/tiles", histogram.tiles(50)), std::runtime_error);
}

}  // namespace
