#pragma once
// The per-point network of point_network.h, written once over a SIMD type V. V has Reg and width
// (floats per register: the points of a group), lanes (registers a product keeps in flight),
// outputs (output rows it keeps in flight), and load, store, set1, add, sub, mul, div, fma
// (a * b + c), max, sqrt, relu, fillWhereBelow, fillTail, sum, maximum and exp (the SIMD types
// build it with expPolynomial from min, round and pow2). With Rows = Bf16PairRows the edge MLPs
// multiply in bfloat16, and V also has Pairs, loadPairs, storePairs, pack (two float registers
// to one of bfloat16 pairs, rounded as bfloat16Bits rounds) and dotPairs. Included only by the
// translation units compiled for one instruction set each; everything here has internal
// linkage, so no instance compiled for one instruction set can stand in for another's at link
// time.
#include <algorithm>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "pcl_dise/core/edge_features.h"
#include "pcl_dise/core/plane_fit.h"
#include "point_network.h"

namespace pcl_dise {
namespace detail {
namespace {

// One value per edge: what edgeFeatures (edge_features.h) computes with.
template <typename V>
struct Lanes {
  typename V::Reg r;
};
template <typename V>
Lanes<V> operator+(Lanes<V> a, Lanes<V> b) {
  return {V::add(a.r, b.r)};
}
template <typename V>
Lanes<V> operator-(Lanes<V> a, Lanes<V> b) {
  return {V::sub(a.r, b.r)};
}
template <typename V>
Lanes<V> operator*(Lanes<V> a, Lanes<V> b) {
  return {V::mul(a.r, b.r)};
}
template <typename V>
Lanes<V> sqrt(Lanes<V> a) {
  return {V::sqrt(a.r)};
}
template <typename V>
Lanes<V> cosineOrZero(Lanes<V> dot, Lanes<V> norms) {
  return {V::fillWhereBelow(norms.r, 1e-8f, 0.f, V::div(dot.r, norms.r))};
}

// exp(x) for the SIMD types: x = n ln 2 + r with |r| <= ln 2 / 2, exp(r) by its degree-6 Taylor
// polynomial (relative error below 2e-7), times 2^n. x is clamped to where float exp is finite
// and normal; the softmax only feeds it values <= 0.
template <typename V>
typename V::Reg expPolynomial(typename V::Reg x) {
  using Reg = typename V::Reg;
  x = V::max(V::min(x, V::set1(88.f)), V::set1(-87.f));
  const Reg n = V::round(V::mul(x, V::set1(1.44269504088896341f)));
  // r = x - n ln 2, with ln 2 in two parts so that r keeps its low bits.
  Reg r = V::fma(n, V::set1(-0.693359375f), x);
  r = V::fma(n, V::set1(2.12194440e-4f), r);
  Reg p = V::set1(1.f / 720);
  for (const float c : {1.f / 120, 1.f / 24, 1.f / 6, 0.5f, 1.f, 1.f}) p = V::fma(p, r, V::set1(c));
  return V::mul(p, V::pow2(n));
}

// The rows a group needs beyond its per-edge arrays: the widest hidden layer of the edge MLPs (the
// kernel's is never stored) for a block of at most kMaxBlockRegisters registers, and of the
// per-point MLPs.
constexpr int kHiddenRows = kLayer1.hidden > kLayer2.hidden ? kLayer1.hidden : kLayer2.hidden;
static_assert(kLayer3.hidden <= kHiddenRows, "layer3's hidden layer fits the hidden rows");
constexpr int kPointHiddenRows = std::max({kLayerG.hidden, kLayerG2.hidden, kLayerG3.hidden});
constexpr int kMaxBlockRegisters = 4;

// A group's per-edge values, register-major: feature f of edge t (one register: that edge of
// every point of the group) at data + (t * features + f) * width. A block of registers is then
// one contiguous run of floats, read by a product from front to back.
struct EdgeArray {
  float* data;
  int features, width;
  float* at(int f, int t) const { return data + (std::size_t(t) * features + f) * width; }
  int step() const { return features * width; }  // floats from one register of a feature to the next
};

// A product's bias: the layer's own, the same in every lane...
template <typename V>
struct SharedBias {
  const float* values;
  typename V::Reg operator()(int o) const { return V::set1(values[o]); }
};

// ... or one per point (the per-point rows of a split first layer joined to its bias), a
// register per output.
template <typename V>
struct LaneBias {
  const float* rows;
  typename V::Reg operator()(int o) const { return V::load(rows + o * V::width); }
};

// Where productBlock puts a block's results: act(acc) into register e of row `row` of out...
template <typename V, int E>
struct StoreRows {
  float* out;
  int step;  // floats from one register of a row to the next
  bool relu;
  void put(int row, int e, typename V::Reg acc) {
    V::store(out + row * V::width + e * step, relu ? V::relu(acc) : acc);
  }
  void finish() {}
};

// ... or as bfloat16 pairs for a product that reads Bf16PairRows: rows 2r and 2r + 1 of register e
// become pair row r (productBlock hands the rows over in order; d.out even).
template <typename V, int E>
struct StorePairRows {
  float* out;
  int step;
  bool relu;
  typename V::Reg even[E];
  void put(int row, int e, typename V::Reg acc) {
    if (relu) acc = V::relu(acc);
    if (row % 2 == 0)
      even[e] = acc;
    else
      V::storePairs(out + row / 2 * V::width + e * step, V::pack(even[e], acc));
  }
  void finish() {}
};

// ... or through a layer with a single output on the fly, the hidden rows never stored: out (one
// row) = bias + sum over the rows o of w[o * w_stride] relu(acc_o), summed in the order of o, as a
// product over stored rows would.
template <typename V, int E>
struct ReluDotRow {
  using Reg = typename V::Reg;
  const float* w;
  int w_stride;
  float* out;
  int step;
  Reg dot[E];
  ReluDotRow(const DenseWeights& layer, float* row, int row_step)
      : w(layer.weight_t.data()), w_stride(layer.stride), out(row), step(row_step) {
    for (int e = 0; e < E; ++e) dot[e] = V::set1(layer.bias[0]);
  }
  void put(int row, int e, Reg acc) { dot[e] = V::fma(V::set1(w[row * w_stride]), V::relu(acc), dot[e]); }
  void finish() {
    for (int e = 0; e < E; ++e) V::store(out + e * step, dot[e]);
  }
};

// How a product reads its input rows and weights: float rows, one FMA per input row and output...
template <typename V>
struct FloatRows {
  using X = typename V::Reg;
  static constexpr int floats_per_row = 1;  // inputs per row of the array a product reads
  static int rows(const DenseWeights& d) { return d.in; }
  static const float* weights(const DenseWeights& d) { return d.weight_t.data(); }
  static X load(const float* p) { return V::load(p); }
  static typename V::Reg multiplyAdd(typename V::Reg acc, X x, const float* w) { return V::fma(V::set1(*w), x, acc); }
};

// ... or rows of bfloat16 pairs (inputs 2r and 2r + 1 in one 32-bit lane, V::pack), one V::dotPairs
// per pair of input rows and output, accumulating in float (DenseWeights::bf16_pairs).
template <typename V>
struct Bf16PairRows {
  using X = typename V::Pairs;
  static constexpr int floats_per_row = 2;
  static int rows(const DenseWeights& d) { return (d.in + 1) / 2; }
  static const float* weights(const DenseWeights& d) { return reinterpret_cast<const float*>(d.bf16_pairs.data()); }
  static X load(const float* p) { return V::loadPairs(p); }
  static typename V::Reg multiplyAdd(typename V::Reg acc, X x, const float* w) { return V::dotPairs(acc, x, w); }
};

// E registers of d.out rows = bias + d^T in, handed to sink, input row c of register e at in + c *
// width + e * step (Rows: of floats or of bfloat16 pairs): RO x E accumulators stay in registers,
// each summing its products in the order of c. sink is taken by value: a local that the stores
// cannot alias keeps its fields in registers.
template <typename V, typename Rows, int E, int RO, typename Bias, typename Sink>
void productBlock(const float* in, int step, const DenseWeights& d, Bias bias, Sink sink) {
  using Reg = typename V::Reg;
  constexpr int W = V::width;
  const float* w = Rows::weights(d);
  const int rows = Rows::rows(d);
  for (int o = 0; o < d.out; o += RO) {
    Reg acc[RO][E];
    for (int j = 0; j < RO; ++j) {
      const Reg b = bias(o + j);
      for (int e = 0; e < E; ++e) acc[j][e] = b;
    }
    for (int c = 0; c < rows; ++c) {
      typename Rows::X x[E];
      for (int e = 0; e < E; ++e) x[e] = Rows::load(in + c * W + e * step);
      for (int j = 0; j < RO; ++j)
        for (int e = 0; e < E; ++e) acc[j][e] = Rows::multiplyAdd(acc[j][e], x[e], w + c * d.stride + o + j);
    }
    for (int j = 0; j < RO; ++j)
      for (int e = 0; e < E; ++e) sink.put(o + j, e, acc[j][e]);
  }
  sink.finish();
}

// productBlock with V::outputs rows in flight where d.out is a multiple of them, else one.
template <typename V, typename Rows, int E, typename Bias, typename Sink>
void product(const float* in, int step, const DenseWeights& d, Bias bias, Sink sink) {
  if (d.out % V::outputs == 0) return productBlock<V, Rows, E, V::outputs>(in, step, d, bias, sink);
  productBlock<V, Rows, E, 1>(in, step, d, bias, sink);
}

// body(std::integral_constant<int, E>, q) for blocks of E registers from q on that cover
// [0, registers): V::lanes at a time, then one block of what is left.
template <int E, typename Body>
void lastBlock(int size, int q, Body& body) {
  if constexpr (E > 0) {
    if (size == E) return body(std::integral_constant<int, E>{}, q);
    lastBlock<E - 1>(size, q, body);
  }
}
template <typename V, typename Body>
void forEachBlock(int registers, Body body) {
  int q = 0;
  for (; q + V::lanes <= registers; q += V::lanes) body(std::integral_constant<int, V::lanes>{}, q);
  lastBlock<V::lanes - 1>(registers - q, q, body);
}

// The rows an edge MLP reads for `in` (registers edges): `in` itself for FloatRows; for
// Bf16PairRows its features packed two by two into `pairs` (an odd last feature with 0).
template <typename V, typename Rows>
EdgeArray productInput(EdgeArray in, float* pairs, int registers) {
  if constexpr (Rows::floats_per_row == 1) {
    return in;
  } else {
    const EdgeArray packed{pairs, (in.features + 1) / 2, V::width};
    const typename V::Reg zero = V::set1(0.f);
    for (int t = 0; t < registers; ++t)
      for (int r = 0; r < packed.features; ++r) {
        const typename V::Reg high = 2 * r + 1 < in.features ? V::load(in.at(2 * r + 1, t)) : zero;
        V::storePairs(packed.at(r, t), V::pack(V::load(in.at(2 * r, t)), high));
      }
    return packed;
  }
}

// An edge MLP: out = second(relu(first(in) + first_bias)), a block of registers at a time, its
// hidden rows in `hidden` (in cache, as Rows) between the two layers. `in` as productInput gives it.
template <typename V, typename Rows, typename FirstBias>
void edgeMlp(EdgeArray in, const DenseWeights& first, FirstBias first_bias, const DenseWeights& second, float* hidden,
             EdgeArray out, int registers) {
  const int hidden_step = first.out / Rows::floats_per_row * V::width;
  forEachBlock<V>(registers, [&](auto block, int q) {
    constexpr int E = decltype(block)::value;
    if constexpr (Rows::floats_per_row == 1)
      product<V, Rows, E>(in.at(0, q), in.step(), first, first_bias, StoreRows<V, E>{hidden, hidden_step, true});
    else
      product<V, Rows, E>(in.at(0, q), in.step(), first, first_bias,
                          StorePairRows<V, E>{hidden, hidden_step, true, {}});
    product<V, Rows, E>(hidden, hidden_step, second, SharedBias<V>{second.bias.data()},
                        StoreRows<V, E>{out.at(0, q), out.step(), false});
  });
}

// The same with a second layer of one output, applied (in float) as the first one's outputs
// come: out has one feature, and the hidden rows are never stored.
template <typename V, typename Rows, typename FirstBias>
void edgeMlpToOne(EdgeArray in, const DenseWeights& first, FirstBias first_bias, const DenseWeights& second,
                  EdgeArray out, int registers) {
  forEachBlock<V>(registers, [&](auto block, int q) {
    constexpr int E = decltype(block)::value;
    product<V, Rows, E>(in.at(0, q), in.step(), first, first_bias, ReluDotRow<V, E>(second, out.at(0, q), out.step()));
  });
}

// A per-point layer: y (d.out rows of one register) = act(bias + d^T x), x: d.in rows. One
// register of inputs leaves the accumulators free for more outputs in flight: enough
// independent sums to hide the FMA's latency.
template <typename V, typename Bias>
void pointLayer(const float* x, const DenseWeights& d, Bias bias, bool relu, float* y) {
  constexpr int many = V::lanes * V::outputs;
  const StoreRows<V, 1> sink{y, 0, relu};
  if (d.out % many == 0) return productBlock<V, FloatRows<V>, 1, many>(x, 0, d, bias, sink);
  if (d.out % 8 == 0) return productBlock<V, FloatRows<V>, 1, 8>(x, 0, d, bias, sink);
  product<V, FloatRows<V>, 1>(x, 0, d, bias, sink);
}

// A per-point MLP: y = second(relu(first(x))), through `hidden`.
template <typename V>
void pointMlp(const float* x, const DenseWeights& first, const DenseWeights& second, float* hidden, float* y) {
  pointLayer<V>(x, first, SharedBias<V>{first.bias.data()}, true, hidden);
  pointLayer<V>(hidden, second, SharedBias<V>{second.bias.data()}, false, y);
}

// How many edges each point of a group has: registers t < full are real in every lane; from full
// on, lane p is real where t < count_p.
template <typename V>
struct GroupEdges {
  typename V::Reg count;  // count_p, as floats
  int registers, full;
  // v where register t of lane p is a real edge, `fill` elsewhere.
  typename V::Reg real(int t, typename V::Reg v, float fill) const {
    return t < full ? v : V::fillWhereBelow(count, static_cast<float>(t) + 0.5f, fill, v);
  }
};

// means (features rows of one register) = each point's mean of the first F features of `in`
// over its real edges: F sums side by side, a register at a time.
template <typename V, int F>
void edgeMeans(EdgeArray in, const GroupEdges<V>& edges, float* means) {
  using Reg = typename V::Reg;
  Reg s[F];
  for (int f = 0; f < F; ++f) s[f] = V::load(in.at(f, 0));
  for (int t = 1; t < edges.registers; ++t)
    for (int f = 0; f < F; ++f) s[f] = V::add(s[f], edges.real(t, V::load(in.at(f, t)), 0.f));
  const Reg inverse_count = V::div(V::set1(1.f), edges.count);
  for (int f = 0; f < F; ++f) V::store(means + f * V::width, V::mul(s[f], inverse_count));
}

// Each point's softmax over its real edges of `logits` (one feature), in place; 0 elsewhere.
template <typename V>
void edgeSoftmax(EdgeArray logits, const GroupEdges<V>& edges) {
  using Reg = typename V::Reg;
  const float minus_infinity = -std::numeric_limits<float>::infinity();
  Reg largest = V::load(logits.at(0, 0));
  for (int t = 1; t < edges.registers; ++t)
    largest = V::max(largest, edges.real(t, V::load(logits.at(0, t)), minus_infinity));
  Reg sum = V::set1(0.f);
  for (int t = 0; t < edges.registers; ++t) {
    const Reg e = edges.real(t, V::exp(V::sub(V::load(logits.at(0, t)), largest)), 0.f);
    V::store(logits.at(0, t), e);
    sum = V::add(sum, e);
  }
  const Reg inverse_sum = V::div(V::set1(1.f), sum);
  for (int t = 0; t < edges.registers; ++t) V::store(logits.at(0, t), V::mul(V::load(logits.at(0, t)), inverse_sum));
}

// W doubles side by side (GCC's vector types: the compiler maps them onto the registers the
// translation unit has), for the plane fits' sums, one fit per lane. They may be wider than the
// unit's registers, so no function returns one by value (GCC would warn of the ABI).
template <int W>
struct DoubleLanes;
template <>
struct DoubleLanes<4> {
  typedef double type __attribute__((vector_size(4 * sizeof(double))));
};
template <>
struct DoubleLanes<8> {
  typedef double type __attribute__((vector_size(8 * sizeof(double))));
};
template <>
struct DoubleLanes<16> {
  typedef double type __attribute__((vector_size(16 * sizeof(double))));
};

// For weightedCovariance (plane_fit.h), lane by lane: the offsets d_e = p_e - p_i in double
// (a lane past its point's edges holds the centre: d = 0)...
template <typename V>
struct LaneOffsets {
  using Doubles = typename DoubleLanes<V::width>::type;
  EdgeArray positions;
  Doubles center[3];
  LaneOffsets(EdgeArray gathered_positions, const float* centers)  // centers: 3 rows of one register
      : positions(gathered_positions) {
    for (int c = 0; c < 3; ++c) center[c] = __builtin_convertvector(V::load(centers + c * V::width), Doubles);
  }
  void operator()(int t, Doubles* d) const {
    for (int c = 0; c < 3; ++c) d[c] = __builtin_convertvector(V::load(positions.at(c, t)), Doubles) - center[c];
  }
};

// ... and the kernel weights (0 past a point's edges).
template <typename V>
struct LaneWeights {
  using Doubles = typename DoubleLanes<V::width>::type;
  EdgeArray weights;
  void operator()(int t, Doubles& w) const { w = __builtin_convertvector(V::load(weights.at(0, t)), Doubles); }
};

// A group's scratch (pointGroupScratchFloats): the per-edge arrays for `registers` edges, the
// hidden rows of one block of `block` registers, and the per-point rows. With base null it only
// counts the floats.
struct GroupScratch {
  EdgeArray positions, features, e1, e2, kernel_in;  // p_j (3), edge features (8), e1, e2 (16), [e3 | R c] (19)
  float* pairs;  // an edge MLP's input as bfloat16 pairs (productInput): the widest, [e3 | R c]
  float *hidden, *centers, *normals, *scales, *means, *point_hidden, *g1, *g2, *g3, *bias, *rotations;
  std::size_t floats = 0;
  GroupScratch(float* base, int registers, int width, int block) {
    const auto take = [&](std::size_t n) {
      float* p = base ? base + floats : nullptr;
      floats += n;
      return p;
    };
    const auto edgeArray = [&](int features) {
      return EdgeArray{take(std::size_t(features) * registers * width), features, width};
    };
    positions = edgeArray(3);
    features = edgeArray(kEdgeFeatures);
    e1 = edgeArray(kEdgeEmbedding);
    e2 = edgeArray(kEdgeEmbedding);
    kernel_in = edgeArray(kEdgeEmbedding + kRotatedEdge);
    pairs = edgeArray((kEdgeEmbedding + kRotatedEdge + 1) / 2).data;
    hidden = take(std::size_t(kHiddenRows) * block * width);
    centers = take(3 * width);
    normals = take(3 * width);
    scales = take(width);
    means = take(kLayerG.in * width);
    point_hidden = take(kPointHiddenRows * width);
    g1 = take(kPointEmbedding * width);
    g2 = take(kPointEmbedding * width);
    g3 = take(kLayerG3.out * width);
    bias = take(kLayer4.hidden * width);
    rotations = take(9 * width);
  }
};

// PointGroupFunction (point_network.h) for V: lane p runs group[p]; the lanes after size repeat
// the first point (finite work whose results are dropped).
template <typename V, typename Rows = FloatRows<V>>
void pointGroupLanes(const PointNetworkWeights& net, const PointNeighborhood* group, int size, float* scratch,
                     PointResult* results) {
  using L = Lanes<V>;
  using Reg = typename V::Reg;
  constexpr int W = V::width;
  static_assert(V::lanes <= kMaxBlockRegisters, "a block's hidden rows fit the scratch");
  const auto member = [&](int p) -> const PointNeighborhood& { return group[p < size ? p : 0]; };
  float counts[W];
  int registers = 0, full = member(0).count;
  for (int p = 0; p < W; ++p) {
    counts[p] = static_cast<float>(member(p).count);
    registers = std::max(registers, member(p).count);
    full = std::min(full, member(p).count);
  }
  const GroupEdges<V> edges{V::load(counts), registers, full};
  const GroupScratch s(scratch, registers, W, V::lanes);

  // 1: edge features. The neighbours' positions (kept for step 10), normals and previous weights
  // are gathered into lanes first, point by point (a lane past its point's edges repeats the
  // centre, with weight 0), then every lane computes its edge's features.
  const EdgeArray gathered{s.e2.data, 4, W};  // n_j, previous weight: e2 is free until step 3
  for (int p = 0; p < W; ++p) {
    const PointNeighborhood& nb = member(p);
    const auto put = [&](int t, std::int64_t j, float weight) {
      for (int c = 0; c < 3; ++c) {
        s.positions.at(c, t)[p] = nb.points[3 * j + c];
        gathered.at(c, t)[p] = nb.normals[3 * j + c];
      }
      gathered.at(3, t)[p] = weight;
    };
    for (int t = 0; t < nb.count; ++t) put(t, nb.neighbors[t], nb.previous_weights[t]);
    for (int t = nb.count; t < registers; ++t) put(t, nb.center, 0.f);
    for (int c = 0; c < 3; ++c) {
      s.centers[c * W + p] = nb.points[3 * nb.center + c];
      s.normals[c * W + p] = nb.normals[3 * nb.center + c];
    }
    s.scales[p] = nb.edge_scale;
  }
  const L pil[3] = {{V::load(s.centers)}, {V::load(s.centers + W)}, {V::load(s.centers + 2 * W)}};
  const L nil[3] = {{V::load(s.normals)}, {V::load(s.normals + W)}, {V::load(s.normals + 2 * W)}};
  const L scale{V::load(s.scales)};
  for (int t = 0; t < registers; ++t) {
    const L pj[3] = {{V::load(s.positions.at(0, t))}, {V::load(s.positions.at(1, t))}, {V::load(s.positions.at(2, t))}};
    const L nj[3] = {{V::load(gathered.at(0, t))}, {V::load(gathered.at(1, t))}, {V::load(gathered.at(2, t))}};
    L features[kEdgeFeatures];
    edgeFeatures(pil, pj, nil, nj, scale, L{V::load(gathered.at(3, t))}, features);
    for (int f = 0; f < kEdgeFeatures; ++f) V::store(s.features.at(f, t), features[f].r);
  }

  // 2: e1 per edge; g1 = layerg([mean e1, n_i]) per point.
  edgeMlp<V, Rows>(productInput<V, Rows>(s.features, s.pairs, registers), net.layer1_first,
                   SharedBias<V>{net.layer1_first.bias.data()}, net.layer1_second, s.hidden, s.e1, registers);
  edgeMeans<V, kEdgeEmbedding>(s.e1, edges, s.means);
  std::copy_n(s.normals, 3 * W, s.means + kEdgeEmbedding * W);
  pointMlp<V>(s.means, net.g1_first, net.g1_second, s.point_hidden, s.g1);

  // 3-4: e2 = layer2([e1, g1]), where g1's rows join the bias; g2 = layerg2(mean e2).
  pointLayer<V>(s.g1, net.layer2_point, SharedBias<V>{net.layer2_edge.bias.data()}, false, s.bias);
  edgeMlp<V, Rows>(productInput<V, Rows>(s.e1, s.pairs, registers), net.layer2_edge, LaneBias<V>{s.bias},
                   net.layer2_second, s.hidden, s.e2, registers);
  edgeMeans<V, kEdgeEmbedding>(s.e2, edges, s.means);
  pointMlp<V>(s.means, net.g2_first, net.g2_second, s.point_hidden, s.g2);

  // 5-6: e3 = layer3([e2, g2]) into the kernel's input; g3 = (quaternion, theta) = layerg3(mean e3).
  pointLayer<V>(s.g2, net.layer3_point, SharedBias<V>{net.layer3_edge.bias.data()}, false, s.bias);
  edgeMlp<V, Rows>(productInput<V, Rows>(s.e2, s.pairs, registers), net.layer3_edge, LaneBias<V>{s.bias},
                   net.layer3_second, s.hidden, s.kernel_in, registers);
  edgeMeans<V, kEdgeEmbedding>(s.kernel_in, edges, s.means);
  pointMlp<V>(s.means, net.g3_first, net.g3_second, s.point_hidden, s.g3);

  // 7: the rotated edge vectors R c join the kernel's input.
  for (int p = 0; p < W; ++p) {
    const float q[4] = {s.g3[p], s.g3[W + p], s.g3[2 * W + p], s.g3[3 * W + p]};
    float r[3][3];
    rotationFromQuaternion(q, r);
    for (int a = 0; a < 9; ++a) s.rotations[a * W + p] = r[a / 3][a % 3];
  }
  Reg r[9];
  for (int a = 0; a < 9; ++a) r[a] = V::load(s.rotations + a * W);
  for (int t = 0; t < registers; ++t)
    for (int a = 0; a < 3; ++a) {
      Reg rc = V::mul(r[3 * a], V::load(s.features.at(0, t)));
      rc = V::fma(r[3 * a + 1], V::load(s.features.at(1, t)), rc);
      rc = V::fma(r[3 * a + 2], V::load(s.features.at(2, t)), rc);
      V::store(s.kernel_in.at(kEdgeEmbedding + a, t), rc);
    }

  // 8: kernel logits from [e3, theta, R c]; theta is per point and joins the bias.
  pointLayer<V>(s.g3 + 4 * W, net.kernel_theta, SharedBias<V>{net.kernel_edge.bias.data()}, false, s.bias);
  const EdgeArray logits{s.e1.data, 1, W};  // e1 is free after step 3
  edgeMlpToOne<V, Rows>(productInput<V, Rows>(s.kernel_in, s.pairs, registers), net.kernel_edge, LaneBias<V>{s.bias},
                        net.kernel_logit, logits, registers);

  // 9: softmax over each neighbourhood.
  edgeSoftmax<V>(logits, edges);

  // 10: the weighted plane fits' sums lane by lane, then each point's plane.
  using Doubles = typename DoubleLanes<W>::type;
  Doubles sum_w;
  SymMat3<Doubles> cov;
  weightedCovariance<Doubles>(LaneOffsets<V>{s.positions, s.centers}, LaneWeights<V>{logits}, registers, sum_w, cov);
  for (int p = 0; p < size; ++p) {
    const PointNeighborhood& nb = group[p];
    PointResult& out = results[p];
    for (int t = 0; t < nb.count; ++t) out.weights[t] = logits.at(0, t)[p];
    const SymMat3<double> point_cov{cov.a00[p], cov.a01[p], cov.a02[p], cov.a11[p], cov.a12[p], cov.a22[p]};
    out.fitted = planeFromWeightedCovariance(sum_w[p], point_cov, out.normal, out.curvature);
  }
}

}  // namespace
}  // namespace detail
}  // namespace pcl_dise
