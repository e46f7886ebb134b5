#pragma once
// LASzip's pointwise (version 2) items, for point formats 0-3: POINT10, GPSTIME11, RGB12 and
// BYTE (extra bytes), all coded by one coder in record order. Private to laz_chunk.cpp.
#include "item_rules.h"

namespace pcl_dise {
namespace io {
namespace laz {

class Point10Codec {
 public:
  Point10Codec(const std::uint8_t* first, bool for_decoding)
      : changed_(64, for_decoding),
        scan_angle_{{{256, for_decoding}, {256, for_decoding}}},
        bit_byte_(256, 256, for_decoding),
        classification_(256, 256, for_decoding),
        user_data_(256, 256, for_decoding),
        ic_intensity_(16, 4, for_decoding),
        ic_point_source_(16, 1, for_decoding),
        ic_dx_(32, 2, for_decoding),
        ic_dy_(32, 22, for_decoding),
        ic_z_(32, 20, for_decoding) {
    std::memcpy(last_, first, 20);
  }

  template <class C>
  void code(C& coder, std::uint8_t* item) {
    std::uint8_t cur[20];
    std::memcpy(cur, C::kEncodes ? item : last_, 20);
    unsigned changed = 0;
    if constexpr (C::kEncodes) {
      const unsigned m = kReturnMap[(cur[14] >> 3) & 7][cur[14] & 7];
      changed = (cur[14] != last_[14]) << 5 | (last_intensity_[m] != load<std::uint16_t>(cur + 12)) << 4 |
                (cur[15] != last_[15]) << 3 | (cur[16] != last_[16]) << 2 | (cur[17] != last_[17]) << 1 |
                (load<std::uint16_t>(cur + 18) != load<std::uint16_t>(last_ + 18));
    }
    changed = coder.symbol(changed_, changed);
    if (changed & 32) cur[14] = static_cast<std::uint8_t>(coder.symbol(bit_byte_[last_[14]], cur[14]));
    const unsigned r = cur[14] & 7, n = (cur[14] >> 3) & 7, m = kReturnMap[n][r], l = kReturnLevel[n][r];
    if (changed & 16) {
      last_intensity_[m] = static_cast<std::uint16_t>(
          ic_intensity_.code(coder, last_intensity_[m], load<std::uint16_t>(cur + 12), m < 3 ? m : 3));
    }
    store<std::uint16_t>(cur + 12, last_intensity_[m]);
    if (changed & 8) cur[15] = static_cast<std::uint8_t>(coder.symbol(classification_[last_[15]], cur[15]));
    if (changed & 4) {
      cur[16] = static_cast<std::uint8_t>(
          last_[16] + coder.symbol(scan_angle_[(cur[14] >> 6) & 1], static_cast<std::uint8_t>(cur[16] - last_[16])));
    }
    if (changed & 2) cur[17] = static_cast<std::uint8_t>(coder.symbol(user_data_[last_[17]], cur[17]));
    if (changed & 1) {
      store<std::uint16_t>(cur + 18, static_cast<std::uint16_t>(ic_point_source_.code(
                                         coder, load<std::uint16_t>(last_ + 18), load<std::uint16_t>(cur + 18), 0)));
    }
    const std::int32_t last_x = load<std::int32_t>(last_), last_y = load<std::int32_t>(last_ + 4);
    std::int32_t diff = ic_dx_.code(coder, x_median_[m].get(), wrappingSub(load<std::int32_t>(cur), last_x), n == 1);
    store(cur, wrappingAdd(last_x, diff));
    x_median_[m].add(diff);
    unsigned k = ic_dx_.k();
    diff = ic_dy_.code(coder, y_median_[m].get(), wrappingSub(load<std::int32_t>(cur + 4), last_y),
                       (n == 1) + (k < 20 ? k & ~1u : 20));
    store(cur + 4, wrappingAdd(last_y, diff));
    y_median_[m].add(diff);
    k = (ic_dx_.k() + ic_dy_.k()) / 2;
    last_height_[l] =
        ic_z_.code(coder, last_height_[l], load<std::int32_t>(cur + 8), (n == 1) + (k < 18 ? k & ~1u : 18));
    store(cur + 8, last_height_[l]);
    std::memcpy(last_, cur, 20);
    if constexpr (!C::kEncodes) std::memcpy(item, cur, 20);
  }

 private:
  std::uint8_t last_[20];
  std::uint16_t last_intensity_[16] = {};
  std::int32_t last_height_[8] = {};
  Median5 x_median_[16], y_median_[16];
  SymbolModel changed_;
  std::array<SymbolModel, 2> scan_angle_;
  LazyModels bit_byte_, classification_, user_data_;
  IntegerCodec ic_intensity_, ic_point_source_, ic_dx_, ic_dy_, ic_z_;
};

class GpsTime11Codec {
 public:
  GpsTime11Codec(const std::uint8_t* first, bool for_decoding)
      : gps_(false, load<std::uint64_t>(first), for_decoding) {}
  template <class C>
  void code(C& coder, std::uint8_t* item) {
    store(item, gps_.code(coder, load<std::uint64_t>(item)));
  }

 private:
  GpsTimeCodec gps_;
};

class Rgb12Codec {
 public:
  Rgb12Codec(const std::uint8_t* first, bool for_decoding) : models_(for_decoding) { std::memcpy(last_, first, 6); }
  template <class C>
  void code(C& coder, std::uint8_t* item) {
    std::uint16_t cur[3];
    std::memcpy(cur, C::kEncodes ? static_cast<const void*>(item) : last_, 6);
    codeRgb(coder, models_, codeRgbUsed(coder, models_, cur, last_), cur, last_);
    std::memcpy(last_, cur, 6);
    std::memcpy(item, cur, 6);
  }

 private:
  std::uint16_t last_[3];
  RgbModels models_;
};

class Byte10Codec {
 public:
  Byte10Codec(const std::uint8_t* first, std::size_t n, bool for_decoding) : last_(first, first + n) {
    for (std::size_t i = 0; i < n; ++i) models_.emplace_back(256, for_decoding);
  }
  template <class C>
  void code(C& coder, std::uint8_t* item) {
    for (std::size_t i = 0; i < last_.size(); ++i)
      item[i] = last_[i] =
          static_cast<std::uint8_t>(last_[i] + coder.symbol(models_[i], static_cast<std::uint8_t>(item[i] - last_[i])));
  }

 private:
  std::vector<std::uint8_t> last_;
  std::vector<SymbolModel> models_;
};

/** The items of a pointwise record, coded in record order by one coder. */
class PointwiseRecord {
 public:
  PointwiseRecord(const Schema& schema, const std::uint8_t* first, bool for_decoding) {
    std::size_t at = 0;
    for (const Item& item : schema.items) {
      Coded coded{at, {}, {}, {}, {}};
      if (item.type == Item::kPoint10)
        coded.point = std::make_unique<Point10Codec>(first + at, for_decoding);
      else if (item.type == Item::kGpsTime11)
        coded.gps = std::make_unique<GpsTime11Codec>(first + at, for_decoding);
      else if (item.type == Item::kRgb12)
        coded.rgb = std::make_unique<Rgb12Codec>(first + at, for_decoding);
      else
        coded.bytes = std::make_unique<Byte10Codec>(first + at, item.size, for_decoding);
      items_.push_back(std::move(coded));
      at += item.size;
    }
  }
  template <class C>
  void code(C& coder, std::uint8_t* record) {
    for (Coded& item : items_) {
      std::uint8_t* p = record + item.at;
      if (item.point)
        item.point->code(coder, p);
      else if (item.gps)
        item.gps->code(coder, p);
      else if (item.rgb)
        item.rgb->code(coder, p);
      else
        item.bytes->code(coder, p);
    }
  }

 private:
  struct Coded {
    std::size_t at;
    std::unique_ptr<Point10Codec> point;
    std::unique_ptr<GpsTime11Codec> gps;
    std::unique_ptr<Rgb12Codec> rgb;
    std::unique_ptr<Byte10Codec> bytes;
  };
  std::vector<Coded> items_;
};

}  // namespace laz
}  // namespace io
}  // namespace pcl_dise
