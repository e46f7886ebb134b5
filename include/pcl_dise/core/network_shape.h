#pragma once
// The shape of the DISE network (docs/algorithm.md, section 5), written once for every backend:
// the seven MLPs in forward order and how their concatenated inputs split into per-edge and
// per-point columns. Header-only and constexpr, usable from CUDA device code.

namespace pcl_dise {

/** Linear(in, hidden) -> ReLU -> Linear(hidden, out). */
struct MlpShape {
  int in;      ///< inputs
  int hidden;  ///< hidden units
  int out;     ///< outputs
};

/// Widths of the values that flow between the MLPs.
constexpr int kEdgeFeatures = 8;    ///< [c (3), w, cos(n_i, c), cos(n_j, c), cos(n_i, n_j), |c|]
constexpr int kEdgeEmbedding = 16;  ///< e1, e2, e3
constexpr int kPointEmbedding = 8;  ///< g1, g2
constexpr int kQuaternion = 4;      ///< the first values of g3
constexpr int kTheta = 8;           ///< the rest of g3
constexpr int kRotatedEdge = 3;     ///< R c

constexpr MlpShape kLayer1{kEdgeFeatures, 32, kEdgeEmbedding};                     ///< e1 = layer1(features)
constexpr MlpShape kLayerG{kEdgeEmbedding + 3, 32, kPointEmbedding};               ///< g1 = layerg([mean e1, n_i])
constexpr MlpShape kLayer2{kEdgeEmbedding + kPointEmbedding, 32, kEdgeEmbedding};  ///< e2 = layer2([e1, g1])
constexpr MlpShape kLayerG2{kEdgeEmbedding, 32, kPointEmbedding};                  ///< g2 = layerg2(mean e2)
constexpr MlpShape kLayer3{kEdgeEmbedding + kPointEmbedding, 32, kEdgeEmbedding};  ///< e3 = layer3([e2, g2])
constexpr MlpShape kLayerG3{kEdgeEmbedding, 32, kQuaternion + kTheta};             ///< (q, theta) = layerg3(mean e3)
constexpr MlpShape kLayer4{kEdgeEmbedding + kTheta + kRotatedEdge, 64, 1};         ///< logit = layer4([e3, theta, R c])

/** The seven MLPs in forward order, as the weight files name them. */
constexpr int kNumMlps = 7;
constexpr MlpShape kMlpShapes[kNumMlps] = {kLayer1, kLayerG, kLayer2, kLayerG2, kLayer3, kLayerG3, kLayer4};
constexpr const char* kMlpNames[kNumMlps] = {"layer1", "layerg", "layer2", "layerg2", "layer3", "layerg3", "layer4"};

/** Parameters of an MLP and of the whole network (7,981). */
constexpr int parameterCount(MlpShape s) { return s.hidden * (s.in + 1) + s.out * (s.hidden + 1); }
constexpr int kNumParameters = parameterCount(kLayer1) + parameterCount(kLayerG) + parameterCount(kLayer2) +
                               parameterCount(kLayerG2) + parameterCount(kLayer3) + parameterCount(kLayerG3) +
                               parameterCount(kLayer4);
static_assert(kNumParameters == 7981, "the published network has 7,981 parameters");

}  // namespace pcl_dise
