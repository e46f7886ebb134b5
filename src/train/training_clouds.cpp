#include "pcl_dise/train/training_clouds.h"

#include <algorithm>
#include <optional>

#include "pcl_dise/core/edge_scale.h"
#include "pcl_dise/train/pcpnet_data.h"

namespace pcl_dise {
namespace train {
namespace {

// The largest side of the bounding box of points (N x 3).
double largestSide(const std::vector<float>& points) {
  float lo[3] = {points[0], points[1], points[2]}, hi[3] = {points[0], points[1], points[2]};
  for (std::size_t i = 0; i < points.size(); ++i) {
    lo[i % 3] = std::min(lo[i % 3], points[i]);
    hi[i % 3] = std::max(hi[i % 3], points[i]);
  }
  return std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
}

// A new noisy copy of a fresh-noise cloud, as dise_make_dataset would have sampled it: new noise
// of its deviation, and its own search and edge scale.
struct NoisyCopy {
  std::vector<float> points;
  std::unique_ptr<GridSearch> search;
  float edge_scale;
};

NoisyCopy noisyCopy(const TrainingCloud& c, std::mt19937_64& rng) {
  std::normal_distribution<double> gauss(0.0, c.noise_deviation);
  NoisyCopy copy{c.points, nullptr, 0.f};
  for (float& v : copy.points) v = static_cast<float>(v + gauss(rng));
  const std::size_t n = c.points.size() / 3;
  copy.search = std::make_unique<GridSearch>(GridSearch::forNearest(copy.points.data(), n, 17));
  copy.edge_scale = edgeScale(copy.points.data(), copy.search->nearest(copy.points.data(), n, 17));
  return copy;
}

}  // namespace

TrainingCloud loadTrainingCloud(const std::string& base, bool fresh_noise) {
  std::string clean;
  const double noise_level = fresh_noise ? train::noiseLevelOfName(base, clean) : 0;
  auto loaded = train::readCloud(noise_level > 0 ? clean : base);
  TrainingCloud c;
  c.name = base;
  for (std::size_t i = 0; i < loaded.cloud.points.size(); ++i) {
    c.points.insert(c.points.end(), loaded.cloud.points[i].begin(), loaded.cloud.points[i].end());
    c.normals.insert(c.normals.end(), loaded.cloud.normals[i].begin(), loaded.cloud.normals[i].end());
  }
  // Centre the cloud: float keeps its precision in the local frame.
  double mean[3] = {0, 0, 0};
  const std::size_t n = c.points.size() / 3;
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) mean[d] += c.points[3 * i + d] / double(n);
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) c.points[3 * i + d] -= static_cast<float>(mean[d]);
  c.search = std::make_unique<GridSearch>(GridSearch::forNearest(c.points.data(), n, 17));
  c.edge_scale = edgeScale(c.points.data(), c.search->nearest(c.points.data(), n, 17));
  if (noise_level > 0) c.noise_deviation = train::noiseDeviation(noise_level, largestSide(c.points));
  return c;
}

TrainingPatch makePatch(const TrainingCloud& c, int size, int k, std::mt19937_64& rng, EdgeScaleRule rule) {
  const std::size_t n = c.points.size() / 3;
  const std::size_t centre = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  std::optional<NoisyCopy> noisy;
  if (c.noise_deviation > 0) noisy = noisyCopy(c, rng);
  const std::vector<float>& points = noisy ? noisy->points : c.points;
  std::vector<std::int32_t> ids;
  std::vector<float> dist2;
  (noisy ? *noisy->search : *c.search).nearest(&points[3 * centre], std::min<std::size_t>(size, n), ids, dist2);
  TrainingPatch p;
  for (auto i : ids) {
    p.points.insert(p.points.end(), &points[3 * i], &points[3 * i] + 3);
    p.targets.insert(p.targets.end(), &c.normals[3 * i], &c.normals[3 * i] + 3);
  }
  p.graph = nearestNeighborGraph(p.points.data(), ids.size(), k + 1);
  p.edge_scale = noisy ? noisy->edge_scale : c.edge_scale;
  if (rule == EdgeScaleRule::Local)
    p.edge_scales = k + 1 >= int(kEdgeScaleNeighbors) ? localEdgeScales(p.points.data(), p.graph, p.edge_scale)
                                                      : localEdgeScales(p.points.data(), ids.size(), p.edge_scale);
  p.loss_points = ids.size() / 2;
  return p;
}

}  // namespace train
}  // namespace pcl_dise
