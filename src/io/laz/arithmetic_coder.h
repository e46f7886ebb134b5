#pragma once
// The entropy coder of LAZ (LASzip compression): an adaptive arithmetic coder with 32-bit
// registers, adaptive bit and symbol models, and the integer codec that codes a value as its
// difference from a prediction. The decoder and the encoder offer the same calls, each taking the
// value to write and returning the value read or written, so that every rule of the format is
// written once, as a template over the coder (point_items.h).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pcl_dise {
namespace io {
namespace laz {

constexpr std::uint32_t kMinLength = 0x01000000u;  // renormalise below this interval length
constexpr std::uint32_t kMaxLength = 0xFFFFFFFFu;
constexpr int kBitLengthShift = 13;  // bit models: probabilities in 13 bits
constexpr std::uint32_t kBitMaxCount = 1u << kBitLengthShift;
constexpr int kSymbolLengthShift = 15;  // symbol models: distributions in 15 bits
constexpr std::uint32_t kSymbolMaxCount = 1u << kSymbolLengthShift;

/** An adaptive model of one binary decision. */
struct BitModel {
  std::uint32_t bit_0_count = 1, bit_count = 2, bit_0_prob = 1u << (kBitLengthShift - 1);
  std::uint32_t update_cycle = 4, until_update = 4;

  void update() {
    if ((bit_count += update_cycle) > kBitMaxCount) {
      bit_count = (bit_count + 1) >> 1;
      bit_0_count = (bit_0_count + 1) >> 1;
      if (bit_0_count == bit_count) ++bit_count;
    }
    const std::uint32_t scale = 0x80000000u / bit_count;
    bit_0_prob = (bit_0_count * scale) >> (31 - kBitLengthShift);
    update_cycle = (5 * update_cycle) >> 2;
    if (update_cycle > 64) update_cycle = 64;
    until_update = update_cycle;
  }
};

/** An adaptive model of a symbol from 0..symbols-1 (2..2048). A model that decodes keeps a table
 *  that narrows the search for a symbol (it changes nothing in what is decoded). */
class SymbolModel {
 public:
  SymbolModel(unsigned symbols, bool for_decoding) : symbols_(symbols), last_symbol_(symbols - 1) {
    distribution_.resize(symbols);
    count_.assign(symbols, 1);
    if (for_decoding && symbols > 16) {
      unsigned table_bits = 3;
      while (symbols > (1u << (table_bits + 2))) ++table_bits;
      table_size_ = 1u << table_bits;
      table_shift_ = kSymbolLengthShift - table_bits;
      table_.resize(table_size_ + 2);
    }
    update_cycle_ = symbols;
    update();
    until_update_ = update_cycle_ = (symbols + 6) >> 1;
  }

  unsigned symbols() const { return symbols_; }

  void counted(unsigned symbol) {
    ++count_[symbol];
    if (--until_update_ == 0) update();
  }

  std::vector<std::uint32_t> distribution_, count_, table_;
  unsigned symbols_, last_symbol_, table_size_ = 0, table_shift_ = 0;

 private:
  void update() {
    if ((total_ += update_cycle_) > kSymbolMaxCount) {
      total_ = 0;
      for (unsigned n = 0; n < symbols_; ++n) total_ += (count_[n] = (count_[n] + 1) >> 1);
    }
    const std::uint32_t scale = 0x80000000u / total_;
    std::uint32_t sum = 0;
    if (table_.empty()) {
      for (unsigned k = 0; k < symbols_; ++k) {
        distribution_[k] = (scale * sum) >> (31 - kSymbolLengthShift);
        sum += count_[k];
      }
    } else {
      unsigned s = 0;
      for (unsigned k = 0; k < symbols_; ++k) {
        distribution_[k] = (scale * sum) >> (31 - kSymbolLengthShift);
        sum += count_[k];
        const unsigned w = distribution_[k] >> table_shift_;
        while (s < w) table_[++s] = k - 1;
      }
      table_[0] = 0;
      while (s <= table_size_) table_[++s] = symbols_ - 1;
    }
    update_cycle_ = (5 * update_cycle_) >> 2;
    const unsigned max_cycle = (symbols_ + 6) << 3;
    if (update_cycle_ > max_cycle) update_cycle_ = max_cycle;
    until_update_ = update_cycle_;
  }

  std::uint32_t total_ = 0, update_cycle_ = 0, until_update_ = 0;
};

/** Decodes from a byte range. Bytes asked for past its end read as zero and are counted: a valid
 *  LAZ stream is never read past its end (the encoder pads it), so overrun() > 0 means the data
 *  is truncated or corrupt. */
class ArithmeticDecoder {
 public:
  static constexpr bool kEncodes = false;

  void start(const std::uint8_t* data, std::size_t size) {
    at_ = data;
    end_ = data + size;
    overrun_ = 0;
    length_ = kMaxLength;
    value_ = 0;
    for (int i = 0; i < 4; ++i) value_ = (value_ << 8) | nextByte();
  }
  std::size_t overrun() const { return overrun_; }
  /** Bytes of its data not read yet. */
  std::size_t unread() const { return static_cast<std::size_t>(end_ - at_); }

  unsigned bit(BitModel& m, unsigned /*written*/ = 0) {
    const std::uint32_t x = m.bit_0_prob * (length_ >> kBitLengthShift);
    const unsigned sym = value_ >= x;
    if (sym == 0) {
      length_ = x;
      ++m.bit_0_count;
    } else {
      value_ -= x;
      length_ -= x;
    }
    if (length_ < kMinLength) renormalise();
    if (--m.until_update == 0) m.update();
    return sym;
  }

  unsigned symbol(SymbolModel& m, unsigned /*written*/ = 0) {
    std::uint32_t n, sym, x, y = length_;
    if (!m.table_.empty()) {
      const std::uint32_t dv = value_ / (length_ >>= kSymbolLengthShift);
      // dv < 2^15 in a valid stream; corrupt data (value no longer below length) can push it past the table.
      const std::uint32_t t = std::min<std::uint32_t>(dv >> m.table_shift_, m.table_size_);
      sym = m.table_[t];
      n = m.table_[t + 1] + 1;
      while (n > sym + 1) {
        const std::uint32_t k = (sym + n) >> 1;
        if (m.distribution_[k] > dv)
          n = k;
        else
          sym = k;
      }
      x = m.distribution_[sym] * length_;
      if (sym != m.last_symbol_) y = m.distribution_[sym + 1] * length_;
    } else {
      x = sym = 0;
      length_ >>= kSymbolLengthShift;
      std::uint32_t k = (n = m.symbols_) >> 1;
      do {
        const std::uint32_t z = length_ * m.distribution_[k];
        if (z > value_) {
          n = k;
          y = z;
        } else {
          sym = k;
          x = z;
        }
      } while ((k = (sym + n) >> 1) != sym);
    }
    value_ -= x;
    length_ = y - x;
    if (length_ < kMinLength) renormalise();
    m.counted(sym);
    return sym;
  }

  /** `bits` raw bits (1..32). */
  std::uint32_t bits(unsigned bits, std::uint32_t /*written*/ = 0) {
    if (bits > 19) {  // in two parts: the 32-bit registers hold at most 19 bits of interval
      const std::uint32_t low = rawBits(16);
      return (rawBits(bits - 16) << 16) | low;
    }
    return rawBits(bits);
  }
  std::uint32_t int32(std::uint32_t /*written*/ = 0) {
    const std::uint32_t low = rawBits(16);
    return (rawBits(16) << 16) | low;
  }

 private:
  std::uint32_t rawBits(unsigned bits) {
    const std::uint32_t sym = value_ / (length_ >>= bits);
    value_ -= length_ * sym;
    if (length_ < kMinLength) renormalise();
    return sym;
  }
  std::uint8_t nextByte() {
    if (at_ < end_) return *at_++;
    ++overrun_;
    return 0;
  }
  void renormalise() {
    do {
      value_ = (value_ << 8) | nextByte();
    } while ((length_ <<= 8) < kMinLength);
  }

  const std::uint8_t *at_ = nullptr, *end_ = nullptr;
  std::size_t overrun_ = 0;
  std::uint32_t value_ = 0, length_ = kMaxLength;
};

/** Encodes into a byte string; finish() pads it so that a decoder never reads past its end. */
class ArithmeticEncoder {
 public:
  static constexpr bool kEncodes = true;

  unsigned bit(BitModel& m, unsigned sym) {
    const std::uint32_t x = m.bit_0_prob * (length_ >> kBitLengthShift);
    if (sym == 0) {
      length_ = x;
      ++m.bit_0_count;
    } else {
      add(x);
      length_ -= x;
    }
    if (length_ < kMinLength) renormalise();
    if (--m.until_update == 0) m.update();
    return sym;
  }

  unsigned symbol(SymbolModel& m, unsigned sym) {
    std::uint32_t x;
    if (sym == m.last_symbol_) {
      x = m.distribution_[sym] * (length_ >> kSymbolLengthShift);
      add(x);
      length_ -= x;
    } else {
      x = m.distribution_[sym] * (length_ >>= kSymbolLengthShift);
      add(x);
      length_ = m.distribution_[sym + 1] * length_ - x;
    }
    if (length_ < kMinLength) renormalise();
    m.counted(sym);
    return sym;
  }

  std::uint32_t bits(unsigned bits, std::uint32_t sym) {
    const std::uint32_t written = sym;
    if (bits > 19) {
      rawBits(16, sym & 0xFFFF);
      sym >>= 16;
      bits -= 16;
    }
    rawBits(bits, sym);
    return written;
  }
  std::uint32_t int32(std::uint32_t sym) {
    rawBits(16, sym & 0xFFFF);
    rawBits(16, sym >> 16);
    return sym;
  }

  /** Flushes the interval; the bytes are complete after this. */
  void finish() {
    bool another_byte = true;
    if (length_ > 2 * kMinLength) {
      add(kMinLength);
      length_ = kMinLength >> 1;
    } else {
      add(kMinLength >> 1);
      length_ = kMinLength >> 9;
      another_byte = false;
    }
    renormalise();
    bytes_.append(another_byte ? 3 : 2, '\0');  // the decoder reads this far ahead
  }
  const std::string& bytes() const { return bytes_; }

 private:
  void rawBits(unsigned bits, std::uint32_t sym) {
    add(sym * (length_ >>= bits));
    if (length_ < kMinLength) renormalise();
  }
  void add(std::uint32_t x) {
    const std::uint32_t before = base_;
    base_ += x;
    if (before > base_) {  // carry into the bytes already written
      std::size_t p = bytes_.size();
      while (p > 0 && static_cast<std::uint8_t>(bytes_[p - 1]) == 0xFF) bytes_[--p] = '\0';
      if (p > 0) bytes_[p - 1] = static_cast<char>(static_cast<std::uint8_t>(bytes_[p - 1]) + 1);
    }
  }
  void renormalise() {
    do {
      bytes_.push_back(static_cast<char>(base_ >> 24));
      base_ <<= 8;
    } while ((length_ <<= 8) < kMinLength);
  }

  std::string bytes_;
  std::uint32_t base_ = 0, length_ = kMaxLength;
};

/** Codes an integer as its difference from a prediction: the difference's bit length k by an
 *  adaptive symbol model (one per context), then the difference within that length (its high
 *  bits by a model per length, any low bits beyond `bits_high` raw). Values wrap at `bits` bits. */
class IntegerCodec {
 public:
  IntegerCodec(unsigned bits, unsigned contexts, bool for_decoding, unsigned bits_high = 8)
      : bits_high_(bits_high), contexts_(contexts), for_decoding_(for_decoding) {
    if (bits > 0 && bits < 32) {
      corr_bits_ = bits;
      corr_range_ = 1u << bits;
      corr_min_ = -static_cast<std::int32_t>(corr_range_ / 2);
      corr_max_ = static_cast<std::int32_t>(corr_min_ + corr_range_ - 1);
    } else {
      corr_bits_ = 32;
      corr_range_ = 0;
      corr_min_ = INT32_MIN;
      corr_max_ = INT32_MAX;
    }
    for (unsigned c = 0; c < contexts; ++c) k_models_.emplace_back(corr_bits_ + 1, for_decoding);
    correctors_.resize(corr_bits_ + 1);
  }

  /** The bit length of the last difference coded. */
  unsigned k() const { return k_; }

  /** Codes `real` (encoding) or reads it (decoding) given `pred`; returns it. */
  template <class Coder>
  std::int32_t code(Coder& coder, std::int32_t pred, std::int32_t real, unsigned context) {
    if constexpr (Coder::kEncodes) {
      std::int32_t corr =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(real) - static_cast<std::uint32_t>(pred));
      if (corr < corr_min_)
        corr = static_cast<std::int32_t>(static_cast<std::uint32_t>(corr) + corr_range_);
      else if (corr > corr_max_)
        corr = static_cast<std::int32_t>(static_cast<std::uint32_t>(corr) - corr_range_);
      writeCorrector(coder, corr, k_models_[context]);
      return real;
    } else {
      std::int64_t value = static_cast<std::int64_t>(pred) + readCorrector(coder, k_models_[context]);
      if (corr_range_ != 0) {
        if (value < 0)
          value += corr_range_;
        else if (value >= static_cast<std::int64_t>(corr_range_))
          value -= corr_range_;
      }
      return static_cast<std::int32_t>(static_cast<std::uint32_t>(value));
    }
  }

 private:
  SymbolModel& corrector(unsigned k) {
    if (!correctors_[k])
      correctors_[k] = std::make_unique<SymbolModel>(1u << (k <= bits_high_ ? k : bits_high_), for_decoding_);
    return *correctors_[k];
  }

  void writeCorrector(ArithmeticEncoder& coder, std::int32_t c, SymbolModel& k_model) {
    std::uint32_t c1 = c <= 0 ? 0u - static_cast<std::uint32_t>(c) : static_cast<std::uint32_t>(c) - 1;
    k_ = 0;
    while (c1) {
      c1 >>= 1;
      ++k_;
    }
    coder.symbol(k_model, k_);
    if (k_ == 0) {
      coder.bit(corrector0_, static_cast<unsigned>(c));
      return;
    }
    if (k_ == 32) return;  // the difference is corr_min: its length says it all
    const std::uint32_t v = c < 0 ? static_cast<std::uint32_t>(static_cast<std::int64_t>(c) +
                                                               ((std::int64_t{1} << k_) - 1))  // 0 .. 2^(k-1) - 1
                                  : static_cast<std::uint32_t>(c) - 1;                         // 2^(k-1) .. 2^k - 1
    if (k_ <= bits_high_) {
      coder.symbol(corrector(k_), v);
    } else {
      const unsigned low_bits = k_ - bits_high_;
      coder.symbol(corrector(k_), v >> low_bits);
      coder.bits(low_bits, v & ((1u << low_bits) - 1));
    }
  }

  std::int32_t readCorrector(ArithmeticDecoder& coder, SymbolModel& k_model) {
    k_ = coder.symbol(k_model);
    if (k_ == 0) return static_cast<std::int32_t>(coder.bit(corrector0_));
    if (k_ >= 32) return corr_min_;
    std::uint32_t c;
    if (k_ <= bits_high_) {
      c = coder.symbol(corrector(k_));
    } else {
      const unsigned low_bits = k_ - bits_high_;
      c = coder.symbol(corrector(k_));
      c = (c << low_bits) | coder.bits(low_bits);
    }
    if (c >= (1u << (k_ - 1))) return static_cast<std::int32_t>(c + 1);
    return static_cast<std::int32_t>(static_cast<std::int64_t>(c) - ((std::int64_t{1} << k_) - 1));
  }

  unsigned corr_bits_, bits_high_, contexts_;
  bool for_decoding_;
  std::uint32_t corr_range_;
  std::int32_t corr_min_, corr_max_;
  unsigned k_ = 0;
  std::vector<SymbolModel> k_models_;
  BitModel corrector0_;
  std::vector<std::unique_ptr<SymbolModel>> correctors_;
};

}  // namespace laz
}  // namespace io
}  // namespace pcl_dise
