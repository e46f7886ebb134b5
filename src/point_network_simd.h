#pragma once
// The per-point network of point_network.h, written once over a SIMD type V. V has Reg and width
// (floats per register), lanes (registers of lanes a product keeps in flight), outputs (output
// rows it keeps in flight) and edge_by_edge (LaneRows), and load, store, set1, add, sub, mul,
// div, fma (a * b + c), max, sqrt, relu, zeroWhereBelow, fillTail, sum, maximum and exp (the
// SIMD types build it with expPolynomial from min, round and pow2). Included only by the
// translation units compiled for one instruction set each; everything here has internal
// linkage, so no instance compiled for one instruction set can stand in for another's at link
// time.
#include <cstring>
#include <limits>

#include "pcl_dise/edge_features.h"
#include "pcl_dise/plane_fit.h"
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
  return {V::zeroWhereBelow(norms.r, 1e-8f, V::div(dot.r, norms.r))};
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

// y (d.out values, y_stride floats apart) = act(bias + d^T x) for x (d.in values, x_stride floats
// apart), bias: d.stride values: registers over the outputs, four chains of accumulators to hide
// the FMA latency. For the per-point layers, and for the edges of a neighbourhood that do not
// fill a register.
template <typename V>
void vectorLayer(const float* x, int x_stride, const DenseWeights& d, const float* bias, bool relu, float* y,
                 int y_stride) {
  using Reg = typename V::Reg;
  constexpr int W = V::width;
  const float* w = d.weight_t.data();
  for (int o = 0; o < d.out; o += W) {
    const auto term = [&](int c, Reg acc) {
      return V::fma(V::set1(x[c * x_stride]), V::load(w + c * d.stride + o), acc);
    };
    Reg a0 = V::load(bias + o), a1 = V::set1(0.f), a2 = a1, a3 = a1;
    int c = 0;
    for (; c + 4 <= d.in; c += 4) {
      a0 = term(c, a0);
      a1 = term(c + 1, a1);
      a2 = term(c + 2, a2);
      a3 = term(c + 3, a3);
    }
    for (; c < d.in; ++c) a0 = term(c, a0);
    Reg sum = V::add(V::add(a0, a1), V::add(a2, a3));
    if (relu) sum = V::relu(sum);
    if (y_stride == 1 && o + W <= d.out) {
      V::store(y + o, sum);
    } else {
      float values[W];
      V::store(values, sum);
      for (int j = 0; j < W && o + j < d.out; ++j) y[(o + j) * y_stride] = values[j];
    }
  }
}

// The rows of a neighbourhood's feature-major arrays: `stride` floats each (a multiple of
// V::width), `registers` registers of lanes, `count` of them real edges. The products run lane
// by lane over the first `lane_registers` registers and edge by edge (vectorLayer) over the
// edges after them: a register with a few edges would cost the products as much as a full one.
struct LaneRows {
  int count, registers, stride, lane_registers;
};

// Where productBlock puts one block's results: act(acc) into rows of out, `stride` floats apart...
template <typename V, int E>
struct StoreRows {
  float* out;
  int stride;
  bool relu;
  void put(int row, int e, typename V::Reg acc) {
    V::store(out + row * stride + e * V::width, relu ? V::relu(acc) : acc);
  }
  void finish() {}
};

// ... or through a layer with a single output on the fly, the hidden rows never stored: out
// (one row) = bias + sum over the rows o of w[o * w_stride] relu(acc_o), summed in the order of
// o, as a product over stored rows would.
template <typename V, int E>
struct ReluDotRow {
  using Reg = typename V::Reg;
  const float* w;
  int w_stride;
  float* out;
  Reg dot[E];
  ReluDotRow(const DenseWeights& layer, float* row) : w(layer.weight_t.data()), w_stride(layer.stride), out(row) {
    for (int e = 0; e < E; ++e) dot[e] = V::set1(layer.bias[0]);
  }
  void put(int row, int e, Reg acc) { dot[e] = V::fma(V::set1(w[row * w_stride]), V::relu(acc), dot[e]); }
  void finish() {
    for (int e = 0; e < E; ++e) V::store(out + e * V::width, dot[e]);
  }
};

// Lanes [0, E * width) of N rows = bias + W^T in edge by edge, handed to sink, for in (K rows)
// and w (K x N, row-major, rows w_stride floats apart); N is a multiple of RO. RO x E
// accumulators stay in registers. sink is taken by value: a local that the stores cannot alias
// keeps its fields in registers.
template <typename V, int E, int RO, typename Sink>
void productBlock(const float* in, int K, int stride, const float* w, int w_stride, int N, const float* bias,
                  Sink sink) {
  using Reg = typename V::Reg;
  constexpr int W = V::width;
  for (int o = 0; o < N; o += RO) {
    Reg acc[RO][E];
    for (int j = 0; j < RO; ++j)
      for (int e = 0; e < E; ++e) acc[j][e] = V::set1(bias[o + j]);
    for (int c = 0; c < K; ++c) {
      Reg x[E];
      for (int e = 0; e < E; ++e) x[e] = V::load(in + c * stride + e * W);
      for (int j = 0; j < RO; ++j) {
        const Reg wv = V::set1(w[c * w_stride + o + j]);
        for (int e = 0; e < E; ++e) acc[j][e] = V::fma(wv, x[e], acc[j][e]);
      }
    }
    for (int j = 0; j < RO; ++j)
      for (int e = 0; e < E; ++e) sink.put(o + j, e, acc[j][e]);
  }
  sink.finish();
}

// Where laneProduct puts the lanes' results: rows of act(bias + W^T in)...
template <typename V>
struct LayerRows {
  float* out;
  int stride;
  bool relu;
  template <int E>
  StoreRows<V, E> block(int lane) const {
    return {out + lane, stride, relu};
  }
};

// ... or one row of dot(relu(bias + W^T in)).
template <typename V>
struct ReluDotRows {
  const DenseWeights& dot;
  float* out;
  template <int E>
  ReluDotRow<V, E> block(int lane) const {
    return {dot, out + lane};
  }
};

// The last `remaining` (< V::lanes) registers of lanes, from `lane` on.
template <typename V, int E, int RO, typename Out>
void productTail(int remaining, int lane, const float* in, const DenseWeights& d, const float* bias, const Out& out,
                 int stride) {
  if constexpr (E > 0) {
    if (remaining == E)
      return productBlock<V, E, RO>(in + lane, d.in, stride, d.weight_t.data(), d.stride, d.out, bias,
                                    out.template block<E>(lane));
    productTail<V, E - 1, RO>(remaining, lane, in, d, bias, out, stride);
  }
}

// The layer d over the lane registers of rows: bias + d^T in, handed to out, RO outputs at a time.
template <typename V, int RO, typename Out>
void laneProduct(const float* in, const DenseWeights& d, const float* bias, const Out& out, LaneRows rows) {
  constexpr int E = V::lanes;
  int q = 0;
  for (; q + E <= rows.lane_registers; q += E)
    productBlock<V, E, RO>(in + q * V::width, d.in, rows.stride, d.weight_t.data(), d.stride, d.out, bias,
                           out.template block<E>(q * V::width));
  productTail<V, E - 1, RO>(rows.lane_registers - q, q * V::width, in, d, bias, out, rows.stride);
}

template <typename V, typename Out>
void laneProduct(const float* in, const DenseWeights& d, const float* bias, const Out& out, LaneRows rows) {
  if (d.out % V::outputs == 0) return laneProduct<V, V::outputs>(in, d, bias, out, rows);
  laneProduct<V, 1>(in, d, bias, out, rows);
}

// The edges after the lane registers, one by one, through the MLP second(relu(first(in) +
// first_bias)) from column e of in: the hidden values stay in a short vector and only the MLP's
// outputs are written, to column e of out.
template <typename V>
void edgeByEdge(const float* in, const DenseWeights& first, const float* first_bias, const DenseWeights& second,
                float* out, LaneRows rows) {
  float hidden[kLayer4.hidden], y[kEdgeEmbedding];  // the widest hidden layer and edge MLP output
  for (int e = rows.lane_registers * V::width; e < rows.count; ++e) {
    vectorLayer<V>(in + e, rows.stride, first, first_bias, true, hidden, 1);
    vectorLayer<V>(hidden, 1, second, second.bias.data(), false, y, 1);
    for (int f = 0; f < second.out; ++f) out[f * rows.stride + e] = y[f];
  }
}

// An edge MLP: out = second(relu(first(in) + first_bias)), through `hidden`.
template <typename V>
void edgeMlp(const float* in, const DenseWeights& first, const float* first_bias, const DenseWeights& second,
             float* hidden, float* out, LaneRows rows) {
  laneProduct<V>(in, first, first_bias, LayerRows<V>{hidden, rows.stride, true}, rows);
  laneProduct<V>(hidden, second, second.bias.data(), LayerRows<V>{out, rows.stride, false}, rows);
  edgeByEdge<V>(in, first, first_bias, second, out, rows);
}

// The same with a second layer of one output, applied as the first one's outputs come: out is
// one row, and the hidden rows are never stored.
template <typename V>
void edgeMlpToOne(const float* in, const DenseWeights& first, const float* first_bias, const DenseWeights& second,
                  float* out, LaneRows rows) {
  laneProduct<V>(in, first, first_bias, ReluDotRows<V>{second, out}, rows);
  edgeByEdge<V>(in, first, first_bias, second, out, rows);
}

// The mean of each of `features` rows over the real edges.
template <typename V>
void laneMeans(const float* in, int features, LaneRows rows, float* means) {
  using Reg = typename V::Reg;
  const int last = rows.registers - 1, real_in_last = rows.count - last * V::width;
  const float inv_count = 1.f / static_cast<float>(rows.count);
  for (int f = 0; f < features; ++f) {
    const float* row = in + f * rows.stride;
    Reg s = V::fillTail(V::load(row + last * V::width), real_in_last, 0.f);
    for (int q = 0; q < last; ++q) s = V::add(s, V::load(row + q * V::width));
    means[f] = V::sum(s) * inv_count;
  }
}

// The per-point MLPs.
template <typename V>
void pointMlp(const float* x, const DenseWeights& first, const DenseWeights& second, float* y) {
  float hidden[64];
  vectorLayer<V>(x, 1, first, first.bias.data(), true, hidden, 1);
  vectorLayer<V>(hidden, 1, second, second.bias.data(), false, y, 1);
}

// The per-point part of a split first layer: bias (edge.out) = edge.bias + point^T x.
template <typename V>
void pointBias(const float* x, const DenseWeights& point, const DenseWeights& edge, float* bias) {
  vectorLayer<V>(x, 1, point, edge.bias.data(), false, bias, 1);
}

// Softmax over the real edges of `logits` (one row), written to weights_out (count).
template <typename V>
void softmax(float* logits, LaneRows rows, float* weights_out) {
  using Reg = typename V::Reg;
  constexpr int W = V::width;
  const int last = rows.registers - 1, real_in_last = rows.count - last * W;
  // Padding lanes: -inf, so that they weigh exp(-inf) = 0.
  V::store(logits + last * W,
           V::fillTail(V::load(logits + last * W), real_in_last, -std::numeric_limits<float>::infinity()));
  Reg m = V::load(logits);
  for (int q = 1; q <= last; ++q) m = V::max(m, V::load(logits + q * W));
  const Reg largest = V::set1(V::maximum(m));
  Reg s = V::set1(0.f);
  for (int q = 0; q <= last; ++q) {
    Reg e = V::exp(V::sub(V::load(logits + q * W), largest));
    if (q == last) e = V::fillTail(e, real_in_last, 0.f);
    V::store(logits + q * W, e);
    s = V::add(s, e);
  }
  const Reg inv_sum = V::set1(1.f / V::sum(s));
  for (int q = 0; q <= last; ++q) V::store(logits + q * W, V::mul(V::load(logits + q * W), inv_sum));
  for (int e = 0; e < rows.count; ++e) weights_out[e] = logits[e];
}

// The scratch rows of pointNetworkLanes: edge features, the edge MLPs' hidden layer (the kernel's
// is never stored), e1, e2, the kernel's input [e3 | R c] and the neighbour positions.
constexpr int kHiddenRows = kLayer1.hidden > kLayer2.hidden ? kLayer1.hidden : kLayer2.hidden;
static_assert(kLayer3.hidden <= kHiddenRows, "layer3's hidden layer fits the hidden rows");
constexpr int kKernelInputRows = kEdgeEmbedding + kRotatedEdge;
constexpr int kScratchRows = kEdgeFeatures + kHiddenRows + 2 * kEdgeEmbedding + kKernelInputRows + 3;

// The neighbour offsets d_e = p_e - center in double for fitPlaneToOffsets (plane_fit.h),
// converted for every edge at once (the compiler vectorises the loop) before the fit's two passes
// read them: 3 rows of `stride` doubles in float scratch rows (memcpy: no type punning).
struct DoubleOffsets {
  float* rows;
  int stride;
  DoubleOffsets(const float* positions, int stride, int count, const float* center, float* scratch_rows)
      : rows(scratch_rows), stride(stride) {
    for (int c = 0; c < 3; ++c)
      for (int e = 0; e < count; ++e) {
        const double d = double(positions[c * stride + e]) - double(center[c]);
        std::memcpy(rows + 2 * (c * stride + e), &d, sizeof d);
      }
  }
  void operator()(int e, double* out) const {
    for (int c = 0; c < 3; ++c) std::memcpy(out + c, rows + 2 * (c * stride + e), sizeof(double));
  }
};
static_assert(kHiddenRows >= 6, "the hidden rows hold the offsets in double at the end");

// PointNetworkFunction (point_network.h) for V.
template <typename V>
bool pointNetworkLanes(const PointNetworkWeights& net, const PointNeighborhood& nb, float* scratch, float* weights_out,
                       float* normal, float* curvature) {
  using L = Lanes<V>;
  constexpr int W = V::width;
  const int registers = (nb.count + W - 1) / W, last_edges = nb.count % W;
  const LaneRows rows{nb.count, registers, registers * W,
                      last_edges > 0 && last_edges <= V::edge_by_edge ? registers - 1 : registers};
  const int P = rows.stride;
  float* edge = scratch;                                // 8 rows: the edge features
  float* hidden = edge + kEdgeFeatures * P;             // 32 rows: the hidden layers; first the neighbours' state
  float* e1 = hidden + kHiddenRows * P;                 // 16 rows; at the end the logits
  float* e2 = e1 + kEdgeEmbedding * P;                  // 16 rows
  float* kernel_in = e2 + kEdgeEmbedding * P;           // 19 rows: [e3 | R c]
  float* positions = kernel_in + kKernelInputRows * P;  // 3 rows: p_j

  // 1: edge features. The neighbours' positions, normals and weights go into rows first (the
  // padding lanes repeat the centre), then every lane computes its edge's features.
  const float* pi = nb.points + 3 * nb.center;
  const float* ni = nb.normals + 3 * nb.center;
  float* gathered = hidden;  // 4 rows: n_j, previous weight
  for (int e = 0; e < P; ++e) {
    const std::int64_t j = e < nb.count ? nb.neighbors[e] : nb.center;
    for (int c = 0; c < 3; ++c) {
      positions[c * P + e] = nb.points[3 * j + c];
      gathered[c * P + e] = nb.normals[3 * j + c];
    }
    gathered[3 * P + e] = e < nb.count ? nb.previous_weights[e] : 0.f;
  }
  const L pil[3] = {{V::set1(pi[0])}, {V::set1(pi[1])}, {V::set1(pi[2])}};
  const L nil[3] = {{V::set1(ni[0])}, {V::set1(ni[1])}, {V::set1(ni[2])}};
  const L scale{V::set1(nb.edge_scale)};
  for (int lane = 0; lane < P; lane += W) {
    const L pj[3] = {{V::load(positions + lane)}, {V::load(positions + P + lane)}, {V::load(positions + 2 * P + lane)}};
    const L nj[3] = {{V::load(gathered + lane)}, {V::load(gathered + P + lane)}, {V::load(gathered + 2 * P + lane)}};
    L features[8];
    edgeFeatures(pil, pj, nil, nj, scale, L{V::load(gathered + 3 * P + lane)}, features);
    for (int f = 0; f < 8; ++f) V::store(edge + f * P + lane, features[f].r);
  }

  // 2: e1 per edge; g1 = layerg([mean e1, n_i]) per point.
  edgeMlp<V>(edge, net.layer1_first, net.layer1_first.bias.data(), net.layer1_second, hidden, e1, rows);
  float g_in[19], g1[8], bias[64];
  laneMeans<V>(e1, 16, rows, g_in);
  for (int c = 0; c < 3; ++c) g_in[16 + c] = ni[c];
  pointMlp<V>(g_in, net.g1_first, net.g1_second, g1);

  // 3-4: e2 = layer2([e1, g1]), where g1's rows join the bias; g2 = layerg2(mean e2).
  pointBias<V>(g1, net.layer2_point, net.layer2_edge, bias);
  edgeMlp<V>(e1, net.layer2_edge, bias, net.layer2_second, hidden, e2, rows);
  float means[16], g2[8], g3[12];
  laneMeans<V>(e2, 16, rows, means);
  pointMlp<V>(means, net.g2_first, net.g2_second, g2);

  // 5-6: e3 = layer3([e2, g2]) into the kernel's input; g3 = (quaternion, theta) = layerg3(mean e3).
  pointBias<V>(g2, net.layer3_point, net.layer3_edge, bias);
  edgeMlp<V>(e2, net.layer3_edge, bias, net.layer3_second, hidden, kernel_in, rows);
  laneMeans<V>(kernel_in, 16, rows, means);
  pointMlp<V>(means, net.g3_first, net.g3_second, g3);

  // 7: the rotated edge vectors R c join the kernel's input.
  float r[3][3];
  rotationFromQuaternion(g3, r);
  for (int lane = 0; lane < P; lane += W)
    for (int a = 0; a < 3; ++a) {
      typename V::Reg rc = V::mul(V::set1(r[a][0]), V::load(edge + lane));
      rc = V::fma(V::set1(r[a][1]), V::load(edge + P + lane), rc);
      rc = V::fma(V::set1(r[a][2]), V::load(edge + 2 * P + lane), rc);
      V::store(kernel_in + (16 + a) * P + lane, rc);
    }

  // 8: kernel logits from [e3, theta, R c]; theta is per point and joins the bias.
  pointBias<V>(g3 + 4, net.kernel_theta, net.kernel_edge, bias);
  float* logits = e1;
  edgeMlpToOne<V>(kernel_in, net.kernel_edge, bias, net.kernel_logit, logits, rows);

  // 9: softmax over the neighbourhood.
  softmax<V>(logits, rows, weights_out);

  // 10: weighted plane fit, the offsets in double in the hidden rows, free by now.
  const DoubleOffsets offsets(positions, P, nb.count, pi, hidden);
  return fitPlaneToOffsets<double>(offsets, weights_out, nb.count, normal, curvature);
}

}  // namespace
}  // namespace detail
}  // namespace pcl_dise
