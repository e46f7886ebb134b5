// The tiled cloud on disk (include/pcl_dise/io/disk_tiled_cloud.h) as a unit: every load gives what
// the same tiles give in memory (points, global indices, own points), its scratch folder goes with
// it, and a folder it cannot make is an error. The forward pass over it: test/core/tiled_forward_test.cpp.
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pcl_dise/core/tiled_cloud.h"
#include "pcl_dise/io/disk_tiled_cloud.h"
#include "test_support.h"

namespace {

using namespace pcl_dise;

// A plate and a dense blob on it: tiles of very different sizes.
std::vector<float> plateWithBlob(std::size_t n) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> p;
  for (std::size_t i = 0; i < n; ++i) {
    const float spread = i % 3 == 0 ? 0.05f : 1.f;
    p.insert(p.end(), {spread * u(rng), spread * u(rng), 0.01f * u(rng)});
  }
  return p;
}

TEST(TiledCloudOnDisk, LoadsWhatTheSameTilesLoadInMemory) {
  const std::vector<float> points = plateWithBlob(5000);
  const std::size_t n = points.size() / 3;
  const TiledCloudInMemory memory(points.data(), n, 600);
  DensityHistogram histogram(boundsOf(points.data(), n));
  for (std::size_t i = 0; i < n; ++i) histogram.add(points.data() + 3 * i);
  std::string folder;
  {
    io::TiledCloudOnDisk disk(test::temporaryDir("disk_tiled_cloud"), histogram.tiles(600));
    folder = disk.folder();
    for (std::size_t i = 0; i < n; ++i) disk.add(i, points.data() + 3 * i);
    disk.finish();
    EXPECT_TRUE(std::filesystem::is_directory(folder));
    EXPECT_EQ(disk.size(), n);
    ASSERT_EQ(disk.tiles().size(), memory.tiles().size());
    ASSERT_GT(disk.tiles().size(), 4u);
    for (std::size_t tile = 0; tile < disk.tiles().size(); ++tile) {
      SCOPED_TRACE(tile);
      const Box region = disk.tiles().tileBox(tile).grown(0.1);
      const TileLoad on_disk = disk.load(tile, region), in_memory = memory.load(tile, region);
      EXPECT_EQ(on_disk.global, in_memory.global);
      EXPECT_EQ(on_disk.positions, in_memory.positions);
      EXPECT_EQ(on_disk.core, in_memory.core);
    }
  }
  EXPECT_FALSE(std::filesystem::exists(folder));  // the scratch files go with the cloud
}

TEST(TiledCloudOnDisk, AFolderItCannotMakeIsAnError) {
  const std::vector<float> points = plateWithBlob(100);
  DensityHistogram histogram(boundsOf(points.data(), 100));
  for (std::size_t i = 0; i < 100; ++i) histogram.add(points.data() + 3 * i);
  EXPECT_THROW(io::TiledCloudOnDisk("/nonexistent/folder/for/tiles", histogram.tiles(50)), std::runtime_error);
}

}  // namespace
