// The per-point network's weights, its portable version and the choice among the versions the
// processor runs.
#include "point_network.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "pcl_dise/forward.h"
#include "point_network_simd.h"

namespace pcl_dise {
namespace detail {

namespace {

// n rounded up to a multiple of the widest registers.
int roundUpToWidest(int n) { return (n + kWidestRegister - 1) / kWidestRegister * kWidestRegister; }

// Rows `ranges` ({first, count} each) of a layer's W^T, with the layer's bias or without.
DenseWeights rowsOf(const Linear& l, std::initializer_list<std::pair<int, int>> ranges, bool with_bias) {
  DenseWeights d;
  d.out = l.out_features;
  d.stride = roundUpToWidest(d.out);
  for (const auto& [first, count] : ranges)
    for (int r = first; r < first + count; ++r, ++d.in)
      for (int o = 0; o < d.stride; ++o) d.weight_t.push_back(o < d.out ? l.weight[o * l.in_features + r] : 0.f);
  if (with_bias) {
    d.bias = l.bias;
    d.bias.resize(d.stride, 0.f);
  }
  return d;
}

DenseWeights whole(const Linear& l) { return rowsOf(l, {{0, l.in_features}}, true); }

// Four lanes per register as a GCC/Clang vector type: the compiler maps it onto whatever vectors
// the default target has (SSE2 on x86-64, NEON on AArch64), so any processor runs this code.
struct Portable {
  using Reg = float __attribute__((vector_size(16)));
  using Mask = std::int32_t __attribute__((vector_size(16)));
  static constexpr int width = 4;
  static constexpr int lanes = 3;
  static constexpr int outputs = 4;
  static constexpr int edge_by_edge = 1;
  static Reg load(const float* p) {
    Reg r;
    std::memcpy(&r, p, sizeof r);
    return r;
  }
  static void store(float* p, Reg a) { std::memcpy(p, &a, sizeof a); }
  static Reg set1(float x) { return Reg{x, x, x, x}; }
  static Reg add(Reg a, Reg b) { return a + b; }
  static Reg sub(Reg a, Reg b) { return a - b; }
  static Reg mul(Reg a, Reg b) { return a * b; }
  static Reg div(Reg a, Reg b) { return a / b; }
  static Reg fma(Reg a, Reg b, Reg c) { return a * b + c; }
  static Reg max(Reg a, Reg b) { return a > b ? a : b; }
  static Reg relu(Reg a) { return max(a, set1(0.f)); }
  static Reg sqrt(Reg a) { return Reg{std::sqrt(a[0]), std::sqrt(a[1]), std::sqrt(a[2]), std::sqrt(a[3])}; }
  static Reg zeroWhereBelow(Reg x, float bound, Reg value) { return x < set1(bound) ? set1(0.f) : value; }
  static Reg fillTail(Reg a, int n, float value) { return Mask{0, 1, 2, 3} < n ? a : set1(value); }
  static float sum(Reg a) { return (a[0] + a[1]) + (a[2] + a[3]); }
  static float maximum(Reg a) { return std::max(std::max(a[0], a[1]), std::max(a[2], a[3])); }
  static Reg exp(Reg a) { return Reg{std::exp(a[0]), std::exp(a[1]), std::exp(a[2]), std::exp(a[3])}; }
};

std::vector<PointNetworkImplementation> availableImplementations() {
  std::vector<PointNetworkImplementation> found{{"portable", portable::pointNetwork}};
  const char* cap = std::getenv("PCL_DISE_SIMD");
  if (cap && std::strcmp(cap, "portable") == 0) return found;
#if defined(__x86_64__) && defined(PCL_DISE_HAVE_AVX2_KERNELS)
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return found;
  found.push_back({"AVX2", avx2::pointNetwork});
  if (cap && std::strcmp(cap, "avx2") == 0) return found;
#endif
#if defined(__x86_64__) && defined(PCL_DISE_HAVE_AVX512_KERNELS)
  if (__builtin_cpu_supports("avx512f")) found.push_back({"AVX-512", avx512::pointNetwork});
#endif
  return found;
}

}  // namespace

PointNetworkWeights::PointNetworkWeights(const Model& m)
    : layer1_first(whole(m.layer1.first)), layer1_second(whole(m.layer1.second)),
      layer2_edge(rowsOf(m.layer2.first, {{0, 16}}, true)), layer2_point(rowsOf(m.layer2.first, {{16, 8}}, false)),
      layer2_second(whole(m.layer2.second)),
      layer3_edge(rowsOf(m.layer3.first, {{0, 16}}, true)), layer3_point(rowsOf(m.layer3.first, {{16, 8}}, false)),
      layer3_second(whole(m.layer3.second)),
      kernel_edge(rowsOf(m.layer4.first, {{0, 16}, {24, 3}}, true)),
      kernel_theta(rowsOf(m.layer4.first, {{16, 8}}, false)), kernel_logit(whole(m.layer4.second)),
      g1_first(whole(m.layerg.first)), g1_second(whole(m.layerg.second)), g2_first(whole(m.layerg2.first)),
      g2_second(whole(m.layerg2.second)), g3_first(whole(m.layerg3.first)), g3_second(whole(m.layerg3.second)) {}

namespace portable {
bool pointNetwork(const PointNetworkWeights& net, const PointNeighborhood& neighborhood, float* scratch,
                  float* weights_out, float* normal, float* curvature) {
  return pointNetworkLanes<Portable>(net, neighborhood, scratch, weights_out, normal, curvature);
}
}  // namespace portable

const std::vector<PointNetworkImplementation>& pointNetworkImplementations() {
  static const std::vector<PointNetworkImplementation> implementations = availableImplementations();
  return implementations;
}

const PointNetworkImplementation& pointNetwork() { return pointNetworkImplementations().back(); }

std::size_t pointNetworkScratchFloats(int count) {
  // kScratchRows rows of `count` lanes, rounded up to the widest registers.
  return std::size_t{kScratchRows} * static_cast<std::size_t>(roundUpToWidest(count));
}

}  // namespace detail

std::string nativeInstructionSet() { return detail::pointNetwork().name; }

}  // namespace pcl_dise
