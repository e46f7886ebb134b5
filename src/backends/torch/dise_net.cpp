#include "pcl_dise/backends/torch/dise_net.h"

#include <cstring>

namespace pcl_dise {
namespace {

torch::nn::Sequential makeMlp(MlpShape s) {
  return torch::nn::Sequential(torch::nn::Linear(s.in, s.hidden), torch::nn::ReLU(),
                               torch::nn::Linear(s.hidden, s.out));
}

torch::Tensor toTensor(const std::vector<float>& values, std::vector<int64_t> shape) {
  return torch::from_blob(const_cast<float*>(values.data()), shape, torch::kFloat32).clone();
}

// cos(a, b) per row, 0 where |a||b| < 1e-8 (self loops).
torch::Tensor safeCosine(const torch::Tensor& a, const torch::Tensor& b) {
  const torch::Tensor denom = a.norm(2, 1) * b.norm(2, 1);
  const torch::Tensor ok = denom >= 1e-8;
  return torch::where(ok, (a * b).sum(1) / torch::where(ok, denom, torch::ones_like(denom)), torch::zeros_like(denom));
}

// Where every point has the same number of entries (training patches), the entries form an
// M x K block: sums are reductions over K and broadcasts are expands, with no index_add (whose
// CPU version walks the entries one by one, forward and in the backward pass of index_select).
torch::Tensor segmentSum(const torch::Tensor& x, const TorchGraph& graph) {
  std::vector<int64_t> shape = x.sizes().vec();
  shape[0] = graph.numPoints();
  if (graph.degree > 0) {
    shape.insert(shape.begin() + 1, graph.degree);
    return x.view(shape).sum(1);
  }
  return torch::zeros(shape, x.options()).index_add_(0, graph.center, x);
}

// Rows of x (M x ...) repeated for each entry of their point (E x ...).
torch::Tensor toEntries(const torch::Tensor& x, const TorchGraph& graph) {
  if (graph.degree == 0) return x.index_select(0, graph.center);
  std::vector<int64_t> shape = x.sizes().vec();
  shape.insert(shape.begin() + 1, graph.degree);
  std::vector<int64_t> flat = x.sizes().vec();
  flat[0] = graph.center.size(0);
  return x.unsqueeze(1).expand(shape).reshape(flat);
}

torch::Tensor segmentSoftmax(const torch::Tensor& logits, const TorchGraph& graph) {
  if (graph.degree > 0) return logits.view({graph.numPoints(), graph.degree}).softmax(1).view({-1});
  // The shift is a constant per segment: detached, softmax's gradient is unchanged.
  const torch::Tensor max = torch::zeros({graph.numPoints()}, logits.options())
                                .scatter_reduce(0, graph.center, logits.detach(), "amax", /*include_self=*/false);
  const torch::Tensor e = (logits - toEntries(max, graph)).exp();
  return e / toEntries(segmentSum(e, graph), graph);
}

// Per point sum over its entries of a_e b_e^T: a, b E x 3 -> M x 3 x 3.
torch::Tensor segmentOuterSum(const torch::Tensor& a, const torch::Tensor& b, const TorchGraph& graph) {
  if (graph.degree > 0) {
    const std::vector<int64_t> block{graph.numPoints(), graph.degree, 3};
    return torch::matmul(a.view(block).transpose(1, 2), b.view(block));
  }
  return segmentSum(a.unsqueeze(2) * b.unsqueeze(1), graph);
}

// Each entry's row of v (E x 3) multiplied by its point's matrix (M x 3 x 3).
torch::Tensor rotateEntries(const torch::Tensor& rotation, const torch::Tensor& v, const TorchGraph& graph) {
  if (graph.degree > 0)
    return torch::matmul(v.view({graph.numPoints(), graph.degree, 3}), rotation.transpose(1, 2)).view({-1, 3});
  return torch::matmul(toEntries(rotation, graph), v.unsqueeze(2)).squeeze(2);
}

// Rows of e (E x C) plus their point's row of p (M x C).
torch::Tensor addPerPoint(const torch::Tensor& e, const torch::Tensor& p, const TorchGraph& graph) {
  if (graph.degree == 0) return e + toEntries(p, graph);
  return (e.view({graph.numPoints(), graph.degree, e.size(1)}) + p.unsqueeze(1)).view_as(e);
}

// An MLP of docs/algorithm.md whose input concatenates per-entry and per-point columns: its first
// product splits as W [x; y] = W_x x + W_y y, so W_y y is computed once per point instead of once
// per entry. `parts`: the input's column blocks in order, per entry (E x c) or per point (M x c).
struct InputPart {
  torch::Tensor values;
  bool per_point;
};

torch::Tensor mixedInputMlp(const torch::nn::Sequential& mlp, const std::vector<InputPart>& parts,
                            const TorchGraph& graph) {
  const auto& first = mlp->at<torch::nn::LinearImpl>(0);
  torch::Tensor per_entry, per_point = first.bias;
  int64_t column = 0;
  for (const InputPart& part : parts) {
    const torch::Tensor w = first.weight.slice(1, column, column + part.values.size(1));
    column += part.values.size(1);
    torch::Tensor& sum = part.per_point ? per_point : per_entry;
    sum = sum.defined() ? torch::addmm(sum, part.values, w.t()) : torch::matmul(part.values, w.t());
  }
  const auto& second = mlp->at<torch::nn::LinearImpl>(2);
  return torch::linear(torch::relu(addPerPoint(per_entry, per_point, graph)), second.weight, second.bias);
}

// Rotation matrices M x 3 x 3 from quaternions M x 4 (docs/algorithm.md step 7).
torch::Tensor rotationFromQuaternion(torch::Tensor q) {
  q = q / (q.norm(2, 1, true) + 1e-8);
  const auto x0 = q.select(1, 0), x1 = q.select(1, 1), x2 = q.select(1, 2), x3 = q.select(1, 3);
  return torch::stack({1 - 2 * (x2 * x2 + x3 * x3), 2 * (x1 * x2 - x0 * x3), 2 * (x1 * x3 + x0 * x2),
                       2 * (x1 * x2 + x0 * x3), 1 - 2 * (x1 * x1 + x3 * x3), 2 * (x2 * x3 - x0 * x1),
                       2 * (x1 * x3 - x0 * x2), 2 * (x2 * x3 + x0 * x1), 1 - 2 * (x1 * x1 + x2 * x2)},
                      1)
      .view({-1, 3, 3});
}

}  // namespace

TorchGraph TorchGraph::build(const float* points, std::size_t num_points, const Neighborhoods& neighborhoods,
                             float edge_scale, const torch::Device& device, const float* point_scales) {
  TorchGraph g;
  const auto m = static_cast<int64_t>(num_points);
  g.points = torch::from_blob(const_cast<float*>(points), {m, 3}, torch::kFloat32).clone();
  torch::Tensor offsets = torch::from_blob(const_cast<int64_t*>(neighborhoods.offsets.data()), {m + 1}, torch::kInt64);
  torch::Tensor sizes = offsets.slice(0, 1) - offsets.slice(0, 0, m);
  g.center = torch::repeat_interleave(torch::arange(m, torch::kInt64), sizes);
  g.neighbor = torch::from_blob(const_cast<int32_t*>(neighborhoods.indices.data()),
                                {static_cast<int64_t>(neighborhoods.numEdges())}, torch::kInt32)
                   .to(torch::kInt64);
  g.counts = sizes.to(torch::kFloat32).clamp_min(1.f);
  const int64_t first_size = m > 0 ? sizes[0].item<int64_t>() : 0;
  if (first_size > 0 && (sizes == first_size).all().item<bool>()) g.degree = first_size;
  if (point_scales)
    g.entry_scales =
        torch::from_blob(const_cast<float*>(point_scales), {m}, torch::kFloat32).index_select(0, g.center).to(device);
  g.points = g.points.to(device);
  g.center = g.center.to(device);
  g.neighbor = g.neighbor.to(device);
  g.counts = g.counts.to(device);
  g.edge_scale = edge_scale;
  return g;
}

std::vector<float> toFloatVector(const torch::Tensor& t) {
  const torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

torch::Tensor segmentMean(const torch::Tensor& x, const TorchGraph& graph) {
  return segmentSum(x, graph) / graph.counts.unsqueeze(1);
}

PlaneFit weightedPlaneFit(const TorchGraph& graph, const torch::Tensor& weights) {
  // Sums and eigensolve in double, as the native backend (plane_fit.h): nearly collinear
  // neighbourhoods need it.
  const torch::Tensor d =
      (graph.points.index_select(0, graph.neighbor) - toEntries(graph.points, graph)).to(torch::kFloat64);
  const torch::Tensor w = weights.to(torch::kFloat64).unsqueeze(1);
  const torch::Tensor sum_w = segmentSum(w.squeeze(1), graph);
  const torch::Tensor safe_sum = torch::where(sum_w > 0, sum_w, torch::ones_like(sum_w));
  const torch::Tensor mean = segmentSum(w * d, graph) / safe_sum.unsqueeze(1);
  const torch::Tensor centered = d - toEntries(mean, graph);
  const torch::Tensor cov = segmentOuterSum(w * centered, centered, graph);
  auto [values, vectors] = symmetricEigen3(cov);
  const torch::Tensor smallest = values.abs().argmin(1);  // M
  torch::Tensor normals = vectors.gather(2, smallest.view({-1, 1, 1}).expand({-1, 3, 1})).squeeze(2);
  const torch::Tensor sign_probe = normals.select(1, 0) + 2 * normals.select(1, 1) + 3 * normals.select(1, 2);
  normals =
      normals * torch::where(sign_probe < 0, -torch::ones_like(sign_probe), torch::ones_like(sign_probe)).unsqueeze(1);
  const torch::Tensor trace = cov.diagonal(0, 1, 2).sum(1);
  const torch::Tensor valid = (trace > 0) & torch::isfinite(trace) & (sum_w > 0);
  const torch::Tensor lambda_min = values.gather(1, smallest.unsqueeze(1)).squeeze(1).abs();
  const torch::Tensor curvature =
      torch::where(valid, lambda_min / torch::where(valid, trace, torch::ones_like(trace)), torch::zeros_like(trace));
  return {normals.to(weights.scalar_type()), curvature.to(weights.scalar_type()), valid};
}

TorchState initialState(const TorchGraph& graph) {
  const torch::Tensor ones = torch::ones({graph.center.size(0)}, graph.points.options());
  PlaneFit fit = weightedPlaneFit(graph, ones);
  const torch::Tensor k_minus_1 = (graph.counts - 1).clamp_min(1.f);
  return {fit.normals, toEntries(1.0 / k_minus_1, graph), fit.curvature};
}

DiseNetImpl::DiseNetImpl()
    : layer1(register_module("layer1", makeMlp(kLayer1))),
      layerg(register_module("layerg", makeMlp(kLayerG))),
      layer2(register_module("layer2", makeMlp(kLayer2))),
      layerg2(register_module("layerg2", makeMlp(kLayerG2))),
      layer3(register_module("layer3", makeMlp(kLayer3))),
      layerg3(register_module("layerg3", makeMlp(kLayerG3))),
      layer4(register_module("layer4", makeMlp(kLayer4))) {}

DiseNetImpl::DiseNetImpl(const Model& model) : DiseNetImpl() { load(model); }

void DiseNetImpl::load(const Model& model) {
  torch::NoGradGuard no_grad;
  auto params = named_parameters();
  for (const auto& [name, mlp] : model.namedMlps()) {
    for (const Linear* linear : {&mlp->first, &mlp->second}) {
      const std::string base = std::string(name) + (linear == &mlp->first ? ".0" : ".2");
      params[base + ".weight"].copy_(toTensor(linear->weight, {linear->out_features, linear->in_features}));
      params[base + ".bias"].copy_(toTensor(linear->bias, {linear->out_features}));
    }
  }
}

Model DiseNetImpl::toModel() const {
  Model model = randomModel(0);  // shapes; every value is overwritten below
  model.metadata.clear();
  auto params = named_parameters();
  for (auto& [name, mlp] : model.namedMlps()) {
    for (Linear* linear : {&mlp->first, &mlp->second}) {
      const std::string base = std::string(name) + (linear == &mlp->first ? ".0" : ".2");
      linear->weight = toFloatVector(params[base + ".weight"]);
      linear->bias = toFloatVector(params[base + ".bias"]);
    }
  }
  return model;
}

TorchState DiseNetImpl::iterate(const TorchGraph& graph, const TorchState& previous, double dropout,
                                const torch::Tensor& dropout_scale) {
  const torch::Tensor& n = previous.normals;
  const torch::Tensor d = graph.points.index_select(0, graph.neighbor) - toEntries(graph.points, graph);
  const torch::Tensor c = graph.entry_scales.defined() ? graph.entry_scales.unsqueeze(1) * d : graph.edge_scale * d;
  const torch::Tensor n_i = toEntries(n, graph);
  const torch::Tensor n_j = n.index_select(0, graph.neighbor);
  const torch::Tensor edge_in =
      torch::cat({c, previous.weights.unsqueeze(1), safeCosine(n_i, c).unsqueeze(1), safeCosine(n_j, c).unsqueeze(1),
                  safeCosine(n_i, n_j).unsqueeze(1), c.norm(2, 1, true)},
                 1);
  const torch::Tensor e1 = layer1->forward(edge_in);
  const torch::Tensor g1 = layerg->forward(torch::cat({segmentMean(e1, graph), n}, 1));
  const torch::Tensor e2 = mixedInputMlp(layer2, {{e1, false}, {g1, true}}, graph);
  const torch::Tensor g2 = layerg2->forward(segmentMean(e2, graph));
  const torch::Tensor e3 = mixedInputMlp(layer3, {{e2, false}, {g2, true}}, graph);
  const torch::Tensor g3 = layerg3->forward(segmentMean(e3, graph));
  const torch::Tensor rotated = rotateEntries(rotationFromQuaternion(g3.slice(1, 0, 4)), c, graph);
  const torch::Tensor logits =
      mixedInputMlp(layer4, {{e3, false}, {g3.slice(1, 4, 12), true}, {rotated, false}}, graph).squeeze(1);
  torch::Tensor weights = segmentSoftmax(logits, graph);
  if (dropout_scale.defined())
    weights = weights * dropout_scale;
  else if (dropout > 0 && is_training())
    weights = torch::dropout(weights, dropout, /*train=*/true);
  PlaneFit fit = weightedPlaneFit(graph, weights);
  const torch::Tensor keep = fit.valid.unsqueeze(1);
  return {torch::where(keep, fit.normals, n), weights, torch::where(fit.valid, fit.curvature, previous.curvature)};
}

torch::Tensor unorientedNormalLoss(const torch::Tensor& normals, const torch::Tensor& target) {
  return torch::minimum((normals - target).norm(2, 1), (normals + target).norm(2, 1)).mean();
}

}  // namespace pcl_dise
