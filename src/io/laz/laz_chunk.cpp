#include "laz_chunk.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "arithmetic_coder.h"

// Each item is coded by one function template over the coder: encoding passes the record's value
// and gets it back, decoding passes the last value and gets the one read. Where the encoder must
// choose a symbol (which fields changed, a multiplier), that choice is made under
// `if constexpr (C::kEncodes)` and everything after it is shared, so the two directions cannot
// drift apart.

namespace pcl_dise {
namespace io {
namespace laz {
namespace {

template <typename T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
void store(std::uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

[[noreturn]] void corrupt(const std::string& what) { throw std::runtime_error("corrupt LAZ data: " + what); }

std::int32_t wrappingSub(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
std::int32_t wrappingAdd(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
std::int32_t wrappingMul(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}
int clampByte(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

/** The median of the last five values, kept in a sorted window (LASzip's StreamingMedian5). */
class Median5 {
 public:
  std::int32_t get() const { return v_[2]; }
  void add(std::int32_t x) {
    if (high_) {
      if (x < v_[2]) {
        v_[4] = v_[3];
        v_[3] = v_[2];
        if (x < v_[0])
          v_[2] = v_[1], v_[1] = v_[0], v_[0] = x;
        else if (x < v_[1])
          v_[2] = v_[1], v_[1] = x;
        else
          v_[2] = x;
      } else {
        if (x < v_[3])
          v_[4] = v_[3], v_[3] = x;
        else
          v_[4] = x;
        high_ = false;
      }
    } else {
      if (v_[2] < x) {
        v_[0] = v_[1];
        v_[1] = v_[2];
        if (v_[4] < x)
          v_[2] = v_[3], v_[3] = v_[4], v_[4] = x;
        else if (v_[3] < x)
          v_[2] = v_[3], v_[3] = x;
        else
          v_[2] = x;
      } else {
        if (v_[1] < x)
          v_[0] = v_[1], v_[1] = x;
        else
          v_[0] = x;
        high_ = true;
      }
    }
  }

 private:
  std::int32_t v_[5] = {0, 0, 0, 0, 0};
  bool high_ = true;
};

/** Symbol models made on first use (a chunk touches few of the 256 or 64 a field may need). */
class LazyModels {
 public:
  LazyModels(std::size_t count, unsigned symbols, bool for_decoding)
      : models_(count), symbols_(symbols), for_decoding_(for_decoding) {}
  SymbolModel& operator[](std::size_t i) {
    if (!models_[i]) models_[i] = std::make_unique<SymbolModel>(symbols_, for_decoding_);
    return *models_[i];
  }

 private:
  std::vector<std::unique_ptr<SymbolModel>> models_;
  unsigned symbols_;
  bool for_decoding_;
};

// Contexts of the coordinates by return number r of n returns (LASzip's tables).
constexpr std::uint8_t kReturnMap[8][8] = {{15, 14, 13, 12, 11, 10, 9, 8},  {14, 0, 1, 3, 6, 10, 10, 9},
                                           {13, 1, 2, 4, 7, 11, 11, 10},    {12, 3, 4, 5, 8, 12, 12, 11},
                                           {11, 6, 7, 8, 9, 13, 13, 12},    {10, 10, 11, 12, 13, 14, 14, 13},
                                           {9, 10, 11, 12, 13, 14, 15, 14}, {8, 9, 10, 11, 12, 13, 14, 15}};
constexpr std::uint8_t kReturnLevel[8][8] = {
    {0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 1, 2, 3, 4, 5, 6}, {2, 1, 0, 1, 2, 3, 4, 5}, {3, 2, 1, 0, 1, 2, 3, 4},
    {4, 3, 2, 1, 0, 1, 2, 3}, {5, 4, 3, 2, 1, 0, 1, 2}, {6, 5, 4, 3, 2, 1, 0, 1}, {7, 6, 5, 4, 3, 2, 1, 0}};
constexpr std::uint8_t kReturnMap6[16][16] = {
    {0, 1, 2, 3, 4, 5, 3, 4, 4, 5, 5, 5, 5, 5, 5, 5}, {1, 0, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3},
    {2, 1, 2, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3}, {3, 3, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
    {4, 3, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, {5, 3, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
    {3, 3, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4}, {4, 3, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4},
    {4, 3, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4}, {5, 3, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4},
    {5, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4}, {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 4, 4, 4},
    {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 4, 4}, {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 4},
    {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5}, {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5}};
std::uint8_t returnLevel8(unsigned n, unsigned r) {  // |n - r| up to 7
  const int d = static_cast<int>(n) - static_cast<int>(r);
  return static_cast<std::uint8_t>(std::min(7, d < 0 ? -d : d));
}

// ---------------------------------------------------------------------------------------------
// GPS time (GPSTIME11 v2 and POINT14 v3 alike): up to four interleaved time sequences, each
// predicted from its last difference times a small multiplier.

constexpr int kMulti = 500, kMultiMinus = -10;

class GpsTimeCodec {
 public:
  /** `layered`: the v3 symbol set (no "unchanged" symbols: POINT14 flags a change itself). */
  GpsTimeCodec(bool layered, std::uint64_t first, bool for_decoding)
      : unchanged_(layered ? 0 : 1),
        multi_model_(515 + unchanged_, for_decoding),
        zero_diff_model_(5 + unchanged_, for_decoding),
        ic_(32, 9, for_decoding) {
    time_[0] = first;
  }

  template <class C>
  std::uint64_t code(C& coder, std::uint64_t value) {
    const unsigned full_zero = unchanged_ + 1, full_multi = 511 + unchanged_;
    for (int switches = 0;; ++switches) {
      if (switches > 3) corrupt("a GPS time switches sequence more than three times");
      const std::int64_t diff64 = static_cast<std::int64_t>(value - time_[last_]);
      const auto diff = static_cast<std::int32_t>(diff64);
      if (diff_[last_] == 0) {
        unsigned sym = 0;
        if constexpr (C::kEncodes) {
          if (unchanged_ && value == time_[last_])
            sym = 0;
          else if (diff64 == diff)
            sym = unchanged_;
          else
            sym = full_zero + otherSequence(value);
        }
        sym = coder.symbol(zero_diff_model_, sym);
        if (unchanged_ && sym == 0) return time_[last_];
        if (sym == unchanged_) {
          diff_[last_] = ic_.code(coder, 0, diff, 0);
          time_[last_] += static_cast<std::uint64_t>(static_cast<std::int64_t>(diff_[last_]));
          extreme_[last_] = 0;
          return time_[last_];
        }
        if (sym == full_zero) return startSequence(coder, value);
        last_ = (last_ + sym - full_zero) & 3;
        continue;
      }
      unsigned sym = 0;
      if constexpr (C::kEncodes) {
        if (unchanged_ && value == time_[last_])
          sym = 511;
        else if (diff64 == diff)
          sym = multiplierSymbol(diff);
        else
          sym = full_multi + otherSequence(value);
      }
      sym = coder.symbol(multi_model_, sym);
      if (sym < 511) {
        std::int32_t coded;
        if (sym == 1) {
          coded = ic_.code(coder, diff_[last_], diff, 1);
          extreme_[last_] = 0;
        } else if (sym == 0) {
          coded = extreme(ic_.code(coder, 0, diff, 7));
        } else if (sym < kMulti) {
          coded = ic_.code(coder, wrappingMul(static_cast<std::int32_t>(sym), diff_[last_]), diff, sym < 10 ? 2 : 3);
        } else if (sym == kMulti) {
          coded = extreme(ic_.code(coder, wrappingMul(kMulti, diff_[last_]), diff, 4));
        } else {
          const int multi = kMulti - static_cast<int>(sym);
          if (multi > kMultiMinus)
            coded = ic_.code(coder, wrappingMul(multi, diff_[last_]), diff, 5);
          else
            coded = extreme(ic_.code(coder, wrappingMul(kMultiMinus, diff_[last_]), diff, 6));
        }
        time_[last_] += static_cast<std::uint64_t>(static_cast<std::int64_t>(coded));
        return time_[last_];
      }
      if (unchanged_ && sym == 511) return time_[last_];
      if (sym == full_multi) return startSequence(coder, value);
      last_ = (last_ + sym - full_multi) & 3;
    }
  }

 private:
  // Which other sequence (1..3 ahead) `value` is within 32 bits of; 0 for none.
  unsigned otherSequence(std::uint64_t value) const {
    for (unsigned i = 1; i < 4; ++i) {
      const auto d = static_cast<std::int64_t>(value - time_[(last_ + i) & 3]);
      if (d == static_cast<std::int32_t>(d)) return i;
    }
    return 0;
  }
  unsigned multiplierSymbol(std::int32_t diff) const {
    float ratio = static_cast<float>(diff) / static_cast<float>(diff_[last_]);
    ratio = std::max(-1e6f, std::min(1e6f, ratio));
    const int multi = static_cast<int>(ratio >= 0 ? ratio + 0.5f : ratio - 0.5f);
    if (multi >= kMulti) return kMulti;
    if (multi > 0) return static_cast<unsigned>(multi);
    if (multi == 0) return 0;
    if (multi > kMultiMinus) return static_cast<unsigned>(kMulti - multi);
    return static_cast<unsigned>(kMulti - kMultiMinus);
  }
  std::int32_t extreme(std::int32_t coded) {
    if (++extreme_[last_] > 3) {
      diff_[last_] = coded;
      extreme_[last_] = 0;
    }
    return coded;
  }
  template <class C>
  std::uint64_t startSequence(C& coder, std::uint64_t value) {
    const std::int32_t high =
        ic_.code(coder, static_cast<std::int32_t>(time_[last_] >> 32), static_cast<std::int32_t>(value >> 32), 8);
    const std::uint32_t low = coder.int32(static_cast<std::uint32_t>(value));
    next_ = (next_ + 1) & 3;
    last_ = next_;
    time_[last_] = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(high)) << 32) | low;
    diff_[last_] = 0;
    extreme_[last_] = 0;
    return time_[last_];
  }

  unsigned unchanged_;
  SymbolModel multi_model_, zero_diff_model_;
  IntegerCodec ic_;
  unsigned last_ = 0, next_ = 0;
  std::uint64_t time_[4] = {0, 0, 0, 0};
  std::int32_t diff_[4] = {0, 0, 0, 0}, extreme_[4] = {0, 0, 0, 0};
};

// ---------------------------------------------------------------------------------------------
// Colours (RGB12 v2, RGB14 v3): the low and high bytes of red from the last colour, green and blue
// from red's change, each byte only where it changed.

struct RgbModels {
  explicit RgbModels(bool d) : used(128, d), diff{{{256, d}, {256, d}, {256, d}, {256, d}, {256, d}, {256, d}}} {}
  SymbolModel used;
  std::array<SymbolModel, 6> diff;
};

template <class C>
unsigned codeRgbUsed(C& coder, RgbModels& m, const std::uint16_t* cur, const std::uint16_t* last) {
  unsigned sym = 0;
  if constexpr (C::kEncodes) {
    for (int c = 0; c < 3; ++c) {
      sym |= ((last[c] & 0x00FF) != (cur[c] & 0x00FF)) << (2 * c);
      sym |= ((last[c] & 0xFF00) != (cur[c] & 0xFF00)) << (2 * c + 1);
    }
    sym |= (((cur[0] ^ cur[1]) | (cur[0] ^ cur[2])) != 0) << 6;
  }
  return coder.symbol(m.used, sym);
}

// Codes colour `cur` (r, g, b) against `last` once `sym` (which bytes changed) is known.
template <class C>
void codeRgb(C& coder, RgbModels& m, unsigned sym, std::uint16_t* cur, const std::uint16_t* last) {
  auto byte = [&](int model, int pred, int value) {
    return static_cast<std::uint8_t>(pred + coder.symbol(m.diff[model], static_cast<std::uint8_t>(value - pred)));
  };
  const int r_lo = (sym & 1) ? byte(0, last[0] & 255, cur[0] & 255) : last[0] & 255;
  const int r_hi = (sym & 2) ? byte(1, last[0] >> 8, cur[0] >> 8) : last[0] >> 8;
  if (!(sym & 64)) {
    cur[0] = cur[1] = cur[2] = static_cast<std::uint16_t>(r_lo | (r_hi << 8));
    return;
  }
  int diff = r_lo - (last[0] & 255);
  const int g_lo = (sym & 4) ? byte(2, clampByte(diff + (last[1] & 255)), cur[1] & 255) : last[1] & 255;
  int b_lo = last[2] & 255;
  if (sym & 16) {
    diff = (diff + g_lo - (last[1] & 255)) / 2;
    b_lo = byte(4, clampByte(diff + (last[2] & 255)), cur[2] & 255);
  }
  diff = r_hi - (last[0] >> 8);
  const int g_hi = (sym & 8) ? byte(3, clampByte(diff + (last[1] >> 8)), cur[1] >> 8) : last[1] >> 8;
  int b_hi = last[2] >> 8;
  if (sym & 32) {
    diff = (diff + g_hi - (last[1] >> 8)) / 2;
    b_hi = byte(5, clampByte(diff + (last[2] >> 8)), cur[2] >> 8);
  }
  cur[0] = static_cast<std::uint16_t>(r_lo | (r_hi << 8));
  cur[1] = static_cast<std::uint16_t>(g_lo | (g_hi << 8));
  cur[2] = static_cast<std::uint16_t>(b_lo | (b_hi << 8));
}

// ---------------------------------------------------------------------------------------------
// Pointwise (v2) items: one coder for the whole record.

class Point10Codec {
 public:
  Point10Codec(const std::uint8_t* first, bool d)
      : changed_(64, d),
        scan_angle_{{{256, d}, {256, d}}},
        bit_byte_(256, 256, d),
        classification_(256, 256, d),
        user_data_(256, 256, d),
        ic_intensity_(16, 4, d),
        ic_point_source_(16, 1, d),
        ic_dx_(32, 2, d),
        ic_dy_(32, 22, d),
        ic_z_(32, 20, d) {
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
  GpsTime11Codec(const std::uint8_t* first, bool d) : gps_(false, load<std::uint64_t>(first), d) {}
  template <class C>
  void code(C& coder, std::uint8_t* item) {
    store(item, gps_.code(coder, load<std::uint64_t>(item)));
  }

 private:
  GpsTimeCodec gps_;
};

class Rgb12Codec {
 public:
  Rgb12Codec(const std::uint8_t* first, bool d) : models_(d) { std::memcpy(last_, first, 6); }
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
  Byte10Codec(const std::uint8_t* first, std::size_t n, bool d) : last_(first, first + n) {
    for (std::size_t i = 0; i < n; ++i) models_.emplace_back(256, d);
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

// ---------------------------------------------------------------------------------------------
// Layered (v3) items: each field group in a layer of its own, coded per scanner channel.

/** A layer: a decoder over its bytes (absent where the chunk stored none: every value the same),
 *  or an encoder that records whether any value changed (unchanged layers are not stored). */
template <class C>
struct Layer;
template <>
struct Layer<ArithmeticDecoder> {
  ArithmeticDecoder coder;
  bool present = false;
  void changed(bool) {}
};
template <>
struct Layer<ArithmeticEncoder> {
  ArithmeticEncoder coder;
  static constexpr bool present = true;
  bool stored = false;
  void changed(bool c) { stored = stored || c; }
};

/** The fields of a POINT14 record. */
struct Point14 {
  std::int32_t x, y, z;
  std::uint16_t intensity, scan_angle, point_source;
  unsigned r, n, class_flags, channel, scan_direction, edge, classification, user_data;
  std::uint64_t gps;

  static Point14 read(const std::uint8_t* p) {
    Point14 v;
    v.x = load<std::int32_t>(p);
    v.y = load<std::int32_t>(p + 4);
    v.z = load<std::int32_t>(p + 8);
    v.intensity = load<std::uint16_t>(p + 12);
    v.r = p[14] & 15;
    v.n = p[14] >> 4;
    v.class_flags = p[15] & 15;
    v.channel = (p[15] >> 4) & 3;
    v.scan_direction = (p[15] >> 6) & 1;
    v.edge = p[15] >> 7;
    v.classification = p[16];
    v.user_data = p[17];
    v.scan_angle = load<std::uint16_t>(p + 18);
    v.point_source = load<std::uint16_t>(p + 20);
    v.gps = load<std::uint64_t>(p + 22);
    return v;
  }
  void write(std::uint8_t* p) const {
    store(p, x);
    store(p + 4, y);
    store(p + 8, z);
    store(p + 12, intensity);
    p[14] = static_cast<std::uint8_t>(r | (n << 4));
    p[15] = static_cast<std::uint8_t>(class_flags | (channel << 4) | (scan_direction << 6) | (edge << 7));
    p[16] = static_cast<std::uint8_t>(classification);
    p[17] = static_cast<std::uint8_t>(user_data);
    store(p + 18, scan_angle);
    store(p + 20, point_source);
    store(p + 22, gps);
  }
  unsigned flags() const { return class_flags | (scan_direction << 4) | (edge << 5); }
};

constexpr int kPoint14Layers = 9;  // xy (with returns and channel), z, classification, flags,
                                   // intensity, scan angle, user data, point source, gps time

class Point14Codec {
 public:
  Point14Codec(const std::uint8_t* first, bool d) : for_decoding_(d) {
    const Point14 p = Point14::read(first);
    last_channel_ = p.channel;
    start(p.channel, p);
  }
  unsigned firstChannel() const { return last_channel_; }

  /** Codes a point; returns the context the other items of the record use: the new scanner
   *  channel where it changed, else 0 (as LASzip hands it on). */
  template <class C>
  unsigned code(std::array<Layer<C>, kPoint14Layers>& layers, std::uint8_t* item) {
    Channel& prev = *channels_[last_channel_];
    const unsigned lpr = (prev.last.r == 1) | (prev.last.r >= prev.last.n) << 1 | prev.gps_time_change << 2;
    Point14 v{};
    unsigned changed = 0;
    if constexpr (C::kEncodes) {
      v = Point14::read(item);
      const Point14& ref = channels_[v.channel] ? channels_[v.channel]->last : prev.last;
      const bool up = v.r == ((ref.r + 1) & 15), down = v.r == ((ref.r + 15) & 15);
      const bool misc = v.r != ref.r && !up && !down;
      changed = (up || misc) | (down || misc) << 1 | (v.n != ref.n) << 2 | (v.scan_angle != ref.scan_angle) << 3 |
                (v.gps != ref.gps) << 4 | (v.point_source != ref.point_source) << 5 | (v.channel != last_channel_) << 6;
    }
    auto& xy = layers[0].coder;
    changed = xy.symbol(prev.changed[lpr], changed);
    unsigned channel = last_channel_, context = 0;
    if (changed & 64) {
      channel = (last_channel_ + xy.symbol(prev.scanner_channel, (v.channel + 3 - last_channel_) & 3) + 1) & 3;
      context = channel;
    }
    if (!channels_[channel]) start(channel, prev.last);
    Channel& c = *channels_[channel];
    if constexpr (!C::kEncodes) v = c.last;
    v.channel = channel;
    const Point14& last = c.last;
    const bool gps_change = changed & 16;

    if (changed & 4) v.n = xy.symbol(c.number_of_returns[last.n], v.n);
    if ((changed & 3) == 3) {
      if (gps_change)
        v.r = xy.symbol(c.return_number[last.r], v.r);
      else
        v.r = (last.r + xy.symbol(c.return_number_gps_same, (v.r + 30 - last.r) & 15) + 2) & 15;
    } else if (changed & 1) {
      v.r = (last.r + 1) & 15;
    } else if (changed & 2) {
      v.r = (last.r + 15) & 15;
    }
    const unsigned n = v.n, r = v.r;

    const unsigned xy_context = kReturnMap6[n][r] << 1 | gps_change;
    std::int32_t diff = c.dx.code(xy, c.x_median[xy_context].get(), wrappingSub(v.x, last.x), n == 1);
    v.x = wrappingAdd(last.x, diff);
    c.x_median[xy_context].add(diff);
    unsigned k = std::min(c.dx.k(), 20u) & ~1u;
    diff = c.dy.code(xy, c.y_median[xy_context].get(), wrappingSub(v.y, last.y), (n == 1) | k);
    v.y = wrappingAdd(last.y, diff);
    c.y_median[xy_context].add(diff);

    if (layers[1].present) {
      k = std::min((c.dx.k() + c.dy.k()) / 2, 18u) & ~1u;
      const unsigned level = returnLevel8(n, r);
      v.z = c.last_z[level] = c.z.code(layers[1].coder, c.last_z[level], v.z, (n == 1) | k);
      layers[1].changed(true);
    }
    if (layers[2].present) {
      const unsigned ctx = (r == 1 && r >= n) | (last.classification & 0x1F) << 1;
      v.classification = layers[2].coder.symbol(c.classification[ctx], v.classification);
      layers[2].changed(v.classification != last.classification);
    }
    if (layers[3].present) {
      const unsigned flags = layers[3].coder.symbol(c.flags[last.flags()], v.flags());
      layers[3].changed(flags != last.flags());
      v.class_flags = flags & 15;
      v.scan_direction = (flags >> 4) & 1;
      v.edge = (flags >> 5) & 1;
    }
    if (layers[4].present) {
      const unsigned ctx = gps_change | (r >= n) << 1 | (r == 1) << 2;
      layers[4].changed(v.intensity != last.intensity);
      v.intensity = c.last_intensity[ctx] =
          static_cast<std::uint16_t>(c.intensity.code(layers[4].coder, c.last_intensity[ctx], v.intensity, ctx >> 1));
    }
    if (changed & 8) {
      v.scan_angle =
          static_cast<std::uint16_t>(c.scan_angle.code(layers[5].coder, last.scan_angle, v.scan_angle, gps_change));
      layers[5].changed(true);
    }
    if (layers[6].present) {
      v.user_data = layers[6].coder.symbol(c.user_data[last.user_data / 4], v.user_data);
      layers[6].changed(v.user_data != last.user_data);
    }
    if (changed & 32) {
      v.point_source =
          static_cast<std::uint16_t>(c.point_source.code(layers[7].coder, last.point_source, v.point_source, 0));
      layers[7].changed(true);
    }
    if (gps_change) {
      v.gps = c.gps.code(layers[8].coder, v.gps);
      layers[8].changed(true);
    }
    c.gps_time_change = gps_change;
    c.last = v;
    last_channel_ = channel;
    if constexpr (!C::kEncodes) v.write(item);
    return context;
  }

 private:
  struct Channel {
    Channel(const Point14& from, bool d)
        : last(from),
          changed(8, SymbolModel(128, d)),
          scanner_channel(3, d),
          return_number_gps_same(13, d),
          number_of_returns(16, SymbolModel(16, d)),
          return_number(16, SymbolModel(16, d)),
          classification(64, 256, d),
          flags(64, 64, d),
          user_data(64, 256, d),
          dx(32, 2, d),
          dy(32, 22, d),
          z(32, 20, d),
          intensity(16, 4, d),
          scan_angle(16, 2, d),
          point_source(16, 1, d),
          gps(true, from.gps, d) {
      std::fill(std::begin(last_intensity), std::end(last_intensity), from.intensity);
      std::fill(std::begin(last_z), std::end(last_z), from.z);
    }
    Point14 last;
    bool gps_time_change = false;
    std::uint16_t last_intensity[8];
    std::int32_t last_z[8];
    Median5 x_median[12], y_median[12];
    std::vector<SymbolModel> changed;
    SymbolModel scanner_channel, return_number_gps_same;
    std::vector<SymbolModel> number_of_returns, return_number;
    LazyModels classification, flags, user_data;
    IntegerCodec dx, dy, z, intensity, scan_angle, point_source;
    GpsTimeCodec gps;
  };

  void start(unsigned channel, const Point14& from) {
    channels_[channel] = std::make_unique<Channel>(from, for_decoding_);
    channels_[channel]->last.channel = channel;
  }

  bool for_decoding_;
  unsigned last_channel_ = 0;
  std::array<std::unique_ptr<Channel>, 4> channels_;
};

/** The per-channel state of the items after POINT14 (RGB14, RGBNIR14, BYTE14). LASzip keeps one
 *  "last value" pointer across channel switches: the value coded against is the previous
 *  channel's, unless the new channel is met for the first time (then a copy of it). */
template <typename State>
class ChannelStates {
 public:
  ChannelStates(unsigned first_channel, State first) : last_channel_(first_channel) {
    states_[first_channel] = std::make_unique<State>(std::move(first));
  }
  /** The state whose models code this point, and the value to code against. */
  template <typename Copy>
  std::pair<State*, State*> at(unsigned channel, Copy copy) {
    State* last = states_[last_channel_].get();
    if (!states_[channel]) {
      states_[channel] = std::make_unique<State>(copy(*last));
      last = states_[channel].get();
    }
    last_channel_ = channel;
    return {states_[channel].get(), last};
  }
  State& lastState() { return *states_[last_channel_]; }

 private:
  unsigned last_channel_;
  std::array<std::unique_ptr<State>, 4> states_;
};

class Rgb14Codec {
 public:
  Rgb14Codec(const std::uint8_t* first, unsigned channel, bool nir, bool d)
      : nir_(nir), d_(d), states_(channel, State(first, nir, d)) {}
  static constexpr int layers(bool nir) { return nir ? 2 : 1; }

  template <class C>
  void code(Layer<C>* layers, std::uint8_t* item, unsigned channel) {
    if (!layers[0].present && !(nir_ && layers[1].present)) {  // nothing stored: the colour of the chunk
      std::memcpy(item, states_.lastState().last, nir_ ? 8 : 6);
      return;
    }
    auto [state, last] = states_.at(
        channel, [&](const State& s) { return State(reinterpret_cast<const std::uint8_t*>(s.last), nir_, d_); });
    std::uint16_t cur[4];
    std::memcpy(cur, C::kEncodes ? static_cast<const void*>(item) : last->last, nir_ ? 8 : 6);
    if (layers[0].present) {
      const unsigned sym = codeRgbUsed(layers[0].coder, state->rgb, cur, last->last);
      layers[0].changed(sym != 0);
      codeRgb(layers[0].coder, state->rgb, sym, cur, last->last);
    }
    if (nir_ && layers[1].present) {
      const unsigned lo = cur[3] & 0xFF, hi = cur[3] >> 8, last_lo = last->last[3] & 0xFF, last_hi = last->last[3] >> 8;
      const unsigned sym = layers[1].coder.symbol(state->nir_used, (lo != last_lo) | (hi != last_hi) << 1);
      layers[1].changed(sym != 0);
      const unsigned new_lo =
          (sym & 1) ? static_cast<std::uint8_t>(
                          last_lo + layers[1].coder.symbol(state->nir_diff[0], static_cast<std::uint8_t>(lo - last_lo)))
                    : last_lo;
      const unsigned new_hi =
          (sym & 2) ? static_cast<std::uint8_t>(
                          last_hi + layers[1].coder.symbol(state->nir_diff[1], static_cast<std::uint8_t>(hi - last_hi)))
                    : last_hi;
      cur[3] = static_cast<std::uint16_t>(new_lo | new_hi << 8);
    }
    std::memcpy(last->last, cur, nir_ ? 8 : 6);
    std::memcpy(item, cur, nir_ ? 8 : 6);
  }

 private:
  struct State {
    State(const std::uint8_t* from, bool nir, bool d) : rgb(d), nir_used(4, d), nir_diff{{{256, d}, {256, d}}} {
      std::memcpy(last, from, nir ? 8 : 6);
    }
    std::uint16_t last[4] = {0, 0, 0, 0};
    RgbModels rgb;
    SymbolModel nir_used;
    std::array<SymbolModel, 2> nir_diff;
  };
  bool nir_, d_;
  ChannelStates<State> states_;
};

class Byte14Codec {
 public:
  Byte14Codec(const std::uint8_t* first, std::size_t n, unsigned channel, bool d)
      : n_(n), d_(d), states_(channel, State(first, n, d)) {}

  template <class C>
  void code(Layer<C>* layers, std::uint8_t* item, unsigned channel) {
    auto [state, last] = states_.at(channel, [&](const State& s) { return State(s.last.data(), n_, d_); });
    for (std::size_t i = 0; i < n_; ++i) {
      if (layers[i].present) {
        const auto value = static_cast<std::uint8_t>(
            last->last[i] +
            layers[i].coder.symbol(state->models[i], static_cast<std::uint8_t>(item[i] - last->last[i])));
        layers[i].changed(value != last->last[i]);
        last->last[i] = value;
      }
      item[i] = last->last[i];
    }
  }

 private:
  struct State {
    State(const std::uint8_t* from, std::size_t n, bool d) : last(from, from + n) {
      for (std::size_t i = 0; i < n; ++i) models.emplace_back(256, d);
    }
    std::vector<std::uint8_t> last;
    std::vector<SymbolModel> models;
  };
  std::size_t n_;
  bool d_;
  ChannelStates<State> states_;
};

// ---------------------------------------------------------------------------------------------
// Chunks.

/** The items of a pointwise record, coded in record order by one coder. */
class PointwiseRecord {
 public:
  PointwiseRecord(const Schema& schema, const std::uint8_t* first, bool d) {
    std::size_t at = 0;
    for (const Item& item : schema.items) {
      Coded coded{item.type, at, {}, {}, {}, {}};
      if (item.type == Item::kPoint10)
        coded.point = std::make_unique<Point10Codec>(first + at, d);
      else if (item.type == Item::kGpsTime11)
        coded.gps = std::make_unique<GpsTime11Codec>(first + at, d);
      else if (item.type == Item::kRgb12)
        coded.rgb = std::make_unique<Rgb12Codec>(first + at, d);
      else
        coded.bytes = std::make_unique<Byte10Codec>(first + at, item.size, d);
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
    std::uint16_t type;
    std::size_t at;
    std::unique_ptr<Point10Codec> point;
    std::unique_ptr<GpsTime11Codec> gps;
    std::unique_ptr<Rgb12Codec> rgb;
    std::unique_ptr<Byte10Codec> bytes;
  };
  std::vector<Coded> items_;
};

/** The items of a layered record and their layers, in the order the chunk stores them. */
template <class C>
class LayeredRecord {
 public:
  LayeredRecord(const Schema& schema, const std::uint8_t* first, bool d) : point_(first, d) {
    std::size_t at = 30;
    for (std::size_t i = 1; i < schema.items.size(); ++i) {
      const Item& item = schema.items[i];
      if (item.type == Item::kByte14) {
        bytes_ = std::make_unique<Byte14Codec>(first + at, item.size, point_.firstChannel(), d);
        byte_layers_.resize(item.size);
      } else {
        rgb_ = std::make_unique<Rgb14Codec>(first + at, point_.firstChannel(), item.type == Item::kRgbNir14, d);
        nir_ = item.type == Item::kRgbNir14;
      }
      at += item.size;
    }
  }
  /** Every layer in stored order. */
  std::vector<Layer<C>*> layers() {
    std::vector<Layer<C>*> all;
    for (auto& l : point_layers_) all.push_back(&l);
    if (rgb_) {
      all.push_back(&rgb_layers_[0]);
      if (nir_) all.push_back(&rgb_layers_[1]);
    }
    for (auto& l : byte_layers_) all.push_back(&l);
    return all;
  }
  void code(std::uint8_t* record) {
    const unsigned context = point_.code(point_layers_, record);
    std::size_t at = 30;
    if (rgb_) {
      rgb_->code(rgb_layers_.data(), record + at, context);
      at += nir_ ? 8 : 6;
    }
    if (bytes_) bytes_->code(byte_layers_.data(), record + at, context);
  }

 private:
  Point14Codec point_;
  std::array<Layer<C>, kPoint14Layers> point_layers_;
  std::unique_ptr<Rgb14Codec> rgb_;
  bool nir_ = false;
  std::array<Layer<C>, 2> rgb_layers_;
  std::unique_ptr<Byte14Codec> bytes_;
  std::vector<Layer<C>> byte_layers_;
};

template <typename T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace

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
  put<std::uint32_t>(out, static_cast<std::uint32_t>(count));
  std::vector<Layer<ArithmeticEncoder>*> layers = items.layers();
  // The coordinates and z are stored always, the other layers where a value changed.
  for (std::size_t l = 0; l < layers.size(); ++l) {
    Layer<ArithmeticEncoder>& layer = *layers[l];
    if (l < 2) layer.stored = true;
    if (layer.stored) layer.coder.finish();
    put<std::uint32_t>(out, layer.stored ? static_cast<std::uint32_t>(layer.coder.bytes().size()) : 0u);
  }
  for (auto* layer : layers)
    if (layer->stored) out += layer->coder.bytes();
  return out;
}

}  // namespace laz
}  // namespace io
}  // namespace pcl_dise
