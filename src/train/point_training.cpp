// The training pass's weight layouts, its portable version and the choice among the versions.
#include "point_training.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "point_training_simd.h"
#include "portable_simd.h"

namespace pcl_dise {
namespace detail {
namespace {

// W of a layer block (point_network.h's WeightBlock) for the input gradient dx = dy W: a
// DenseWeights whose rows are the layer's outputs and whose columns are the block's inputs.
DenseWeights transposedBlock(const Model& model, DenseWeights PointNetworkWeights::*block) {
  for (const WeightBlock& b : weightBlocks()) {
    if (b.block != block) continue;
    const Linear& l = b.layer(const_cast<Model&>(model));
    DenseWeights t;
    t.in = l.out_features;
    for (const auto& range : b.columns) t.out += range.second;
    t.stride = roundUpToWidest(t.out);
    t.weight_t.assign(static_cast<std::size_t>(t.in) * t.stride, 0.f);
    for (int o = 0; o < t.in; ++o) {
      int column = 0;
      for (const auto& [first, count] : b.columns)
        for (int r = first; r < first + count; ++r, ++column)
          t.weight_t[o * t.stride + column] = l.weight[o * l.in_features + r];
    }
    return t;
  }
  return {};
}

}  // namespace

void kernelWeightTargets(const float* points, const float* p, const std::int32_t* neighbors, int count, const float* t,
                         float* out) {
  constexpr double kSharpestShareOfSpread = 0.1;
  double spread2 = 0, plane2 = 0;
  for (int e = 0; e < count; ++e) {
    const float* q = points + 3 * static_cast<std::int64_t>(neighbors[e]);
    double d = 0;
    for (int c = 0; c < 3; ++c) {
      const double v = double(q[c]) - double(p[c]);
      spread2 += v * v;
      d += v * t[c];
    }
    out[e] = static_cast<float>(d * d);  // d_e^2 until sigma is known
    plane2 += d * d;
  }
  const double sigma2 = std::max(kSharpestShareOfSpread * kSharpestShareOfSpread * spread2, plane2) / count;
  double sum = 0;
  for (int e = 0; e < count; ++e) {
    out[e] = sigma2 > 0 ? static_cast<float>(std::exp(-out[e] / sigma2)) : 1.f;
    sum += out[e];
  }
  for (int e = 0; e < count; ++e) out[e] = static_cast<float>(out[e] / sum);
}

PointTrainingWeights::PointTrainingWeights(const Model& model)
    : forward(model),
      layer1_second_t(transposedBlock(model, &PointNetworkWeights::layer1_second)),
      layer2_edge_t(transposedBlock(model, &PointNetworkWeights::layer2_edge)),
      layer2_second_t(transposedBlock(model, &PointNetworkWeights::layer2_second)),
      layer3_edge_t(transposedBlock(model, &PointNetworkWeights::layer3_edge)),
      layer3_second_t(transposedBlock(model, &PointNetworkWeights::layer3_second)),
      kernel_edge_t(transposedBlock(model, &PointNetworkWeights::kernel_edge)),
      kernel_logit_column(model.layer4.second.weight) {}

PointNetworkWeights zeroGradients(const Model& shapes) {
  PointNetworkWeights g(shapes);
  for (const WeightBlock& b : weightBlocks()) {
    DenseWeights& d = g.*b.block;
    std::fill(d.weight_t.begin(), d.weight_t.end(), 0.f);
    std::fill(d.bias.begin(), d.bias.end(), 0.f);
  }
  return g;
}

Model gradientsAsModel(const PointNetworkWeights& gradients) {
  Model model = randomModel(0);  // the shapes; every value is set below
  model.metadata.clear();
  for (auto& entry : model.namedMlps())
    for (Linear* l : {&entry.second->first, &entry.second->second}) {
      std::fill(l->weight.begin(), l->weight.end(), 0.f);
      std::fill(l->bias.begin(), l->bias.end(), 0.f);
    }
  for (const WeightBlock& b : weightBlocks()) {
    const DenseWeights& d = gradients.*b.block;
    Linear& l = b.layer(model);
    int row = 0;
    for (const auto& [first, count] : b.columns)
      for (int r = first; r < first + count; ++r, ++row)
        for (int o = 0; o < d.out; ++o) l.weight[o * l.in_features + r] = d.weight_t[row * d.stride + o];
    if (b.with_bias)
      for (int o = 0; o < d.out; ++o) l.bias[o] = d.bias[o];
  }
  return model;
}

std::size_t pointTrainingScratchFloats(int count) { return trainingScratchFloats(count); }

namespace portable {
bool pointTraining(const PointTrainingWeights& net, const TrainingNeighborhood& nb, float* scratch,
                   PointNetworkWeights& gradients, float* weights_out, float* normal, float* loss) {
  return pointTrainingEdges<Portable>(net, nb, scratch, gradients, weights_out, normal, loss);
}
}  // namespace portable

std::vector<std::pair<const char*, PointTrainingFunction>> pointTrainingImplementations() {
  std::vector<std::pair<const char*, PointTrainingFunction>> found;
  for (const PointNetworkImplementation& i : pointNetworkImplementations()) {
    if (std::strcmp(i.name, "portable") == 0) found.emplace_back(i.name, portable::pointTraining);
#if defined(PCL_DISE_HAVE_AVX2_KERNELS)
    if (std::strcmp(i.name, "AVX2") == 0) found.emplace_back(i.name, avx2::pointTraining);
#endif
#if defined(PCL_DISE_HAVE_AVX512_KERNELS)
    if (std::strcmp(i.name, "AVX-512") == 0) found.emplace_back(i.name, avx512::pointTraining);
#endif
  }
  return found;
}

PointTrainingFunction pointTraining() {
  static const PointTrainingFunction widest = pointTrainingImplementations().back().second;
  return widest;
}

}  // namespace detail
}  // namespace pcl_dise
