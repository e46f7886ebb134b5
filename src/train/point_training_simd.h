#pragma once
// The training pass of point_training.h, written once over the SIMD types of
// point_network_simd.h. Edge-major: every per-edge array holds a row per edge, so a layer's
// forward product (y = x W^T), its input gradient (dx = dy W) and its weight gradient
// (dW^T += x^T dy) are all one kernel, C = A B with A read element by element (broadcast) and
// B and C a row of registers at a time. Included only by the translation units compiled for
// one instruction set each (internal linkage, as point_network_simd.h).
#include <algorithm>
#include <cmath>
#include <limits>

#include "pcl_dise/core/edge_features.h"
#include "pcl_dise/core/network_shape.h"
#include "pcl_dise/core/plane_fit.h"
#include "point_network_simd.h"
#include "point_training.h"

namespace pcl_dise {
namespace detail {
namespace {

// y (d.out values, y_stride floats apart) = act(bias + d^T x) for x (d.in values, x_stride floats
// apart), bias: d.stride values: registers over the outputs, four chains of accumulators to hide
// the FMA latency. For the per-point layers.
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

// The per-point part of a split first layer: bias (edge.out) = edge.bias + point^T x.
template <typename V>
void pointBias(const float* x, const DenseWeights& point, const DenseWeights& edge, float* bias) {
  vectorLayer<V>(x, 1, point, edge.bias.data(), false, bias, 1);
}

// Softmax over the `count` entries of `logits` (one row, padded to whole registers), written to
// weights_out (count).
template <typename V>
void softmax(float* logits, int count, float* weights_out) {
  using Reg = typename V::Reg;
  constexpr int W = V::width;
  const int last = (count - 1) / W, real_in_last = count - last * W;
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
  for (int e = 0; e < count; ++e) weights_out[e] = logits[e];
}

// Registers of C a kernel tile keeps: the accumulators of the inference products.
template <typename V>
constexpr int kTileAccumulators = V::lanes* V::outputs;
// Widest tile in registers: four where 32 registers leave room for them, else two.
template <typename V>
constexpr int kTileColumns = kTileAccumulators<V> >= 16 ? 4 : 2;

// Where a product's A comes from: A(r, t) = a[r * row + t * column].
struct Operand {
  const float* a;
  int row, column;
  Operand shifted(int rows) const { return {a + rows * row, row, column}; }
};

// How C starts: from zero, from a bias row (one value per column), or from C itself.
struct Start {
  const float* bias = nullptr;
  bool accumulate = false;
};

// C rows [0, MR) x registers [0, NR) = start + sum_t A(r, t) B(t, :), ReLU optionally.
template <typename V, int MR, int NR>
void productTile(int k, Operand a, const float* b, int b_stride, float* c, int c_stride, Start start, bool relu) {
  using Reg = typename V::Reg;
  constexpr int W = V::width;
  Reg acc[MR][NR];
  for (int r = 0; r < MR; ++r)
    for (int q = 0; q < NR; ++q)
      acc[r][q] = start.accumulate ? V::load(c + r * c_stride + q * W)
                                   : (start.bias ? V::load(start.bias + q * W) : V::set1(0.f));
  for (int t = 0; t < k; ++t) {
    Reg bv[NR];
    for (int q = 0; q < NR; ++q) bv[q] = V::load(b + t * b_stride + q * W);
    for (int r = 0; r < MR; ++r) {
      const Reg av = V::set1(a.a[r * a.row + t * a.column]);
      for (int q = 0; q < NR; ++q) acc[r][q] = V::fma(av, bv[q], acc[r][q]);
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int q = 0; q < NR; ++q) V::store(c + r * c_stride + q * W, relu ? V::relu(acc[r][q]) : acc[r][q]);
}

// The last `rows` (< MR) rows.
template <typename V, int MR, int NR>
void productRowTail(int rows, int k, Operand a, const float* b, int b_stride, float* c, int c_stride, Start start,
                    bool relu) {
  if constexpr (MR > 0) {
    if (rows == MR) return productTile<V, MR, NR>(k, a, b, b_stride, c, c_stride, start, relu);
    productRowTail<V, MR - 1, NR>(rows, k, a, b, b_stride, c, c_stride, start, relu);
  }
}

template <typename V, int NR>
void productColumns(int m, int k, Operand a, const float* b, int b_stride, float* c, int c_stride, Start start,
                    bool relu) {
  constexpr int MR = kTileAccumulators<V> / NR;
  int r = 0;
  for (; r + MR <= m; r += MR)
    productTile<V, MR, NR>(k, a.shifted(r), b, b_stride, c + r * c_stride, c_stride, start, relu);
  productRowTail<V, MR - 1, NR>(m - r, k, a.shifted(r), b, b_stride, c + r * c_stride, c_stride, start, relu);
}

// C (m x n, rows c_stride apart) = act(start + A B), A m x k, B k x n (rows b_stride apart); n
// is a multiple of V::width.
template <typename V>
void product(int m, int n, int k, Operand a, const float* b, int b_stride, float* c, int c_stride, Start start,
             bool relu = false) {
  constexpr int W = V::width;
  for (int column = 0; column < n;) {
    const int registers = std::min((n - column) / W, kTileColumns<V>);
    const Start shifted{start.bias ? start.bias + column : nullptr, start.accumulate};
    switch (registers) {
      case 4: productColumns<V, 4>(m, k, a, b + column, b_stride, c + column, c_stride, shifted, relu); break;
      case 3: productColumns<V, 3>(m, k, a, b + column, b_stride, c + column, c_stride, shifted, relu); break;
      case 2: productColumns<V, 2>(m, k, a, b + column, b_stride, c + column, c_stride, shifted, relu); break;
      default: productColumns<V, 1>(m, k, a, b + column, b_stride, c + column, c_stride, shifted, relu); break;
    }
    column += registers * W;
  }
}

// Edge rows (edges x d.out, rows `stride` apart) = act(bias + x W^T) for x (edges x d.in).
template <typename V>
void forwardLayer(int edges, const float* x, int x_stride, const DenseWeights& d, const float* bias, bool relu,
                  float* y, int y_stride) {
  product<V>(edges, d.stride, d.in, {x, x_stride, 1}, d.weight_t.data(), d.stride, y, y_stride, {bias, false}, relu);
}

// Input gradient dx (edges x t.stride) = dy W, with t the layer transposed (rows: the layer's outputs).
template <typename V>
void inputGradient(int edges, const float* dy, int dy_stride, const DenseWeights& t, float* dx, int dx_stride) {
  product<V>(edges, t.stride, t.in, {dy, dy_stride, 1}, t.weight_t.data(), t.stride, dx, dx_stride, {});
}

// Weight gradient of a block of input columns: g.weight_t (rows x g.stride) += x^T dy over the edges.
template <typename V>
void addWeightGradient(int edges, const float* x, int x_stride, int rows, const float* dy, int dy_stride,
                       DenseWeights& g) {
  product<V>(rows, g.stride, edges, {x, 1, x_stride}, dy, dy_stride, g.weight_t.data(), g.stride, {nullptr, true});
}

// sums (n) (+)= the sum of the edge rows x (edges x n, rows `stride` apart); n a multiple of V::width.
template <typename V>
void columnSums(int edges, const float* x, int stride, int n, float* sums, bool accumulate) {
  for (int column = 0; column < n; column += V::width) {
    typename V::Reg s = accumulate ? V::load(sums + column) : V::set1(0.f);
    for (int e = 0; e < edges; ++e) s = V::add(s, V::load(x + e * stride + column));
    V::store(sums + column, s);
  }
}

// dx rows where the ReLU output h is 0 become 0 (ReLU's gradient), n a multiple of V::width.
template <typename V>
void reluGradient(int edges, const float* h, int h_stride, float* dx, int dx_stride, int n) {
  const float positive = std::numeric_limits<float>::denorm_min();
  for (int e = 0; e < edges; ++e)
    for (int column = 0; column < n; column += V::width)
      V::store(dx + e * dx_stride + column, V::fillWhereBelow(V::load(h + e * h_stride + column), positive, 0.f,
                                                              V::load(dx + e * dx_stride + column)));
}

// Per-point MLP y = second(relu(first(x))), keeping the hidden layer.
template <typename V>
void pointMlpForward(const float* x, const DenseWeights& first, const DenseWeights& second, float* hidden, float* y) {
  vectorLayer<V>(x, 1, first, first.bias.data(), true, hidden, 1);
  vectorLayer<V>(hidden, 1, second, second.bias.data(), false, y, 1);
}

// y (d.in) = W^T-layout d times dy (d.out): the input gradient of a per-point layer.
void pointInputGradient(const DenseWeights& d, const float* dy, float* dx) {
  for (int c = 0; c < d.in; ++c) {
    float s = 0;
    for (int o = 0; o < d.out; ++o) s += d.weight_t[c * d.stride + o] * dy[o];
    dx[c] = s;
  }
}

// g.weight_t += x dy^T (rows of x: the layer's inputs), g.bias += dy where it has one.
void addOuterProduct(const float* x, int rows, const float* dy, int n, DenseWeights& g, bool with_bias) {
  for (int c = 0; c < rows; ++c)
    for (int o = 0; o < n; ++o) g.weight_t[c * g.stride + o] += x[c] * dy[o];
  if (with_bias)
    for (int o = 0; o < n; ++o) g.bias[o] += dy[o];
}

// Backward through a per-point MLP: gradients of both layers, and dx (first.in) where wanted.
void pointMlpBackward(const DenseWeights& first, const DenseWeights& second, const float* x, const float* hidden,
                      const float* dy, DenseWeights& g_first, DenseWeights& g_second, float* dx) {
  float dh[64];
  addOuterProduct(hidden, second.in, dy, second.out, g_second, true);
  pointInputGradient(second, dy, dh);
  for (int c = 0; c < second.in; ++c)
    if (!(hidden[c] > 0.f)) dh[c] = 0.f;
  addOuterProduct(x, first.in, dh, first.out, g_first, true);
  if (dx) pointInputGradient(first, dh, dx);
}

// d loss / d q (4) from d loss / d R (3 x 3) for R = rotationFromQuaternion(q): through the
// rotation's entries and the normalisation x = q / (|q| + 1e-8).
void quaternionGradient(const float* q, const float (*dr)[3], float* dq) {
  const float length = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  const float norm = length + 1e-8f;
  const float x0 = q[0] / norm, x1 = q[1] / norm, x2 = q[2] / norm, x3 = q[3] / norm;
  float dx[4];
  dx[0] = 2 * (-x3 * dr[0][1] + x2 * dr[0][2] + x3 * dr[1][0] - x1 * dr[1][2] - x2 * dr[2][0] + x1 * dr[2][1]);
  dx[1] = 2 * (x2 * dr[0][1] + x3 * dr[0][2] + x2 * dr[1][0] - 2 * x1 * dr[1][1] - x0 * dr[1][2] + x3 * dr[2][0] +
               x0 * dr[2][1] - 2 * x1 * dr[2][2]);
  dx[2] = 2 * (-2 * x2 * dr[0][0] + x1 * dr[0][1] + x0 * dr[0][2] + x1 * dr[1][0] + x3 * dr[1][2] - x0 * dr[2][0] +
               x3 * dr[2][1] - 2 * x2 * dr[2][2]);
  dx[3] = 2 * (-2 * x3 * dr[0][0] - x0 * dr[0][1] + x1 * dr[0][2] + x0 * dr[1][0] - 2 * x3 * dr[1][1] + x2 * dr[1][2] +
               x1 * dr[2][0] + x2 * dr[2][1]);
  // x = q / (|q| + eps): dq = dx / norm - q (q . dx) / (|q| norm^2); the second term is 0 at q = 0.
  const float q_dot_dx = q[0] * dx[0] + q[1] * dx[1] + q[2] * dx[2] + q[3] * dx[3];
  const float radial = length > 0.f ? q_dot_dx / (length * norm * norm) : 0.f;
  for (int i = 0; i < 4; ++i) dq[i] = dx[i] / norm - q[i] * radial;
}

// The weighted plane fit of one point (docs/algorithm.md, step 10) with what its backward pass
// needs: d_e - m per edge, the eigenpairs, the normal's eigenvector and sign.
struct PlaneFitTape {
  Eigen3Result<double> eigen;
  int smallest = 0;
  double sign = 1;
};

// Fit over d_e = p_e - p_i with weights w; centred[e] = d_e - m (3 per edge). False where the
// fit degenerates (fitPlaneToOffsets' conditions).
bool fitPlaneKeeping(const PointNeighborhood& nb, const float* w, double* centred, PlaneFitTape& tape, float* normal) {
  const float* pi = nb.points + 3 * nb.center;
  double sum_w = 0, mean[3] = {0, 0, 0};
  for (int e = 0; e < nb.count; ++e) {
    const float* pj = nb.points + 3 * static_cast<std::int64_t>(nb.neighbors[e]);
    for (int c = 0; c < 3; ++c) {
      centred[3 * e + c] = double(pj[c]) - double(pi[c]);
      mean[c] += double(w[e]) * centred[3 * e + c];
    }
    sum_w += w[e];
  }
  if (!(sum_w > 0)) return false;
  for (int c = 0; c < 3; ++c) mean[c] /= sum_w;
  SymMat3<double> cov{0, 0, 0, 0, 0, 0};
  for (int e = 0; e < nb.count; ++e) {
    double* d = centred + 3 * e;
    for (int c = 0; c < 3; ++c) d[c] -= mean[c];
    addWeightedOuterProduct(cov, double(w[e]), d);
  }
  if (!fitHasPlane(sum_w, cov)) return false;
  tape.eigen = eigenSymmetric3(cov);
  tape.smallest = smallestMagnitudeIndex(tape.eigen);
  double n[3] = {tape.eigen.vectors[tape.smallest][0], tape.eigen.vectors[tape.smallest][1],
                 tape.eigen.vectors[tape.smallest][2]};
  tape.sign = signRuleFactor(n);
  for (int c = 0; c < 3; ++c) normal[c] = static_cast<float>(tape.sign * n[c]);
  return true;
}

// d loss / d w_e (count) of the fit from d loss / d n (3): through the eigenvector (Giles:
// dC = U (F o (U^T dU)) U^T, F_ij = 1 / (lambda_j - lambda_i), 0 for (near-)equal eigenvalues,
// symmetrised, non-finite entries zeroed) and the covariance, where dC/dw_e contracted with G is
// (d_e - m)^T G (d_e - m) (the mean's own gradient cancels: sum_e w_e (d_e - m) = 0).
void planeFitGradient(const PlaneFitTape& tape, const double* dn, const double* centred, int count, float* dw) {
  const auto& u = tape.eigen.vectors;
  const auto& lambda = tape.eigen.values;
  const int m = tape.smallest;
  const double du[3] = {tape.sign * dn[0], tape.sign * dn[1], tape.sign * dn[2]};
  double scale = std::max({std::fabs(lambda[0]), std::fabs(lambda[1]), std::fabs(lambda[2])});
  scale = std::max(scale, 1e-30);
  double g[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (int i = 0; i < 3; ++i) {
    const double gap = lambda[m] - lambda[i];
    if (i == m || !(std::fabs(gap) > 1e-6 * scale)) continue;
    const double f = (u[i][0] * du[0] + u[i][1] * du[1] + u[i][2] * du[2]) / gap;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) g[r][c] += f * u[i][r] * u[m][c];
  }
  double gs[3][3];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      gs[r][c] = 0.5 * (g[r][c] + g[c][r]);
      if (!std::isfinite(gs[r][c])) gs[r][c] = 0;
    }
  for (int e = 0; e < count; ++e) {
    const double* d = centred + 3 * e;
    double s = 0;
    for (int r = 0; r < 3; ++r) s += d[r] * (gs[r][0] * d[0] + gs[r][1] * d[1] + gs[r][2] * d[2]);
    dw[e] = static_cast<float>(s);
  }
}

// The chord min(|n - t|, |n + t|), and the gradient (3) of `kind`'s loss with respect to n.
double normalLoss(train::NormalLoss kind, const float* n, const float* t, double* dn) {
  double minus[3], plus[3];
  for (int c = 0; c < 3; ++c) {
    minus[c] = double(n[c]) - t[c];
    plus[c] = double(n[c]) + t[c];
  }
  const double a = std::sqrt(minus[0] * minus[0] + minus[1] * minus[1] + minus[2] * minus[2]);
  const double b = std::sqrt(plus[0] * plus[0] + plus[1] * plus[1] + plus[2] * plus[2]);
  const double* chosen = a <= b ? minus : plus;
  const double length = std::min(a, b);
  switch (kind) {
    case train::NormalLoss::Chord:
      for (int c = 0; c < 3; ++c) dn[c] = length > 0 ? chosen[c] / length : 0.0;
      break;
    case train::NormalLoss::SquaredChord:
      for (int c = 0; c < 3; ++c) dn[c] = 2.0 * chosen[c];
      break;
    case train::NormalLoss::Sine: {
      // d |n x t| / dn = t x (n x t) / |n x t|.
      const double nt[3] = {double(n[1]) * t[2] - double(n[2]) * t[1], double(n[2]) * t[0] - double(n[0]) * t[2],
                            double(n[0]) * t[1] - double(n[1]) * t[0]};
      const double sine = std::sqrt(nt[0] * nt[0] + nt[1] * nt[1] + nt[2] * nt[2]);
      const double g[3] = {t[1] * nt[2] - t[2] * nt[1], t[2] * nt[0] - t[0] * nt[2], t[0] * nt[1] - t[1] * nt[0]};
      for (int c = 0; c < 3; ++c) dn[c] = sine > 0 ? g[c] / sine : 0.0;
      break;
    }
  }
  return length;
}

// Edge-major rows: `stride` floats per edge from `data`.
template <typename T>
struct EdgeRows {
  T* data;
  int stride;
};

// A per-edge MLP whose first layer reads [x (edge rows) | g (per point)], as its backward pass
// reads it (second and edge transposed, point as stored) and where its gradients go.
struct MixedEdgeMlp {
  const DenseWeights& second_t;
  const DenseWeights& edge_t;
  const DenseWeights& point;
  DenseWeights& g_second;
  DenseWeights& g_edge;
  DenseWeights& g_point;
};

// Backward through a per-edge MLP whose first layer reads [x (edge rows) | g (per point)]:
// out = second(relu(edge^T x + point^T g + b)). From d out (edges x second's outputs), adds the
// gradients of second, edge and point (with the bias on edge), and writes d x (edges x edge.in)
// and d g (point.in). dh: scratch for the hidden layer's gradient (edges x hidden).
template <typename V>
void mixedEdgeMlpBackward(int edges, EdgeRows<const float> x, const float* hidden, const float* g,
                          EdgeRows<const float> dout, const MixedEdgeMlp& mlp, float* dh, EdgeRows<float> dx,
                          float* dg) {
  const int h = mlp.second_t.stride;
  addWeightGradient<V>(edges, hidden, h, h, dout.data, dout.stride, mlp.g_second);
  columnSums<V>(edges, dout.data, dout.stride, mlp.g_second.stride, mlp.g_second.bias.data(), true);
  inputGradient<V>(edges, dout.data, dout.stride, mlp.second_t, dh, h);
  reluGradient<V>(edges, hidden, h, dh, h, h);
  float sums[64];
  columnSums<V>(edges, dh, h, h, sums, false);
  addWeightGradient<V>(edges, x.data, x.stride, mlp.g_edge.in, dh, h, mlp.g_edge);
  for (int o = 0; o < h; ++o) mlp.g_edge.bias[o] += sums[o];
  addOuterProduct(g, mlp.point.in, sums, h, mlp.g_point, false);
  inputGradient<V>(edges, dh, h, mlp.edge_t, dx.data, dx.stride);
  pointInputGradient(mlp.point, sums, dg);
}

// rows[e][c] += values[c] * scale for the first 16 columns of every edge row.
template <typename V>
void addToRows(int edges, float* rows, int stride, const float* values, float scale) {
  for (int c = 0; c < 16; c += V::width) {
    const typename V::Reg add = V::mul(V::load(values + c), V::set1(scale));
    for (int e = 0; e < edges; ++e) V::store(rows + e * stride + c, V::add(V::load(rows + e * stride + c), add));
  }
}

// Widths of the edge-major arrays (floats per edge row), tied to network_shape.h: the training pass
// is written for this shape, and a change there must fail here, not train a different network.
constexpr int kFeatures = 8, kHidden = 32, kEdgeOut = 16, kKernelIn = 32, kKernelHidden = 64;
static_assert(kFeatures == kLayer1.in && kHidden == kLayer1.hidden && kEdgeOut == kLayer1.out,
              "the training pass's edge layers follow network_shape.h's layer1");
static_assert(kLayer2.hidden == kHidden && kLayer3.hidden == kHidden && kLayer2.out == kEdgeOut &&
                  kLayer3.out == kEdgeOut && kLayer2.in == kEdgeOut + kPointEmbedding,
              "layer2 and layer3 as the training pass lays them out");
static_assert(kLayerG.hidden == kHidden && kLayerG2.hidden == kHidden && kLayerG3.hidden == kHidden,
              "the per-point layers' hidden width");
static_assert(kKernelHidden == kLayer4.hidden && kLayer4.in <= kKernelIn && kLayer4.out == 1,
              "layer4: [e3 | theta | R c] padded to kKernelIn columns, one logit");
constexpr int kEdgeRowFloats = kFeatures + 3 * kHidden + 2 * kEdgeOut + kKernelIn + kKernelHidden  // forward
                               + kKernelHidden + kKernelIn + kEdgeOut                              // gradients
                               + 6;                                                                // 3 doubles d_e - m

// Scratch of pointTrainingEdges: the edge rows, then logits, softmax weights and their gradient.
inline std::size_t trainingScratchFloats(int count) {
  const std::size_t padded = (count + kWidestRegister - 1) / kWidestRegister * kWidestRegister;
  return std::size_t{kEdgeRowFloats} * count + 3 * padded;
}

// Forward through a per-edge MLP whose first layer reads [x (edge rows) | g (per point)]:
// hidden = relu(edge^T x + point^T g + b) (edges x kHidden), out = second(hidden).
template <typename V>
void mixedEdgeMlpForward(int edges, const float* x, int x_stride, const float* g, const DenseWeights& edge,
                         const DenseWeights& point, const DenseWeights& second, float* hidden, float* out,
                         int out_stride) {
  float bias[64];
  pointBias<V>(g, point, edge, bias);
  forwardLayer<V>(edges, x, x_stride, edge, bias, true, hidden, kHidden);
  forwardLayer<V>(edges, hidden, kHidden, second, second.bias.data(), false, out, out_stride);
}

// mean (16) = the mean of the first 16 columns of the edge rows; out = second(relu(first(mean))).
template <typename V>
void meanAndPointMlp(int edges, const float* rows, int stride, const DenseWeights& first, const DenseWeights& second,
                     float* mean, float* hidden, float* out) {
  columnSums<V>(edges, rows, stride, kEdgeOut, mean, false);
  const float inv_k = 1.f / static_cast<float>(edges);
  for (int c = 0; c < kEdgeOut; ++c) mean[c] *= inv_k;
  pointMlpForward<V>(mean, first, second, hidden, out);
}

// PointTrainingFunction (point_training.h) for V.
template <typename V>
bool pointTrainingEdges(const PointTrainingWeights& tw, const TrainingNeighborhood& tn, float* scratch,
                        PointNetworkWeights& grad, float* weights_out, float* normal, float* loss) {
  const PointNetworkWeights& net = tw.forward;
  const PointNeighborhood& nb = tn.network;
  const int K = nb.count;
  const int padded = (K + kWidestRegister - 1) / kWidestRegister * kWidestRegister;
  float* feat = scratch;                                            // K x 8: edge features
  float* h1 = feat + kFeatures * K;                                 // K x 32
  float* e1 = h1 + kHidden * K;                                     // K x 16
  float* h2 = e1 + kEdgeOut * K;                                    // K x 32
  float* e2 = h2 + kHidden * K;                                     // K x 16
  float* h3 = e2 + kEdgeOut * K;                                    // K x 32
  float* kin = h3 + kHidden * K;                                    // K x 32: [e3 (16) | R c (3) | unused]
  float* h4 = kin + kKernelIn * K;                                  // K x 64
  float* dh = h4 + kKernelHidden * K;                               // K x 64: a hidden layer's gradient
  float* dx = dh + kKernelHidden * K;                               // K x 32: d kin, then d e2 (rows of 16)
  float* dx2 = dx + kKernelIn * K;                                  // K x 16: d e1
  double* centred = reinterpret_cast<double*>(dx2 + kEdgeOut * K);  // K x 3 doubles
  float* logits = reinterpret_cast<float*>(centred + 3 * K);        // padded
  float* softmax_w = logits + padded;                               // padded: weights before dropout
  float* dw = softmax_w + padded;                                   // K

  // 1: edge features.
  const float* pi = nb.points + 3 * nb.center;
  const float* ni = nb.normals + 3 * nb.center;
  for (int e = 0; e < K; ++e) {
    const std::int64_t j = nb.neighbors[e];
    edgeFeatures(pi, nb.points + 3 * j, ni, nb.normals + 3 * j, nb.edge_scale, nb.previous_weights[e],
                 feat + kFeatures * e);
  }

  // 2-6: the edge MLPs and the per-point MLPs on their means, every activation kept.
  forwardLayer<V>(K, feat, kFeatures, net.layer1_first, net.layer1_first.bias.data(), true, h1, kHidden);
  forwardLayer<V>(K, h1, kHidden, net.layer1_second, net.layer1_second.bias.data(), false, e1, kEdgeOut);
  const float inv_k = 1.f / static_cast<float>(K);
  float g1_in[32], g1_hidden[64], g1[16], bias[64];
  for (int c = 0; c < 3; ++c) g1_in[kEdgeOut + c] = ni[c];  // g1 reads [mean e1, n_i]
  meanAndPointMlp<V>(K, e1, kEdgeOut, net.g1_first, net.g1_second, g1_in, g1_hidden, g1);
  mixedEdgeMlpForward<V>(K, e1, kEdgeOut, g1, net.layer2_edge, net.layer2_point, net.layer2_second, h2, e2, kEdgeOut);
  float m2[16], g2_hidden[64], g2[16];
  meanAndPointMlp<V>(K, e2, kEdgeOut, net.g2_first, net.g2_second, m2, g2_hidden, g2);
  mixedEdgeMlpForward<V>(K, e2, kEdgeOut, g2, net.layer3_edge, net.layer3_point, net.layer3_second, h3, kin, kKernelIn);
  float m3[16], g3_hidden[64], g3[16];
  meanAndPointMlp<V>(K, kin, kKernelIn, net.g3_first, net.g3_second, m3, g3_hidden, g3);

  // 7: R c joins the kernel's input.
  float r[3][3];
  rotationFromQuaternion(g3, r);
  for (int e = 0; e < K; ++e)
    for (int a = 0; a < 3; ++a)
      kin[kKernelIn * e + kEdgeOut + a] =
          r[a][0] * feat[kFeatures * e] + r[a][1] * feat[kFeatures * e + 1] + r[a][2] * feat[kFeatures * e + 2];

  // 8: kernel logits; theta joins the bias.
  pointBias<V>(g3 + 4, net.kernel_theta, net.kernel_edge, bias);
  forwardLayer<V>(K, kin, kKernelIn, net.kernel_edge, bias, true, h4, kKernelHidden);
  const float logit_bias = net.kernel_logit.bias[0];
  for (int e = 0; e < K; ++e) {
    typename V::Reg s = V::set1(0.f);
    for (int c = 0; c < kKernelHidden; c += V::width)
      s = V::fma(V::load(h4 + kKernelHidden * e + c), V::load(tw.kernel_logit_column.data() + c), s);
    logits[e] = logit_bias + V::sum(s);
  }

  // 9: softmax, then dropout.
  softmax<V>(logits, K, softmax_w);
  for (int e = 0; e < K; ++e) weights_out[e] = tn.dropout_scale ? softmax_w[e] * tn.dropout_scale[e] : softmax_w[e];

  // 10: the weighted plane fit; the loss where the point has a target.
  PlaneFitTape tape;
  const bool valid = fitPlaneKeeping(nb, weights_out, centred, tape, normal);
  if (!tn.target) return valid;
  double dn[3];
  *loss = static_cast<float>(normalLoss(tn.normal_loss, valid ? normal : ni, tn.target, dn));
  if (!valid) return false;  // the previous normal carries no gradient
  for (double& v : dn) v *= tn.loss_scale;

  // Backward, 10 -> 9: the fit, dropout and softmax give d loss / d logit.
  planeFitGradient(tape, dn, centred, K, dw);
  float weighted_sum = 0;
  for (int e = 0; e < K; ++e) {
    if (tn.dropout_scale) dw[e] *= tn.dropout_scale[e];
    weighted_sum += softmax_w[e] * dw[e];
  }
  float* da = dw;
  for (int e = 0; e < K; ++e) da[e] = softmax_w[e] * (dw[e] - weighted_sum);
  if (tn.weight_loss_scale > 0) {
    // KL(w* || softmax) has the gradient softmax - w* on the logits; the logits' buffer holds w*.
    float* wanted = logits;
    kernelWeightTargets(nb.points, pi, nb.neighbors, K, tn.target, wanted);
    for (int e = 0; e < K; ++e) da[e] += tn.weight_loss_scale * (softmax_w[e] - wanted[e]);
  }

  // 8: the kernel MLP.
  float logit_weight_gradient[64] = {};
  for (int e = 0; e < K; ++e) {
    const typename V::Reg dae = V::set1(da[e]);
    for (int c = 0; c < kKernelHidden; c += V::width) {
      V::store(dh + kKernelHidden * e + c, V::mul(dae, V::load(tw.kernel_logit_column.data() + c)));
      V::store(logit_weight_gradient + c,
               V::fma(dae, V::load(h4 + kKernelHidden * e + c), V::load(logit_weight_gradient + c)));
    }
    grad.kernel_logit.bias[0] += da[e];
  }
  for (int c = 0; c < kKernelHidden; ++c)
    grad.kernel_logit.weight_t[c * grad.kernel_logit.stride] += logit_weight_gradient[c];
  reluGradient<V>(K, h4, kKernelHidden, dh, kKernelHidden, kKernelHidden);
  float s4[64];
  columnSums<V>(K, dh, kKernelHidden, kKernelHidden, s4, false);
  addWeightGradient<V>(K, kin, kKernelIn, net.kernel_edge.in, dh, kKernelHidden, grad.kernel_edge);
  for (int o = 0; o < kKernelHidden; ++o) grad.kernel_edge.bias[o] += s4[o];
  addOuterProduct(g3 + 4, 8, s4, kKernelHidden, grad.kernel_theta, false);
  inputGradient<V>(K, dh, kKernelHidden, tw.kernel_edge_t, dx, kKernelIn);

  // 7: the rotation, then g3 = (q, theta) and the mean of e3.
  float dg3[12], dr[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  pointInputGradient(net.kernel_theta, s4, dg3 + 4);
  for (int e = 0; e < K; ++e)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) dr[a][b] += dx[kKernelIn * e + kEdgeOut + a] * feat[kFeatures * e + b];
  quaternionGradient(g3, dr, dg3);
  float dmean[32];
  pointMlpBackward(net.g3_first, net.g3_second, m3, g3_hidden, dg3, grad.g3_first, grad.g3_second, dmean);
  addToRows<V>(K, dx, kKernelIn, dmean, inv_k);

  // 5, 3: layer3 (e3 = layer3([e2, g2])), then layer2 (e2 = layer2([e1, g1])), each with the
  // per-point MLP whose output it reads and the mean that MLP read.
  float dg[32];
  float* de2 = dx2;
  mixedEdgeMlpBackward<V>(
      K, {e2, kEdgeOut}, h3, g2, {dx, kKernelIn},
      {tw.layer3_second_t, tw.layer3_edge_t, net.layer3_point, grad.layer3_second, grad.layer3_edge, grad.layer3_point},
      dh, {de2, kEdgeOut}, dg);
  pointMlpBackward(net.g2_first, net.g2_second, m2, g2_hidden, dg, grad.g2_first, grad.g2_second, dmean);
  addToRows<V>(K, de2, kEdgeOut, dmean, inv_k);
  float* de1 = dx;
  mixedEdgeMlpBackward<V>(
      K, {e1, kEdgeOut}, h2, g1, {de2, kEdgeOut},
      {tw.layer2_second_t, tw.layer2_edge_t, net.layer2_point, grad.layer2_second, grad.layer2_edge, grad.layer2_point},
      dh, {de1, kEdgeOut}, dg);
  pointMlpBackward(net.g1_first, net.g1_second, g1_in, g1_hidden, dg, grad.g1_first, grad.g1_second, dmean);
  addToRows<V>(K, de1, kEdgeOut, dmean, inv_k);

  // 1: layer1 on the edge features (which carry no gradient).
  addWeightGradient<V>(K, h1, kHidden, kHidden, de1, kEdgeOut, grad.layer1_second);
  columnSums<V>(K, de1, kEdgeOut, kEdgeOut, grad.layer1_second.bias.data(), true);
  inputGradient<V>(K, de1, kEdgeOut, tw.layer1_second_t, dh, kHidden);
  reluGradient<V>(K, h1, kHidden, dh, kHidden, kHidden);
  addWeightGradient<V>(K, feat, kFeatures, kFeatures, dh, kHidden, grad.layer1_first);
  columnSums<V>(K, dh, kHidden, kHidden, grad.layer1_first.bias.data(), true);
  return true;
}

}  // namespace
}  // namespace detail
}  // namespace pcl_dise
