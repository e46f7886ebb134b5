#include "pcl_dise/io/disk_tiled_cloud.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <unistd.h>

namespace pcl_dise {
namespace io {

namespace {

constexpr std::size_t kRecordSize = sizeof(std::uint64_t) + 3 * sizeof(float);  // global index, x, y, z
constexpr std::size_t kBufferLimit = 32u << 20;                                 // all cells together

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("tiled cloud on disk: " + what + ": " + std::strerror(errno));
}

}  // namespace

TiledCloudOnDisk::TiledCloudOnDisk(const std::string& parent, const TileTree& tiles)
    : buffers_(tiles.size()), written_(tiles.size(), 0) {
  tiles_ = tiles;
  std::string pattern = (parent.empty() ? std::string(".") : parent) + "/pcl_dise_tiles.XXXXXX";
  if (!mkdtemp(pattern.data())) fail("cannot make a scratch folder in '" + parent + "'");
  folder_ = pattern;
}

TiledCloudOnDisk::~TiledCloudOnDisk() {
  for (std::size_t tile = 0; tile < written_.size(); ++tile)
    if (written_[tile]) std::remove(tileFile(tile).c_str());
  rmdir(folder_.c_str());
}

std::string TiledCloudOnDisk::tileFile(std::size_t tile) const { return folder_ + "/" + std::to_string(tile); }

void TiledCloudOnDisk::add(std::uint64_t global, const float* p) {
  std::string& buffer = buffers_[tiles_.tileOf(p)];
  char record[kRecordSize];
  std::memcpy(record, &global, sizeof global);
  std::memcpy(record + sizeof global, p, 3 * sizeof(float));
  buffer.append(record, kRecordSize);
  buffered_ += kRecordSize;
  ++size_;
  if (buffered_ >= kBufferLimit)
    for (std::size_t tile = 0; tile < buffers_.size(); ++tile) flush(tile);
}

void TiledCloudOnDisk::flush(std::size_t tile) {
  std::string& buffer = buffers_[tile];
  if (buffer.empty()) return;
  written_[tile] = 1;
  std::FILE* file = std::fopen(tileFile(tile).c_str(), "ab");
  if (!file) fail("cannot open '" + tileFile(tile) + "'");
  const bool written = std::fwrite(buffer.data(), 1, buffer.size(), file) == buffer.size();
  if (std::fclose(file) != 0 || !written) fail("cannot write '" + tileFile(tile) + "'");
  buffered_ -= buffer.size();
  buffer.clear();
  buffer.shrink_to_fit();
}

void TiledCloudOnDisk::finish() {
  for (std::size_t tile = 0; tile < buffers_.size(); ++tile) flush(tile);
}

void TiledCloudOnDisk::readTile(std::size_t tile, std::vector<std::uint64_t>& global,
                                std::vector<float>& positions) const {
  if (!written_[tile]) return;
  std::FILE* file = std::fopen(tileFile(tile).c_str(), "rb");
  if (!file) fail("cannot open '" + tileFile(tile) + "'");
  char records[4096 * kRecordSize];
  for (std::size_t got; (got = std::fread(records, kRecordSize, 4096, file)) > 0;)
    for (std::size_t r = 0; r < got; ++r) {
      std::uint64_t index;
      float p[3];
      std::memcpy(&index, records + r * kRecordSize, sizeof index);
      std::memcpy(p, records + r * kRecordSize + sizeof index, sizeof p);
      global.push_back(index);
      positions.insert(positions.end(), p, p + 3);
    }
  const bool failed = std::ferror(file);
  std::fclose(file);
  if (failed) fail("cannot read '" + tileFile(tile) + "'");
}

}  // namespace io
}  // namespace pcl_dise
