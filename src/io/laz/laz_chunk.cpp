#include "laz_chunk.h"

#include <stdexcept>
#include <string>

#include "layered_items.h"
#include "pointwise_items.h"

namespace pcl_dise {
namespace io {
namespace laz {
std::size_t Schema::recordLength() const {
  std::size_t length = 0;
  for (const Item& item : items) length += item.size;
  return length;
}

void checkSchema(const Schema& schema) {
  auto fail = [](const std::string& what) { throw std::runtime_error("unsupported LAZ: " + what); };
  if (schema.compressor != 2 && schema.compressor != 3)
    fail("compressor " + std::to_string(schema.compressor) +
         " (only LASzip's chunked pointwise (2) and layered (3) ones are read)");
  if (schema.items.empty()) fail("no items in the laszip VLR");
  if (schema.chunk_size == 0) fail("chunks of 0 points");
  const bool layered = schema.compressor == 3;
  for (std::size_t i = 0; i < schema.items.size(); ++i) {
    const Item& item = schema.items[i];
    if (item.type == Item::kWavePacket13 || item.type == Item::kWavePacket14)
      fail("waveform point formats (4, 5, 9, 10) are not supported");
    const bool v3 = item.type >= Item::kPoint14;
    if (item.version == 1 || (!v3 && item.version != 2) || (v3 && item.version != 3))
      fail("item " + std::to_string(item.type) + " version " + std::to_string(item.version) +
           (item.version == 1 ? " (the old version-1 compressor; recompress it with a current LASzip)" : ""));
    if (v3 != layered) fail("pointwise and layered items mixed with compressor " + std::to_string(schema.compressor));
    const int expected = item.type == Item::kPoint10                              ? 20
                         : item.type == Item::kGpsTime11                          ? 8
                         : item.type == Item::kRgb12 || item.type == Item::kRgb14 ? 6
                         : item.type == Item::kPoint14                            ? 30
                         : item.type == Item::kRgbNir14                           ? 8
                                                                                  : -1;
    if (item.type != Item::kByte && item.type != Item::kByte14 && expected < 0)
      fail("unknown item type " + std::to_string(item.type));
    if (expected > 0 && item.size != expected)
      fail("item " + std::to_string(item.type) + " of " + std::to_string(item.size) + " bytes");
    if (expected < 0 && item.size == 0) fail("an extra-bytes item of 0 bytes");
    const bool first = i == 0;
    if (first != (item.type == Item::kPoint10 || item.type == Item::kPoint14))
      fail("the items do not start with the point's own (POINT10 or POINT14) and only there");
    if ((item.type == Item::kByte || item.type == Item::kByte14) && i + 1 != schema.items.size())
      fail("extra bytes before other items");
  }
}

Schema schemaFor(int point_format, std::size_t extra_bytes, std::uint32_t chunk_size) {
  Schema s;
  s.chunk_size = chunk_size;
  if (point_format >= 0 && point_format <= 3) {
    s.compressor = 2;
    s.items.push_back({Item::kPoint10, 20, 2});
    if (point_format == 1 || point_format == 3) s.items.push_back({Item::kGpsTime11, 8, 2});
    if (point_format == 2 || point_format == 3) s.items.push_back({Item::kRgb12, 6, 2});
    if (extra_bytes) s.items.push_back({Item::kByte, static_cast<std::uint16_t>(extra_bytes), 2});
  } else if (point_format >= 6 && point_format <= 8) {
    s.compressor = 3;
    s.items.push_back({Item::kPoint14, 30, 3});
    if (point_format == 7) s.items.push_back({Item::kRgb14, 6, 3});
    if (point_format == 8) s.items.push_back({Item::kRgbNir14, 8, 3});
    if (extra_bytes) s.items.push_back({Item::kByte14, static_cast<std::uint16_t>(extra_bytes), 3});
  } else {
    throw std::runtime_error("LAZ output of point format " + std::to_string(point_format) +
                             " (waveform) is not supported; write .las");
  }
  return s;
}

void decodeChunk(const Schema& schema, const std::uint8_t* data, std::size_t size, std::size_t count, char* out) {
  if (count == 0) return;
  const std::size_t length = schema.recordLength();
  auto* record = reinterpret_cast<std::uint8_t*>(out);
  if (size < length) corrupt("a chunk of " + std::to_string(size) + " bytes is shorter than its first point");
  std::memcpy(record, data, length);
  if (schema.compressor == 2) {
    PointwiseRecord items(schema, record, true);
    ArithmeticDecoder decoder;
    decoder.start(data + length, size - length);
    for (std::size_t i = 1; i < count; ++i) {
      record += length;
      items.code(decoder, record);
      // The encoder pads its bytes so that decoding its points never reads past them.
      if (decoder.overrun() > 0) corrupt("a chunk ends before its " + std::to_string(count) + " points");
    }
    return;
  }
  LayeredRecord<ArithmeticDecoder> items(schema, record, true);
  std::size_t at = length;
  auto read32 = [&]() {
    if (at + 4 > size) corrupt("a chunk ends in its layer sizes");
    const auto v = load<std::uint32_t>(data + at);
    at += 4;
    return v;
  };
  if (read32() != count) corrupt("a chunk's point count differs from its chunk table's");
  std::vector<Layer<ArithmeticDecoder>*> layers = items.layers();
  std::vector<std::uint32_t> sizes;
  for (std::size_t l = 0; l < layers.size(); ++l) sizes.push_back(read32());
  for (std::size_t l = 0; l < layers.size(); ++l) {
    if (sizes[l] > size - at) corrupt("a layer of " + std::to_string(sizes[l]) + " bytes runs past its chunk");
    layers[l]->present = sizes[l] > 0;
    layers[l]->coder = ArithmeticDecoder();
    if (layers[l]->present) layers[l]->coder.start(data + at, sizes[l]);
    at += sizes[l];
  }
  if (sizes[0] == 0) corrupt("a chunk without its coordinate layer");
  for (std::size_t i = 1; i < count; ++i) {
    record += length;
    items.code(record);
    if ((i & 255) == 0 || i + 1 == count)
      for (auto* layer : layers)
        if (layer->coder.overrun() > 0) corrupt("a layer ends before its chunk's " + std::to_string(count) + " points");
  }
}

std::string encodeChunk(const Schema& schema, const char* records, std::size_t count) {
  std::string out;
  if (count == 0) return out;
  const std::size_t length = schema.recordLength();
  std::vector<std::uint8_t> record(reinterpret_cast<const std::uint8_t*>(records),
                                   reinterpret_cast<const std::uint8_t*>(records) + length);
  out.append(records, length);
  auto next = [&](std::size_t i) { std::memcpy(record.data(), records + i * length, length); };
  if (schema.compressor == 2) {
    PointwiseRecord items(schema, record.data(), false);
    ArithmeticEncoder encoder;
    for (std::size_t i = 1; i < count; ++i) {
      next(i);
      items.code(encoder, record.data());
    }
    encoder.finish();
    return out + encoder.bytes();
  }
  LayeredRecord<ArithmeticEncoder> items(schema, record.data(), false);
  for (std::size_t i = 1; i < count; ++i) {
    next(i);
    items.code(record.data());
  }
  append<std::uint32_t>(out, static_cast<std::uint32_t>(count));
  std::vector<Layer<ArithmeticEncoder>*> layers = items.layers();
  // The coordinates and z are stored always, the other layers where a value changed.
  for (std::size_t l = 0; l < layers.size(); ++l) {
    Layer<ArithmeticEncoder>& layer = *layers[l];
    if (l < 2) layer.stored = true;
    if (layer.stored) layer.coder.finish();
    append<std::uint32_t>(out, layer.stored ? static_cast<std::uint32_t>(layer.coder.bytes().size()) : 0u);
  }
  for (auto* layer : layers)
    if (layer->stored) out += layer->coder.bytes();
  return out;
}

}  // namespace laz
}  // namespace io
}  // namespace pcl_dise
