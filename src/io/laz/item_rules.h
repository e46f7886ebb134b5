#pragma once
// What LAZ's item codecs share: byte access, wrapping integer arithmetic, the streaming median,
// models made on first use, the return-number context tables, the GPS time codec (GPSTIME11 and
// POINT14) and the colour codec (RGB12 and RGB14). Every codec is a template over the coder
// (arithmetic_coder.h): encoding passes the record's value and gets it back, decoding passes the
// last value and gets the one read. Where the encoder must choose a symbol (which fields changed,
// a multiplier), that choice is made under `if constexpr (C::kEncodes)` and all after it is
// shared, so that the two directions cannot drift apart. Private to laz_chunk.cpp.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "arithmetic_coder.h"
#include "bytes.h"

namespace pcl_dise {
namespace io {
namespace laz {

[[noreturn]] inline void corrupt(const std::string& what) { throw std::runtime_error("corrupt LAZ data: " + what); }

inline std::int32_t wrappingSub(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
inline std::int32_t wrappingAdd(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
inline std::int32_t wrappingMul(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}
inline int clampByte(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

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
inline constexpr std::uint8_t kReturnMap[8][8] = {{15, 14, 13, 12, 11, 10, 9, 8},  {14, 0, 1, 3, 6, 10, 10, 9},
                                                  {13, 1, 2, 4, 7, 11, 11, 10},    {12, 3, 4, 5, 8, 12, 12, 11},
                                                  {11, 6, 7, 8, 9, 13, 13, 12},    {10, 10, 11, 12, 13, 14, 14, 13},
                                                  {9, 10, 11, 12, 13, 14, 15, 14}, {8, 9, 10, 11, 12, 13, 14, 15}};
inline constexpr std::uint8_t kReturnLevel[8][8] = {
    {0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 1, 2, 3, 4, 5, 6}, {2, 1, 0, 1, 2, 3, 4, 5}, {3, 2, 1, 0, 1, 2, 3, 4},
    {4, 3, 2, 1, 0, 1, 2, 3}, {5, 4, 3, 2, 1, 0, 1, 2}, {6, 5, 4, 3, 2, 1, 0, 1}, {7, 6, 5, 4, 3, 2, 1, 0}};
inline constexpr std::uint8_t kReturnMap6[16][16] = {
    {0, 1, 2, 3, 4, 5, 3, 4, 4, 5, 5, 5, 5, 5, 5, 5}, {1, 0, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3},
    {2, 1, 2, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3}, {3, 3, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
    {4, 3, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, {5, 3, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
    {3, 3, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4}, {4, 3, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4},
    {4, 3, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4}, {5, 3, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4},
    {5, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4}, {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 4, 4, 4},
    {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 4, 4}, {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 4},
    {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5}, {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5}};
inline std::uint8_t returnLevel8(unsigned n, unsigned r) {  // |n - r| up to 7
  const int d = static_cast<int>(n) - static_cast<int>(r);
  return static_cast<std::uint8_t>(std::min(7, d < 0 ? -d : d));
}

// ---------------------------------------------------------------------------------------------
// GPS time (GPSTIME11 v2 and POINT14 v3 alike): up to four interleaved time sequences, each
// predicted from its last difference times a small multiplier.

inline constexpr int kMulti = 500, kMultiMinus = -10;

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
  explicit RgbModels(bool for_decoding)
      : used(128, for_decoding),
        diff{{{256, for_decoding},
              {256, for_decoding},
              {256, for_decoding},
              {256, for_decoding},
              {256, for_decoding},
              {256, for_decoding}}} {}
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

}  // namespace laz
}  // namespace io
}  // namespace pcl_dise
