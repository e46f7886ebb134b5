// The native CPU backend: per point, the whole DISE iteration (edge features, the seven MLPs,
// kernel softmax, weighted plane fit) runs on one neighbourhood held in cache; OpenMP over points.
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Core>

#include "dense_kernels.h"
#include "pcl_dise/edge_features.h"
#include "pcl_dise/plane_fit.h"
#include "prepared_graph.h"

namespace pcl_dise {
namespace detail {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::RowVectorXf;

// A linear layer with W^T stored row-major for X * W^T products; where its input is a
// concatenation [per-edge features | per-point features], rows(first, count) is the block of one part.
struct DenseLayer {
  RowMatrix weight_t;  // in x out
  RowVector bias;      // 1 x out

  explicit DenseLayer(const Linear& l)
      : weight_t(Eigen::Map<const RowMatrix>(l.weight.data(), l.out_features, l.in_features).transpose()),
        bias(Eigen::Map<const RowVector>(l.bias.data(), l.out_features)) {}
  auto rows(int first, int count) const { return weight_t.middleRows(first, count); }
  int out() const { return static_cast<int>(weight_t.cols()); }
};

struct NativeMlp {
  DenseLayer first, second;
  explicit NativeMlp(const Mlp& m) : first(m.first), second(m.second) {}
};

template <int Rows, int Cols>
using Fixed = Eigen::Matrix<float, Rows, Cols, Cols == 1 && Rows != 1 ? Eigen::ColMajor : Eigen::RowMajor>;

// Rows [first, first + Rows) of a layer's W^T, fixed-size so that per-point products need no heap.
template <int Rows, int Cols>
Fixed<Rows, Cols> fixedRows(const DenseLayer& layer, int first) {
  return layer.rows(first, Rows);
}

// A per-point MLP (model.h's layerg*), In -> 32 -> Out.
template <int In, int Out>
struct PointMlp {
  Fixed<In, 32> w1;
  Fixed<1, 32> b1;
  Fixed<32, Out> w2;
  Fixed<1, Out> b2;
  explicit PointMlp(const NativeMlp& m)
      : w1(fixedRows<In, 32>(m.first, 0)), b1(m.first.bias), w2(fixedRows<32, Out>(m.second, 0)), b2(m.second.bias) {}
  Fixed<1, Out> operator()(const Fixed<1, In>& x) const {
    const Fixed<1, 32> h = (x * w1 + b1).cwiseMax(0.f);
    return h * w2 + b2;
  }
};

struct NativeModel {
  NativeMlp layer1, layer2, layer3, layer4;  // the edge MLPs
  PointMlp<19, 8> layerg;
  PointMlp<16, 8> layerg2;
  PointMlp<16, 12> layerg3;
  // The first layers' rows of per-point inputs (g1, g2, theta), which become per-point biases.
  Fixed<8, 32> layer2_point, layer3_point;
  Fixed<8, 64> kernel_theta;
  Fixed<1, 32> layer2_bias, layer3_bias;
  Fixed<1, 64> kernel_bias;
  Fixed<64, 1> logit_weight;
  RowMatrix kernel_edge_weight;  // layer4's first-layer rows of its per-edge inputs [e3 | R c]: 19 x 64
  explicit NativeModel(const Model& m)
      : layer1(m.layer1), layer2(m.layer2), layer3(m.layer3), layer4(m.layer4), layerg(NativeMlp(m.layerg)),
        layerg2(NativeMlp(m.layerg2)), layerg3(NativeMlp(m.layerg3)),
        layer2_point(fixedRows<8, 32>(layer2.first, 16)), layer3_point(fixedRows<8, 32>(layer3.first, 16)),
        kernel_theta(fixedRows<8, 64>(layer4.first, 16)), layer2_bias(layer2.first.bias),
        layer3_bias(layer3.first.bias), kernel_bias(layer4.first.bias),
        logit_weight(layer4.second.weight_t), kernel_edge_weight(19, layer4.first.out()) {
    kernel_edge_weight << layer4.first.rows(0, 16), layer4.first.rows(24, 3);
  }
};

// Per-thread scratch, sized for the largest neighbourhood.
struct Workspace {
  RowMatrix edge_in, hidden, e1, e2, kernel_in;  // kernel_in: [e3 | R c], k x 19
  Eigen::VectorXf logits, weights;
};

// out = act(in * weight + bias) over the k rows of `in` (weight: a row-major matrix or block of
// rows, contiguous, in.cols() x width), out's rows out_stride floats apart.
template <typename Weight>
void edgeLayer(const RowMatrix& in, const Weight& weight, const float* bias, bool relu, float* out, int out_stride) {
  denseLayer(in.data(), static_cast<int>(in.rows()), static_cast<int>(in.cols()), static_cast<int>(in.cols()),
             weight.data(), bias, static_cast<int>(weight.cols()), relu, out, out_stride);
}

template <typename Weight>
void edgeLayer(const RowMatrix& in, const Weight& weight, const float* bias, bool relu, RowMatrix& out) {
  out.resize(in.rows(), weight.cols());
  edgeLayer(in, weight, bias, relu, out.data(), static_cast<int>(out.cols()));
}

// One edge MLP: out = relu(in * W1 + row_bias) * W2 + b2, where row_bias folds the per-point
// inputs of the first layer in; out's rows are out_stride floats apart.
template <typename Weight>
void edgeMlp(const RowMatrix& in, const Weight& first_weight_rows, const float* row_bias, const DenseLayer& second,
             Workspace& ws, float* out, int out_stride) {
  edgeLayer(in, first_weight_rows, row_bias, true, ws.hidden);
  edgeLayer(ws.hidden, second.weight_t, second.bias.data(), false, out, out_stride);
}

template <typename Weight>
void edgeMlp(const RowMatrix& in, const Weight& first_weight_rows, const float* row_bias, const DenseLayer& second,
             Workspace& ws, RowMatrix& out) {
  out.resize(in.rows(), second.out());
  edgeMlp(in, first_weight_rows, row_bias, second, ws, out.data(), static_cast<int>(out.cols()));
}

// One DISE iteration at point i: writes its kernel weights and its new normal and curvature;
// returns false, writing no normal, where the weighted fit degenerates (all weight on one spot).
bool iteratePoint(const NativeModel& net, const PreparedGraph& g, std::size_t i, const float* prev_normals,
                  const float* prev_weights, Workspace& ws, float* weights_out, float* normal_out,
                  float* curvature_out) {
  const Neighborhoods& nb = g.neighborhoods;
  const int k = static_cast<int>(nb.size(i));
  const std::int32_t* idx = nb.begin(i);
  const float* pi = g.points + 3 * i;
  const float* ni = prev_normals + 3 * i;

  ws.edge_in.resize(k, 8);
  for (int e = 0; e < k; ++e) {
    const std::size_t j = static_cast<std::size_t>(idx[e]);
    edgeFeatures(pi, g.points + 3 * j, ni, prev_normals + 3 * j, g.edge_scale, prev_weights[e], ws.edge_in.row(e).data());
  }
  const float inv_k = 1.f / static_cast<float>(k);

  // 1-2: e1 per edge, g1 per point.
  edgeMlp(ws.edge_in, net.layer1.first.weight_t, net.layer1.first.bias.data(), net.layer1.second, ws, ws.e1);
  Fixed<1, 19> g_in;
  g_in << ws.e1.colwise().sum() * inv_k, ni[0], ni[1], ni[2];
  const Fixed<1, 8> g1 = net.layerg(g_in);

  // 3-4: e2 = layer2([e1, g1]), g2.
  const Fixed<1, 32> bias2 = g1 * net.layer2_point + net.layer2_bias;
  edgeMlp(ws.e1, net.layer2.first.rows(0, 16), bias2.data(), net.layer2.second, ws, ws.e2);
  const Fixed<1, 8> g2 = net.layerg2(ws.e2.colwise().sum() * inv_k);

  // 5-6: e3 = layer3([e2, g2]), written straight into the kernel's input [e3 | R c]; g3 = (q, theta).
  ws.kernel_in.resize(k, 19);
  const Fixed<1, 32> bias3 = g2 * net.layer3_point + net.layer3_bias;
  edgeMlp(ws.e2, net.layer3.first.rows(0, 16), bias3.data(), net.layer3.second, ws, ws.kernel_in.data(), 19);
  const Fixed<1, 12> g3 = net.layerg3(ws.kernel_in.leftCols(16).colwise().sum() * inv_k);

  // 7-8: kernel logits from [e3, theta, R c]; theta is per point and joins the bias.
  Eigen::Matrix<float, 3, 3, Eigen::RowMajor> r;
  rotationFromQuaternion(g3.data(), reinterpret_cast<float(*)[3]>(r.data()));
  ws.kernel_in.rightCols(3).noalias() = ws.edge_in.leftCols(3) * r.transpose();
  const Fixed<1, 64> theta_bias = g3.segment<8>(4) * net.kernel_theta + net.kernel_bias;
  edgeLayer(ws.kernel_in, net.kernel_edge_weight, theta_bias.data(), true, ws.hidden);
  ws.logits.noalias() = ws.hidden * net.logit_weight;
  ws.logits.array() += net.layer4.second.bias(0);

  // 9: softmax over the neighbourhood.
  ws.weights = (ws.logits.array() - ws.logits.maxCoeff()).exp();
  ws.weights /= ws.weights.sum();
  std::copy(ws.weights.data(), ws.weights.data() + k, weights_out);

  // 10: weighted plane fit.
  return fitPlane<double>(g.points, pi, idx, weights_out, k, normal_out, curvature_out);
}

}  // namespace

void runNativeIterations(const Model& model, const PreparedGraph& g, const ForwardOptions& options,
                         ForwardResult& result) {
  const NativeModel net(model);
  const std::size_t m = g.num_points;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> normals, curvature, next_normals(3 * m, nan);
  startingState(g, normals, curvature);
  std::vector<float> weights = g.initial_weights, next_weights(weights.size(), 0.f);
  // Adaptive mode: settled[i] once point i's normal turned by less than settle_degrees.
  const float settle_cos = static_cast<float>(std::cos(options.settle_degrees * M_PI / 180.0));
  std::vector<char> settled(m, 0);
  for (int iteration = 1; iteration <= options.iterations; ++iteration) {
#pragma omp parallel num_threads(resolveThreads(options.threads))
    {
      Workspace ws;
#pragma omp for schedule(dynamic, 64)
      for (std::int64_t t = 0; t < static_cast<std::int64_t>(m); ++t) {
        const std::int64_t i = g.visit_order[t];
        float* normal = next_normals.data() + 3 * i;
        if (!g.active[i]) continue;
        const std::int64_t first = g.neighborhoods.offsets[i], last = g.neighborhoods.offsets[i + 1];
        const float* previous = normals.data() + 3 * i;
        if (settled[i]) {
          std::copy(previous, previous + 3, normal);
          std::copy(weights.data() + first, weights.data() + last, next_weights.data() + first);
          continue;
        }
        // A degenerate weighted fit keeps the point's previous normal (and curvature).
        if (!iteratePoint(net, g, i, normals.data(), weights.data() + first, ws, next_weights.data() + first, normal,
                          &curvature[i]))
          std::copy(previous, previous + 3, normal);
        if (options.settle_degrees > 0 &&
            std::abs(normal[0] * previous[0] + normal[1] * previous[1] + normal[2] * previous[2]) >= settle_cos)
          settled[i] = 1;
      }
    }
    normals.swap(next_normals);
    weights.swap(next_weights);
    if (options.keep_iterations) result.iteration_normals.push_back(normals);
  }
  result.normals = std::move(normals);
  result.curvature = std::move(curvature);
  result.kernel_weights = std::move(weights);
}

}  // namespace detail
}  // namespace pcl_dise
