// The fused DISE iteration on the GPU: one warp per point. Each lane holds up to R edges of the
// neighbourhood in registers through all four stages (edge MLPs, neighbourhood means by warp
// shuffles, point MLPs spread over the lanes), then the kernel softmax and the weighted plane
// fit in double, with the eigensolver every backend shares.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "device_stages.cuh"
#include "dise_cuda.h"
#include "pcl_dise/core/adaptive_mode.h"
#include "pcl_dise/core/edge_features.h"
#include "pcl_dise/core/eigen3x3.h"
#include "pcl_dise/core/network_shape.h"
#include "pcl_dise/core/plane_fit.h"

namespace pcl_dise {
namespace cuda {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr unsigned kFullMask = 0xffffffffu;

// An MLP (Linear, ReLU, Linear) of the packed parameters, with its shape.
template <int In, int Hidden, int Out>
struct Mlp {
  static constexpr int kSize = Hidden * (In + 1) + Out * (Hidden + 1);
  const float* w1;  // Hidden x In
  const float* b1;  // Hidden
  const float* w2;  // Out x Hidden
  const float* b2;  // Out
  __device__ explicit Mlp(const float* p) : w1(p), b1(p + Hidden * In), w2(b1 + Hidden), b2(w2 + Out * Hidden) {}
};
using Layer1 = Mlp<kLayer1.in, kLayer1.hidden, kLayer1.out>;
using LayerG = Mlp<kLayerG.in, kLayerG.hidden, kLayerG.out>;
using Layer2 = Mlp<kLayer2.in, kLayer2.hidden, kLayer2.out>;
using LayerG2 = Mlp<kLayerG2.in, kLayerG2.hidden, kLayerG2.out>;
using Layer3 = Mlp<kLayer3.in, kLayer3.hidden, kLayer3.out>;
using LayerG3 = Mlp<kLayerG3.in, kLayerG3.hidden, kLayerG3.out>;
using Layer4 = Mlp<kLayer4.in, kLayer4.hidden, kLayer4.out>;
constexpr int kLayer1At = 0, kLayerGAt = kLayer1At + Layer1::kSize, kLayer2At = kLayerGAt + LayerG::kSize,
              kLayerG2At = kLayer2At + Layer2::kSize, kLayer3At = kLayerG2At + LayerG2::kSize,
              kLayerG3At = kLayer3At + Layer3::kSize, kLayer4At = kLayerG3At + LayerG3::kSize;
static_assert(kLayer4At + Layer4::kSize == kParameterCount, "packed parameter layout");

template <typename T>
__device__ T warpSum(T v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

__device__ float warpMax(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(kFullMask, v, offset));
  return v;
}

// An MLP with 32 hidden units computed by the warp, one hidden unit per lane, on inputs every
// lane holds: the first EdgeIn of them read here, the rest folded with the first bias into
// hidden_bias (b1 where there is no rest). Every lane gets the whole output. A point's MLPs run
// so, and the tail edge of a neighbourhood one past the lanes' rounds.
template <int EdgeIn, int In, int Out>
__device__ void warpMlp(const Mlp<In, 32, Out>& m, const float* hidden_bias, const float* x, float* out, int lane) {
  float h = hidden_bias[lane];
#pragma unroll
  for (int i = 0; i < EdgeIn; ++i) h = fmaf(m.w1[lane * In + i], x[i], h);
  h = fmaxf(h, 0.f);
#pragma unroll
  for (int o = 0; o < Out; ++o) out[o] = warpSum(m.w2[o * 32 + lane] * h) + m.b2[o];
}

// A point MLP: every input read, the first bias as it is.
template <int In, int Out>
__device__ void pointMlp(const Mlp<In, 32, Out>& m, const float* in, float* out, int lane) {
  warpMlp<In>(m, m.b1, in, out, lane);
}

// An edge MLP whose first EdgeIn inputs are per edge and the rest per point, folded with the
// first bias into hidden_bias: out = W2 relu(W1[:, :EdgeIn] x + hidden_bias) + b2.
template <int EdgeIn, int In, int Out>
__device__ void edgeMlp(const Mlp<In, 32, Out>& m, const float* hidden_bias, const float* x, float* out) {
#pragma unroll
  for (int o = 0; o < Out; ++o) out[o] = m.b2[o];
  for (int j = 0; j < 32; ++j) {
    float h = hidden_bias[j];
#pragma unroll
    for (int i = 0; i < EdgeIn; ++i) h = fmaf(m.w1[j * In + i], x[i], h);
    h = fmaxf(h, 0.f);
#pragma unroll
    for (int o = 0; o < Out; ++o) out[o] = fmaf(m.w2[o * 32 + j], h, out[o]);
  }
}

// hidden_bias[j] = b1[j] + W1[j, first .. first + 8) g over the warp's lanes (Hidden/32 each).
template <int In, int Hidden, int Out>
__device__ void foldPointInput(const Mlp<In, Hidden, Out>& m, int first, const float* g, float* hidden_bias, int lane) {
  __syncwarp();
  for (int j = lane; j < Hidden; j += 32) {
    float h = m.b1[j];
#pragma unroll
    for (int i = 0; i < 8; ++i) h = fmaf(m.w1[j * In + first + i], g[i], h);
    hidden_bias[j] = h;
  }
  __syncwarp();
}

// R rounds of 32 edges, one per lane; with Tail, one more edge (the 65th of k = 64 and the point
// itself) that every lane holds and the warp computes together, instead of a third round for it.
// What one iteration reads and writes besides the graph: the normals it reads and those it writes
// (the buffers alternate), the kernel weights (updated in place), the curvature, and for the
// adaptive mode the settled flags (nullptr: none) with the cosine below which a point settles.
struct IterationBuffers {
  const float* prev_normals;
  float* weights;
  float* next_normals;
  float* curvature;
  std::uint8_t* settled;
  float settle_cos;
};

template <int R, bool Tail>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    iterationKernel(const float* __restrict__ parameters, const DeviceGraph graph, const IterationBuffers buffers) {
  // The arrays as restrict pointers: none aliases another.
  const float* __restrict__ points = graph.points;
  const std::size_t num_points = graph.num_points;
  const float edge_scale = graph.edge_scale;
  const float* __restrict__ edge_scales = graph.edge_scales;
  const std::int64_t* __restrict__ offsets = graph.offsets;
  const std::int32_t* __restrict__ indices = graph.indices;
  const std::uint8_t* __restrict__ active = graph.active;
  const float* __restrict__ prev_normals = buffers.prev_normals;
  float* __restrict__ weights = buffers.weights;
  float* __restrict__ next_normals = buffers.next_normals;
  float* __restrict__ curvature = buffers.curvature;
  std::uint8_t* __restrict__ settled = buffers.settled;
  const float settle_cos = buffers.settle_cos;
  __shared__ float p[kParameterCount];
  __shared__ float warp_bias[kWarpsPerBlock][64];
  for (int t = threadIdx.x; t < kParameterCount; t += blockDim.x) p[t] = parameters[t];
  __syncthreads();
  const Layer1 layer1(p + kLayer1At);
  const LayerG layerg(p + kLayerGAt);
  const Layer2 layer2(p + kLayer2At);
  const LayerG2 layerg2(p + kLayerG2At);
  const Layer3 layer3(p + kLayer3At);
  const LayerG3 layerg3(p + kLayerG3At);
  const Layer4 layer4(p + kLayer4At);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float* hidden_bias = warp_bias[warp];

  for (std::size_t i = std::size_t(blockIdx.x) * kWarpsPerBlock + warp; i < num_points;
       i += std::size_t(gridDim.x) * kWarpsPerBlock) {
    if (!active[i]) continue;  // the whole warp skips
    const std::int64_t first = offsets[i];
    const int k = static_cast<int>(offsets[i + 1] - first);
    if (settled && settled[i]) {  // keeps its normal (the buffers alternate) and kernel weights
      if (lane < 3) next_normals[3 * i + lane] = prev_normals[3 * i + lane];
      continue;
    }
    const float* pi = points + 3 * i;
    const float s_i = edge_scales ? edge_scales[i] : edge_scale;
    const float ni[3] = {prev_normals[3 * i], prev_normals[3 * i + 1], prev_normals[3 * i + 2]};
    const float inv_k = 1.f / static_cast<float>(k);

    // Stage 1: edge features, e1 = layer1(x), g1 = layerg([mean e1, n_i]).
    float x[R][8], e[R][16], mean[19];
#pragma unroll
    for (int c = 0; c < 16; ++c) mean[c] = 0.f;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int edge = lane + 32 * r;
      if (edge >= k) continue;
      const std::int32_t j = indices[first + edge];
      // A neighbour without a normal reads as the zero vector (iteration_zero.h, startingState).
      const float no_normal[3] = {0.f, 0.f, 0.f};
      edgeFeatures(pi, points + 3 * std::size_t(j), ni, active[j] ? prev_normals + 3 * std::size_t(j) : no_normal, s_i,
                   weights[first + edge], x[r]);
      edgeMlp<8>(layer1, layer1.b1, x[r], e[r]);
#pragma unroll
      for (int c = 0; c < 16; ++c) mean[c] += e[r][c];
    }
    // The tail edge enters every sum once, through lane 0.
    const bool tail = Tail && k > 32 * R;
    const int tail_edge = 32 * R;
    float tail_x[8], tail_e[16];
    if (tail) {
      const std::int32_t j = indices[first + tail_edge];
      const float no_normal[3] = {0.f, 0.f, 0.f};
      edgeFeatures(pi, points + 3 * std::size_t(j), ni, active[j] ? prev_normals + 3 * std::size_t(j) : no_normal, s_i,
                   weights[first + tail_edge], tail_x);
      warpMlp<8>(layer1, layer1.b1, tail_x, tail_e, lane);
      if (lane == 0)
        for (int c = 0; c < 16; ++c) mean[c] += tail_e[c];
    }
#pragma unroll
    for (int c = 0; c < 16; ++c) mean[c] = warpSum(mean[c]) * inv_k;
    mean[16] = ni[0];
    mean[17] = ni[1];
    mean[18] = ni[2];
    float g[12];
    pointMlp(layerg, mean, g, lane);

    // Stages 2 and 3: e <- layer([e, g]), g <- layerg(mean e).
    auto edgeStage = [&](const auto& layer) {
      foldPointInput(layer, 16, g, hidden_bias, lane);
#pragma unroll
      for (int c = 0; c < 16; ++c) mean[c] = 0.f;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if (lane + 32 * r >= k) continue;
        float next[16];
        edgeMlp<16>(layer, hidden_bias, e[r], next);
#pragma unroll
        for (int c = 0; c < 16; ++c) {
          e[r][c] = next[c];
          mean[c] += next[c];
        }
      }
      if (tail) {
        float next[16];
        warpMlp<16>(layer, hidden_bias, tail_e, next, lane);
#pragma unroll
        for (int c = 0; c < 16; ++c) tail_e[c] = next[c];
        if (lane == 0)
          for (int c = 0; c < 16; ++c) mean[c] += tail_e[c];
      }
#pragma unroll
      for (int c = 0; c < 16; ++c) mean[c] = warpSum(mean[c]) * inv_k;
    };
    edgeStage(layer2);
    pointMlp(layerg2, mean, g, lane);
    edgeStage(layer3);
    pointMlp(layerg3, mean, g, lane);  // g = (quaternion (4), theta (8))

    // Stage 4: kernel logits from [e3, theta, R c], softmax over the neighbourhood.
    float rot[3][3];
    rotationFromQuaternion(g, rot);
    foldPointInput(layer4, 16, g + 4, hidden_bias, lane);
    float w[R], max_logit = -INFINITY;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      w[r] = -INFINITY;
      if (lane + 32 * r >= k) continue;
      float rc[3];
      for (int a = 0; a < 3; ++a) rc[a] = rot[a][0] * x[r][0] + rot[a][1] * x[r][1] + rot[a][2] * x[r][2];
      float logit = layer4.b2[0];
      for (int j = 0; j < 64; ++j) {
        const float* row = layer4.w1 + j * 27;
        float h = hidden_bias[j];
#pragma unroll
        for (int c = 0; c < 16; ++c) h = fmaf(row[c], e[r][c], h);
        h = fmaf(row[24], rc[0], fmaf(row[25], rc[1], fmaf(row[26], rc[2], h)));
        logit = fmaf(layer4.w2[j], fmaxf(h, 0.f), logit);
      }
      w[r] = logit;
      max_logit = fmaxf(max_logit, logit);
    }
    float tail_w = 0.f;  // the tail edge's logit, then its weight, in every lane
    if (tail) {
      float rc[3];
      for (int a = 0; a < 3; ++a) rc[a] = rot[a][0] * tail_x[0] + rot[a][1] * tail_x[1] + rot[a][2] * tail_x[2];
      float part = 0.f;
      for (int j = lane; j < 64; j += 32) {
        const float* row = layer4.w1 + j * 27;
        float h = hidden_bias[j];
#pragma unroll
        for (int c = 0; c < 16; ++c) h = fmaf(row[c], tail_e[c], h);
        h = fmaf(row[24], rc[0], fmaf(row[25], rc[1], fmaf(row[26], rc[2], h)));
        part = fmaf(layer4.w2[j], fmaxf(h, 0.f), part);
      }
      tail_w = warpSum(part) + layer4.b2[0];
      max_logit = fmaxf(max_logit, tail_w);
    }
    max_logit = warpMax(max_logit);
    float total = 0.f;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      w[r] = lane + 32 * r < k ? __expf(w[r] - max_logit) : 0.f;
      total += w[r];
    }
    if (tail) {
      tail_w = __expf(tail_w - max_logit);
      if (lane == 0) total += tail_w;
    }
    total = warpSum(total);

    // Weighted plane fit in double (centred two-pass sums, as fitPlane).
    double sum_w = 0, m[3] = {0, 0, 0};
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int edge = lane + 32 * r;
      if (edge >= k) continue;
      w[r] /= total;
      weights[first + edge] = w[r];  // each lane rewrites only the weights it read in stage 1
      const float* pj = points + 3 * std::size_t(indices[first + edge]);
      sum_w += w[r];
      for (int a = 0; a < 3; ++a) m[a] += double(w[r]) * (double(pj[a]) - double(pi[a]));
    }
    const float* tail_p = tail ? points + 3 * std::size_t(indices[first + tail_edge]) : pi;
    if (tail) {
      tail_w /= total;
      if (lane == 0) {
        weights[first + tail_edge] = tail_w;
        sum_w += tail_w;
        for (int a = 0; a < 3; ++a) m[a] += double(tail_w) * (double(tail_p[a]) - double(pi[a]));
      }
    }
    sum_w = warpSum(sum_w);
    for (int a = 0; a < 3; ++a) m[a] = warpSum(m[a]) / sum_w;
    SymMat3<double> cov{0, 0, 0, 0, 0, 0};
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int edge = lane + 32 * r;
      if (edge >= k) continue;
      const float* pj = points + 3 * std::size_t(indices[first + edge]);
      const double d[3] = {double(pj[0]) - pi[0] - m[0], double(pj[1]) - pi[1] - m[1], double(pj[2]) - pi[2] - m[2]};
      addWeightedOuterProduct(cov, double(w[r]), d);
    }
    if (tail && lane == 0) {
      const double d[3] = {double(tail_p[0]) - pi[0] - m[0], double(tail_p[1]) - pi[1] - m[1],
                           double(tail_p[2]) - pi[2] - m[2]};
      addWeightedOuterProduct(cov, double(tail_w), d);
    }
    cov = {warpSum(cov.a00), warpSum(cov.a01), warpSum(cov.a02), warpSum(cov.a11), warpSum(cov.a12), warpSum(cov.a22)};
    if (lane == 0) {
      if (!planeFromWeightedCovariance(sum_w, cov, next_normals + 3 * i, curvature + i))
        for (int a = 0; a < 3; ++a) next_normals[3 * i + a] = ni[a];  // a degenerate fit keeps the previous normal
      if (settled && hasSettled(next_normals + 3 * i, ni, settle_cos)) settled[i] = 1;
    }
  }
}

}  // namespace

bool deviceAvailable(std::string* why) {
  // The kernels load with the context, not each at its first launch (CUDA's lazy loading), which
  // the first timed stage would pay; a setting of the caller's own stands. Before the runtime's
  // first call, which reads it.
  static const bool eager_loading = setenv("CUDA_MODULE_LOADING", "EAGER", 0) == 0;
  (void)eager_loading;
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count == 0) {
    if (why) *why = "the CUDA runtime finds no device";
    return false;
  }
  if (status == cudaSuccess) status = cudaFree(nullptr);  // creates the context, or finds it made
  if (status == cudaSuccess) return true;
  if (why) *why = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  cudaGetLastError();
  return false;
}

void requireDevice() {
  std::string why;
  if (!deviceAvailable(&why)) throw std::runtime_error("cuda backend: no CUDA device can be used (" + why + ")");
}

bool iterateOnDevice(const float* d_parameters, const DeviceGraph& graph, int iterations, float* d_normals,
                     float* d_weights, float* d_curvature, std::uint8_t* d_settled, float settle_cos,
                     const std::function<bool(int, const float*)>& after_each) {
  const std::size_t m = graph.num_points;
  if (m == 0 || iterations <= 0) return true;
  if (graph.largest > kMaxNeighborhood)
    throw std::runtime_error("cuda backend: a neighbourhood of " + std::to_string(graph.largest) + " points; at most " +
                             std::to_string(kMaxNeighborhood) + " are supported (cap radius neighbourhoods)");
  // Each iteration reads one normals buffer and writes the other; inactive points keep theirs. The
  // kernel weights are updated in place (a warp reads and writes only its own point's row), so the
  // iterations add no copy of the largest array.
  DeviceArray<float> normals_b(3 * m);
  check(cudaMemcpy(normals_b.data, d_normals, 3 * m * sizeof(float), cudaMemcpyDeviceToDevice),
        "copying on the device");
  int device = 0, sms = 1;
  check(cudaGetDevice(&device), "querying the device");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "querying the device");
  const int blocks = static_cast<int>(std::min<std::size_t>((m + kWarpsPerBlock - 1) / kWarpsPerBlock, 16u * sms));
  float *prev_n = d_normals, *next_n = normals_b.data;
  bool going = true;
  for (int it = 1; it <= iterations && going; ++it) {
    // The fewest rounds of 32 edges that hold the largest neighbourhood, the one edge past them
    // (k nearest and the point itself) done by the warp together.
    auto run = [&](auto rounds, auto tail) {
      iterationKernel<decltype(rounds)::value, decltype(tail)::value><<<blocks, kWarpsPerBlock * 32>>>(
          d_parameters, graph, IterationBuffers{prev_n, d_weights, next_n, d_curvature, d_settled, settle_cos});
    };
    auto runRounds = [&](auto rounds) {
      if (graph.largest == 32 * decltype(rounds)::value + 1)
        run(rounds, std::true_type());
      else
        run(rounds, std::false_type());
    };
    const std::int64_t rounds = (graph.largest + 30) / 32;  // the fewest with largest <= 32 rounds + 1
    if (rounds <= 1)
      runRounds(std::integral_constant<int, 1>());
    else if (rounds == 2)
      runRounds(std::integral_constant<int, 2>());
    else if (rounds == 3)
      runRounds(std::integral_constant<int, 3>());
    else if (rounds == 4)
      runRounds(std::integral_constant<int, 4>());
    else if (graph.largest <= 256)
      run(std::integral_constant<int, 8>(), std::false_type());
    else
      run(std::integral_constant<int, 32>(), std::false_type());
    checkKernel("the iteration kernel");
    std::swap(prev_n, next_n);
    if (after_each) going = after_each(it, prev_n);
  }
  if (prev_n != d_normals)
    check(cudaMemcpy(d_normals, prev_n, 3 * m * sizeof(float), cudaMemcpyDeviceToDevice), "copying on the device");
  return going;
}

void runIterations(const float* parameters, const Graph& graph, int iterations, State& state, float* iteration_normals,
                   float settle_cos) {
  const std::size_t m = graph.num_points;
  if (m == 0 || iterations <= 0) return;
  const std::size_t edges = static_cast<std::size_t>(graph.offsets[m]);
  std::int64_t largest = 0;
  for (std::size_t i = 0; i < m; ++i) largest = std::max(largest, graph.offsets[i + 1] - graph.offsets[i]);
  if (!deviceAvailable()) throw std::runtime_error("cuda backend: no CUDA device is available");

  const DeviceArray<float> d_parameters(kParameterCount, parameters), d_points(3 * m, graph.points);
  const DeviceArray<std::int64_t> d_offsets(m + 1, graph.offsets);
  const DeviceArray<std::int32_t> d_indices(edges, graph.indices);
  const DeviceArray<std::uint8_t> d_active(m, graph.active);
  DeviceArray<float> normals(3 * m, state.normals), weights(edges, state.weights), curvature(m, state.curvature);
  DeviceArray<std::uint8_t> settled(std::isnan(settle_cos) ? 0 : m);
  if (!std::isnan(settle_cos)) check(cudaMemset(settled.data, 0, m), "clearing the settled flags");
  const DeviceArray<float> d_scales(graph.edge_scales ? m : 0, graph.edge_scales);
  const DeviceGraph device_graph{d_points.data,
                                 m,
                                 graph.edge_scale,
                                 graph.edge_scales ? d_scales.data : nullptr,
                                 d_offsets.data,
                                 d_indices.data,
                                 edges,
                                 d_active.data,
                                 largest};
  iterateOnDevice(d_parameters.data, device_graph, iterations, normals.data, weights.data, curvature.data,
                  std::isnan(settle_cos) ? nullptr : settled.data, settle_cos, [&](int it, const float* d_normals) {
                    if (iteration_normals)
                      check(cudaMemcpy(iteration_normals + std::size_t(it - 1) * 3 * m, d_normals,
                                       3 * m * sizeof(float), cudaMemcpyDeviceToHost),
                            "copying from the device");
                    return true;
                  });
  normals.download(state.normals, 3 * m);
  weights.download(state.weights, edges);
  curvature.download(state.curvature, m);
}

}  // namespace cuda
}  // namespace pcl_dise
