#pragma once
// LASzip's layered (version 3) items, for point formats 6-8: POINT14, RGB14, RGBNIR14 and BYTE14,
// each field group in a layer of its own (a layer no value changed in is not stored), with models
// per scanner channel. Private to laz_chunk.cpp.
#include "item_rules.h"

namespace pcl_dise {
namespace io {
namespace laz {

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
  Point14Codec(const std::uint8_t* first, bool for_decoding) : for_decoding_(for_decoding) {
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
    Channel(const Point14& from, bool for_decoding)
        : last(from),
          changed(8, SymbolModel(128, for_decoding)),
          scanner_channel(3, for_decoding),
          return_number_gps_same(13, for_decoding),
          number_of_returns(16, SymbolModel(16, for_decoding)),
          return_number(16, SymbolModel(16, for_decoding)),
          classification(64, 256, for_decoding),
          flags(64, 64, for_decoding),
          user_data(64, 256, for_decoding),
          dx(32, 2, for_decoding),
          dy(32, 22, for_decoding),
          z(32, 20, for_decoding),
          intensity(16, 4, for_decoding),
          scan_angle(16, 2, for_decoding),
          point_source(16, 1, for_decoding),
          gps(true, from.gps, for_decoding) {
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
  Rgb14Codec(const std::uint8_t* first, unsigned channel, bool nir, bool for_decoding)
      : nir_(nir), for_decoding_(for_decoding), states_(channel, State(first, nir, for_decoding)) {}
  static constexpr int layers(bool nir) { return nir ? 2 : 1; }

  template <class C>
  void code(Layer<C>* layers, std::uint8_t* item, unsigned channel) {
    if (!layers[0].present && !(nir_ && layers[1].present)) {  // nothing stored: the colour of the chunk
      std::memcpy(item, states_.lastState().last, nir_ ? 8 : 6);
      return;
    }
    auto [state, last] = states_.at(channel, [&](const State& s) {
      return State(reinterpret_cast<const std::uint8_t*>(s.last), nir_, for_decoding_);
    });
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
    State(const std::uint8_t* from, bool nir, bool for_decoding)
        : rgb(for_decoding), nir_used(4, for_decoding), nir_diff{{{256, for_decoding}, {256, for_decoding}}} {
      std::memcpy(last, from, nir ? 8 : 6);
    }
    std::uint16_t last[4] = {0, 0, 0, 0};
    RgbModels rgb;
    SymbolModel nir_used;
    std::array<SymbolModel, 2> nir_diff;
  };
  bool nir_, for_decoding_;
  ChannelStates<State> states_;
};

class Byte14Codec {
 public:
  Byte14Codec(const std::uint8_t* first, std::size_t n, unsigned channel, bool for_decoding)
      : n_(n), for_decoding_(for_decoding), states_(channel, State(first, n, for_decoding)) {}

  template <class C>
  void code(Layer<C>* layers, std::uint8_t* item, unsigned channel) {
    auto [state, last] = states_.at(channel, [&](const State& s) { return State(s.last.data(), n_, for_decoding_); });
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
    State(const std::uint8_t* from, std::size_t n, bool for_decoding) : last(from, from + n) {
      for (std::size_t i = 0; i < n; ++i) models.emplace_back(256, for_decoding);
    }
    std::vector<std::uint8_t> last;
    std::vector<SymbolModel> models;
  };
  std::size_t n_;
  bool for_decoding_;
  ChannelStates<State> states_;
};

/** The items of a layered record and their layers, in the order the chunk stores them. */
template <class C>
class LayeredRecord {
 public:
  LayeredRecord(const Schema& schema, const std::uint8_t* first, bool for_decoding) : point_(first, for_decoding) {
    std::size_t at = 30;
    for (std::size_t i = 1; i < schema.items.size(); ++i) {
      const Item& item = schema.items[i];
      if (item.type == Item::kByte14) {
        bytes_ = std::make_unique<Byte14Codec>(first + at, item.size, point_.firstChannel(), for_decoding);
        byte_layers_.resize(item.size);
      } else {
        rgb_ =
            std::make_unique<Rgb14Codec>(first + at, point_.firstChannel(), item.type == Item::kRgbNir14, for_decoding);
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

}  // namespace laz
}  // namespace io
}  // namespace pcl_dise
