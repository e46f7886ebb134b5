// The per-point network's weights, its portable version and the choice among the versions the
// processor runs.
#include "point_network.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "pcl_dise/core/forward.h"
#include "point_network_simd.h"
#include "portable_simd.h"

namespace pcl_dise {
namespace detail {

namespace {

// Rows `columns` ({first, count} each) of a layer's W^T, with the layer's bias or without, and
// in bfloat16 pairs.
DenseWeights rowsOf(const Linear& l, const std::vector<std::pair<int, int>>& columns, bool with_bias) {
  DenseWeights d;
  d.out = l.out_features;
  d.stride = roundUpToWidest(d.out);
  for (const auto& [first, count] : columns)
    for (int r = first; r < first + count; ++r, ++d.in)
      for (int o = 0; o < d.stride; ++o) d.weight_t.push_back(o < d.out ? l.weight[o * l.in_features + r] : 0.f);
  if (with_bias) {
    d.bias = l.bias;
    d.bias.resize(d.stride, 0.f);
  }
  for (int r = 0; r < d.in; r += 2)
    for (int o = 0; o < d.stride; ++o)
      d.bf16_pairs.push_back(
          bfloat16Pair(d.weight_t[r * d.stride + o], r + 1 < d.in ? d.weight_t[(r + 1) * d.stride + o] : 0.f));
  return d;
}

std::vector<PointNetworkImplementation> availableImplementations() {
  std::vector<PointNetworkImplementation> found{portable::kPointNetwork};
  const char* cap = std::getenv("PCL_DISE_SIMD");
  if (cap && std::strcmp(cap, "portable") == 0) return found;
#if defined(__x86_64__) && defined(PCL_DISE_HAVE_AVX2_KERNELS)
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return found;
  found.push_back(avx2::kPointNetwork);
  if (cap && std::strcmp(cap, "avx2") == 0) return found;
#endif
#if defined(__x86_64__) && defined(PCL_DISE_HAVE_AVX512_KERNELS)
  if (__builtin_cpu_supports("avx512f")) found.push_back(avx512::kPointNetwork);
#endif
  return found;
}

}  // namespace

std::uint16_t bfloat16Bits(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return static_cast<std::uint16_t>((bits + 0x8000u) >> 16);
}

std::uint32_t bfloat16Pair(float low, float high) {
  return std::uint32_t(bfloat16Bits(low)) | std::uint32_t(bfloat16Bits(high)) << 16;
}

int roundUpToWidest(int n) { return (n + kWidestRegister - 1) / kWidestRegister * kWidestRegister; }

const std::vector<WeightBlock>& weightBlocks() {
  using W = PointNetworkWeights;
  // The first layers of layer2, layer3 and layer4 take [e | g] (16 + 8), [e3 | theta | R c]
  // (16 + 8 + 3): their per-edge columns keep the bias, their per-point columns become a bias.
  static const std::vector<WeightBlock> blocks = {
      {&W::layer1_first, [](Model& m) -> Linear& { return m.layer1.first; }, {{0, kEdgeFeatures}}, true},
      {&W::layer1_second, [](Model& m) -> Linear& { return m.layer1.second; }, {{0, kLayer1.hidden}}, true},
      {&W::g1_first, [](Model& m) -> Linear& { return m.layerg.first; }, {{0, kLayerG.in}}, true},
      {&W::g1_second, [](Model& m) -> Linear& { return m.layerg.second; }, {{0, kLayerG.hidden}}, true},
      {&W::layer2_edge, [](Model& m) -> Linear& { return m.layer2.first; }, {{0, kEdgeEmbedding}}, true},
      {&W::layer2_point,
       [](Model& m) -> Linear& { return m.layer2.first; },
       {{kEdgeEmbedding, kPointEmbedding}},
       false},
      {&W::layer2_second, [](Model& m) -> Linear& { return m.layer2.second; }, {{0, kLayer2.hidden}}, true},
      {&W::g2_first, [](Model& m) -> Linear& { return m.layerg2.first; }, {{0, kLayerG2.in}}, true},
      {&W::g2_second, [](Model& m) -> Linear& { return m.layerg2.second; }, {{0, kLayerG2.hidden}}, true},
      {&W::layer3_edge, [](Model& m) -> Linear& { return m.layer3.first; }, {{0, kEdgeEmbedding}}, true},
      {&W::layer3_point,
       [](Model& m) -> Linear& { return m.layer3.first; },
       {{kEdgeEmbedding, kPointEmbedding}},
       false},
      {&W::layer3_second, [](Model& m) -> Linear& { return m.layer3.second; }, {{0, kLayer3.hidden}}, true},
      {&W::g3_first, [](Model& m) -> Linear& { return m.layerg3.first; }, {{0, kLayerG3.in}}, true},
      {&W::g3_second, [](Model& m) -> Linear& { return m.layerg3.second; }, {{0, kLayerG3.hidden}}, true},
      {&W::kernel_edge,
       [](Model& m) -> Linear& { return m.layer4.first; },
       {{0, kEdgeEmbedding}, {kEdgeEmbedding + kTheta, kRotatedEdge}},
       true},
      {&W::kernel_theta, [](Model& m) -> Linear& { return m.layer4.first; }, {{kEdgeEmbedding, kTheta}}, false},
      {&W::kernel_logit, [](Model& m) -> Linear& { return m.layer4.second; }, {{0, kLayer4.hidden}}, true},
  };
  return blocks;
}

PointNetworkWeights::PointNetworkWeights(const Model& m) {
  for (const WeightBlock& b : weightBlocks())
    this->*b.block = rowsOf(b.layer(const_cast<Model&>(m)), b.columns, b.with_bias);
}

namespace portable {
const PointNetworkImplementation kPointNetwork{"portable", pointGroupLanes<Portable>, Portable::width};
}  // namespace portable

const std::vector<PointNetworkImplementation>& pointNetworkImplementations() {
  static const std::vector<PointNetworkImplementation> implementations = availableImplementations();
  return implementations;
}

const PointNetworkImplementation* bfloat16PointNetwork() {
  static const PointNetworkImplementation* const found = []() -> const PointNetworkImplementation* {
#if defined(__x86_64__) && defined(PCL_DISE_HAVE_AVX512_BF16_KERNELS)
    // Only where the float network runs in AVX-512 (the processor has it, PCL_DISE_SIMD does not cap it).
    if (pointNetworkImplementations().back().function == avx512::kPointNetwork.function &&
        __builtin_cpu_supports("avx512bf16"))
      return &avx512_bf16::kPointNetwork;
#endif
    return nullptr;
  }();
  return found;
}

const PointNetworkImplementation& pointNetwork(Precision precision) {
  if (precision == Precision::Bf16 && bfloat16PointNetwork()) return *bfloat16PointNetwork();
  return pointNetworkImplementations().back();
}

std::size_t pointGroupScratchFloats(int count) {
  return GroupScratch(nullptr, count, kWidestRegister, kMaxBlockRegisters).floats;
}

}  // namespace detail

std::string nativeInstructionSet(Precision precision) { return detail::pointNetwork(precision).name; }

bool bfloat16Available() { return detail::bfloat16PointNetwork() != nullptr; }

}  // namespace pcl_dise
