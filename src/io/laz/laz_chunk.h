#pragma once
// One chunk of a LAZ file: its point records compressed and decompressed (LASzip's pointwise
// version-2 items for point formats 0-3, its layered version-3 items for formats 6-8). The file
// around the chunks (the laszip VLR, the chunk table) is laz_format.cpp's.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pcl_dise {
namespace io {
namespace laz {

/** An item of the laszip VLR: what part of a point record is compressed how. */
struct Item {
  enum Type : std::uint16_t {
    kByte = 0,
    kPoint10 = 6,
    kGpsTime11 = 7,
    kRgb12 = 8,
    kWavePacket13 = 9,
    kPoint14 = 10,
    kRgb14 = 11,
    kRgbNir14 = 12,
    kWavePacket14 = 13,
    kByte14 = 14
  };
  std::uint16_t type = 0, size = 0, version = 0;
};

/** How a file's records are compressed: the compressor (2 pointwise, 3 layered), the points per
 *  chunk (kVariableChunks: each chunk's own count, from the chunk table) and the items. */
struct Schema {
  static constexpr std::uint32_t kVariableChunks = 0xFFFFFFFFu;
  std::uint16_t compressor = 2;
  std::uint32_t chunk_size = 50000;
  std::vector<Item> items;
  /** The bytes of one record: the items' sizes added. */
  std::size_t recordLength() const;
};

/** Throws std::runtime_error (without a file name) where a schema is one this reader cannot
 *  decode: wave packets, the version-1 items, an unknown item or compressor, item sizes that are
 *  not their kind's. */
void checkSchema(const Schema& schema);

/** The schema LASzip writes for point format 0-3 or 6-8 with `extra_bytes` after the format's
 *  fields (chunks of `chunk_size` points). Throws std::runtime_error for other formats. */
Schema schemaFor(int point_format, std::size_t extra_bytes, std::uint32_t chunk_size);

/** Decodes a chunk of `count` points from `size` bytes at `data` into `out` (count records).
 *  Throws std::runtime_error where the data end before the points do or contradict themselves. */
void decodeChunk(const Schema& schema, const std::uint8_t* data, std::size_t size, std::size_t count, char* out);

/** Encodes `count` records (count * recordLength() bytes) as one chunk; returns its bytes. */
std::string encodeChunk(const Schema& schema, const char* records, std::size_t count);

}  // namespace laz
}  // namespace io
}  // namespace pcl_dise
