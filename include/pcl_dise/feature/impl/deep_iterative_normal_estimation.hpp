#pragma once
// Implementation of pcl::DeepIterativeNormalEstimation: fills the forward pass's index arrays
// from PCL search, runs pcl_dise::runForward, and writes PCL's output conventions.
#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <fstream>
#include <limits>
#include <memory>
#include <numeric>
#include <type_traits>

#include <pcl/common/point_tests.h>

#include "pcl_dise/core/centroid_frame.h"
#include "pcl_dise/core/distinct_positions.h"
#include "pcl_dise/core/edge_scale.h"
#include "pcl_dise/core/plane_fit.h"
#include "pcl_dise/core/receptive_field.h"
#include "pcl_dise/core/spatial_order.h"
#include "pcl_dise/core/viewpoint.h"
#include "pcl_dise/feature/deep_iterative_normal_estimation.h"
#include "pcl_dise/feature/search_grid.h"

namespace pcl {

template <typename PointInT, typename PointOutT>
bool DeepIterativeNormalEstimation<PointInT, PointOutT>::computePointNormal(const pcl::PointCloud<PointInT>& cloud,
                                                                            const pcl::Indices& indices,
                                                                            Eigen::Vector4f& plane_parameters,
                                                                            float& curvature) {
  plane_parameters.setConstant(std::numeric_limits<float>::quiet_NaN());
  curvature = std::numeric_limits<float>::quiet_NaN();
  if (indices.size() < 3) return false;
  // Offsets from the first point keep float precision for georeferenced coordinates.
  const Eigen::Vector3f origin = cloud[indices[0]].getVector3fMap();
  std::vector<float> offsets(3 * indices.size());
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  for (std::size_t e = 0; e < indices.size(); ++e) {
    const Eigen::Vector3f d = cloud[indices[e]].getVector3fMap() - origin;
    if (!d.allFinite()) return false;
    std::copy(d.data(), d.data() + 3, offsets.begin() + 3 * e);
    sum += d.cast<double>();
  }
  std::vector<std::int32_t> local(indices.size());
  std::iota(local.begin(), local.end(), 0);
  const float zero[3] = {0.f, 0.f, 0.f};
  float normal[3];
  if (!pcl_dise::fitPlane<double>(offsets.data(), zero, local.data(), nullptr, static_cast<int>(local.size()), normal,
                                  &curvature)) {
    curvature = std::numeric_limits<float>::quiet_NaN();
    return false;
  }
  const Eigen::Vector3f n(normal[0], normal[1], normal[2]);
  const Eigen::Vector3f centroid = origin + (sum / static_cast<double>(indices.size())).cast<float>();
  plane_parameters << n, -n.dot(centroid);
  return true;
}

template <typename PointInT, typename PointOutT>
bool DeepIterativeNormalEstimation<PointInT, PointOutT>::computePointNormal(const pcl::PointCloud<PointInT>& cloud,
                                                                            const pcl::Indices& indices, float& nx,
                                                                            float& ny, float& nz, float& curvature) {
  Eigen::Vector4f plane;
  const bool ok = computePointNormal(cloud, indices, plane, curvature);
  nx = plane[0];
  ny = plane[1];
  nz = plane[2];
  return ok;
}

template <typename PointInT, typename PointOutT>
std::shared_ptr<const pcl_dise::Model> DeepIterativeNormalEstimation<PointInT, PointOutT>::getModel() {
  if (model_in_memory_) return model_;
  const std::string path = getModelPath();  // the default follows setKSearch
  if (model_ && path == loaded_model_path_) return model_;
  model_.reset();
  try {
    if (!std::ifstream(path).good()) throw std::runtime_error(pcl_dise::missingModelHelp(path));
    model_ = std::make_shared<const pcl_dise::Model>(pcl_dise::loadModel(path));
    loaded_model_path_ = path;
  } catch (const std::exception& e) {
    PCL_ERROR("[pcl::%s] %s\n", getClassName().c_str(), e.what());
  }
  return model_;
}

template <typename PointInT, typename PointOutT>
bool DeepIterativeNormalEstimation<PointInT, PointOutT>::initCompute() {
  output_nodes_.clear();
  node_to_surface_.clear();
  last_result_ = pcl_dise::ForwardResult{};
  if (!tree_) tree_.reset(new pcl_dise::search::Grid<PointInT>);  // cheap: Feature::initCompute indexes nothing
  if (!Feature<PointInT, PointOutT>::initCompute()) return false;
  auto fail = [this](const std::string& why) {
    PCL_ERROR("[pcl::%s::compute] %s\n", getClassName().c_str(), why.c_str());
    this->deinitCompute();
    return false;
  };
  for (const pcl::index_t i : *indices_)
    if (i < 0 || static_cast<std::size_t>(i) >= input_->size())
      return fail("index " + std::to_string(i) + " out of range for an input of " + std::to_string(input_->size()) +
                  " points");
  if (k_ < 0 || search_radius_ < 0) return fail("k and radius must not be negative");
  if (max_neighbors_ < 0) return fail("the neighbour cap must not be negative");
  if (iterations_ < 0) return fail("the number of iterations must not be negative");
  if (iterations_ > 0) {
    const std::string unavailable = pcl_dise::backendUnavailableMessage(backend_);
    if (!unavailable.empty()) return fail(unavailable);
    if (!getModel()) return fail("no model; see the message above");
  }
  return true;
}

template <typename PointInT, typename PointOutT>
bool DeepIterativeNormalEstimation<PointInT, PointOutT>::computeErrorBounds(const PointCloudOut& normals,
                                                                            std::vector<float>& degrees) {
  degrees.assign(normals.size(), std::numeric_limits<float>::quiet_NaN());
  const std::shared_ptr<const pcl_dise::Model> model = iterations_ > 0 ? getModel() : nullptr;
  const pcl_dise::ErrorCalibration calibration =
      model ? pcl_dise::errorCalibrationOf(*model) : pcl_dise::ErrorCalibration{};
  if (calibration.empty()) return false;
  for (std::size_t i = 0; i < normals.size(); ++i)
    degrees[i] = pcl_dise::normalErrorBound(calibration, normals[i].normal, normals[i].curvature);
  return true;
}

template <typename PointInT, typename PointOutT>
void DeepIterativeNormalEstimation<PointInT, PointOutT>::searchNeighborhood(const pcl::PointCloud<PointInT>& cloud,
                                                                            pcl::index_t index, pcl::Indices& neighbors,
                                                                            std::vector<float>& distances) const {
  // As pcl::NormalEstimation calls a search: the output vectors sized to the k asked for (PCL's
  // searches, and a user's written for them, fill them in place), the point itself counted.
  if (k_ > 0) {
    neighbors.resize(static_cast<std::size_t>(k_) + 1);
    distances.resize(static_cast<std::size_t>(k_) + 1);
    tree_->nearestKSearch(cloud, index, k_ + 1, neighbors, distances);
  } else {
    tree_->radiusSearch(cloud, index, search_radius_, neighbors, distances, 0);
  }
  if (distances.size() != neighbors.size()) distances.resize(neighbors.size(), std::numeric_limits<float>::max());
  // Nearest first (ties by index) so that caps and the 16-NN statistic are deterministic.
  std::vector<std::size_t> order(neighbors.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return distances[a] != distances[b] ? distances[a] < distances[b] : neighbors[a] < neighbors[b];
  });
  std::size_t keep = order.size();
  if (k_ == 0 && max_neighbors_ > 0) keep = std::min<std::size_t>(keep, max_neighbors_);
  pcl::Indices sorted_neighbors(keep);
  std::vector<float> sorted_distances(keep);
  for (std::size_t e = 0; e < keep; ++e) {
    sorted_neighbors[e] = neighbors[order[e]];
    sorted_distances[e] = distances[order[e]];
  }
  neighbors.swap(sorted_neighbors);
  distances.swap(sorted_distances);
}

template <typename PointInT, typename PointOutT>
void DeepIterativeNormalEstimation<PointInT, PointOutT>::computeFeature(PointCloudOut& output) {
  cancelled_ = false;
  surface_is_input_ = surface_ == input_;  // deinitCompute forgets a surface it set itself
  Nodes nodes = mapNodes();
  std::vector<float> positions = centredPositions(nodes);
  bool ok = false;
  if (estimatesWholeSurface(nodes)) {
    const std::vector<std::int32_t> node_of_former = numberAlongCurve(nodes, positions);
    ok = runOnWholeSurface(nodes, positions, node_of_former);
  } else {
    ok = runOnReceptiveField(nodes, positions);  // the forward pass orders the field along the curve
  }
  if (!ok) {
    output.width = output.height = 0;
    output.clear();
    output_nodes_.clear();
    return;
  }
  writeOutput(output);
}

template <typename PointInT, typename PointOutT>
bool DeepIterativeNormalEstimation<PointInT, PointOutT>::usesGridSearch() const {
  return dynamic_cast<const pcl_dise::search::Grid<PointInT>*>(tree_.get()) != nullptr;
}

template <typename PointInT, typename PointOutT>
bool DeepIterativeNormalEstimation<PointInT, PointOutT>::estimatesWholeSurface(const Nodes& nodes) const {
  // Where the output points are half the surface or more, their receptive field is the whole
  // surface but for a little, and one search of everything (on the device with Backend::Cuda)
  // costs less than hop-by-hop rounds. Either way gives the same bytes.
  const std::size_t outputs = static_cast<std::size_t>(
      std::count_if(output_nodes_.begin(), output_nodes_.end(), [](std::int32_t n) { return n >= 0; }));
  return 2 * outputs >= nodes.surface_count;
}

template <typename PointInT, typename PointOutT>
bool DeepIterativeNormalEstimation<PointInT, PointOutT>::runOnWholeSurface(
    const Nodes& nodes, const std::vector<float>& positions, const std::vector<std::int32_t>& node_of_former) {
  whole_surface_estimated_ = true;
  pcl_dise::ForwardInput input;
  input.points = positions.data();
  input.num_points = nodes.size();
  pcl_dise::NeighborSearch search;
  pcl_dise::Neighborhoods neighborhoods;
  std::vector<float> scales;
  if (usesGridSearch()) {
    search = gridSearch(nodes, node_of_former);
    input.search = &search;  // the forward pass searches (and measures the scales): on the device with Backend::Cuda
  } else {
    neighborhoods = userNeighborhoods(nodes, nullptr);
    input.neighborhoods = &neighborhoods;
    input.edge_scale = surfaceEdgeScale(nodes, positions, node_of_former);
    if (readsLocalScales()) {
      scales = surfaceEdgeScales(nodes, positions, node_of_former, input.edge_scale);
      input.edge_scales = scales.data();
    }
  }
  return runForwardPass(input);
}

template <typename PointInT, typename PointOutT>
bool DeepIterativeNormalEstimation<PointInT, PointOutT>::runOnReceptiveField(const Nodes& nodes,
                                                                             const std::vector<float>& positions) {
  whole_surface_estimated_ = false;
  const std::vector<std::int32_t> in_surface_order;  // nodes in surface order: ties by node are ties by surface index
  std::vector<std::int32_t> seeds;
  for (std::int32_t node : output_nodes_)
    if (node >= 0) seeds.push_back(node);
  if (nodes.surface_count == 0) seeds.clear();  // no neighbours: every output point gets NaN
  const pcl_dise::NeighborSearch search = gridSearch(nodes, in_surface_order);
  const int threads = pcl_dise::detail::resolveThreads(static_cast<int>(threads_));
  std::unique_ptr<pcl_dise::NeighborSearchIndex> grid;
  pcl_dise::ReceptiveField field;
  try {
    if (usesGridSearch() && !seeds.empty())
      grid = std::make_unique<pcl_dise::NeighborSearchIndex>(positions.data(), nodes.size(), search, threads);
    field = pcl_dise::receptiveField(
        positions.data(), nodes.size(), seeds, iterations_, [&](const std::vector<std::int32_t>& frontier) {
          return grid ? grid->rowsOf(frontier.data(), frontier.size(), threads) : userNeighborhoods(nodes, &frontier);
        });
  } catch (const std::exception& e) {
    PCL_ERROR("[pcl::%s::compute] %s\n", getClassName().c_str(), e.what());
    return false;
  }
  const float edge_scale = field.nodes.empty() ? 1.f : surfaceEdgeScale(nodes, positions, in_surface_order, grid.get());
  // From here on a node is a node of the field.
  std::vector<pcl::index_t> surface_of_field(field.nodes.size());
  for (std::size_t l = 0; l < field.nodes.size(); ++l)
    surface_of_field[l] =
        static_cast<std::size_t>(field.nodes[l]) < nodes.surface_count ? node_to_surface_[field.nodes[l]] : -1;
  node_to_surface_.swap(surface_of_field);
  std::size_t seed = 0;
  for (std::int32_t& node : output_nodes_)
    if (node >= 0) node = field.local_of_seed[seed++];
  pcl_dise::ForwardInput input;
  input.points = field.points.data();
  input.num_points = field.nodes.size();
  input.neighborhoods = &field.neighborhoods;
  input.last_iteration = field.last_iteration.data();
  input.edge_scale = edge_scale;
  // The local rule's scales of the field: a k-nearest grid's rows hold every node's 17 nearest
  // up to the hop that the iterations read; another search's do not, so the surface's are taken.
  std::vector<float> scales;
  if (readsLocalScales() && !field.nodes.empty()) {
    if (grid && k_ + 1 >= static_cast<int>(pcl_dise::kEdgeScaleNeighbors)) {
      scales = pcl_dise::localEdgeScales(field.points.data(), field.neighborhoods, edge_scale, threads);
    } else {
      const std::vector<float> surface = surfaceEdgeScales(nodes, positions, in_surface_order, edge_scale);
      for (const std::int32_t node : field.nodes) scales.push_back(surface[node]);
    }
    input.edge_scales = scales.data();
  }
  return runForwardPass(input, false);
}

template <typename PointInT, typename PointOutT>
typename DeepIterativeNormalEstimation<PointInT, PointOutT>::Nodes
DeepIterativeNormalEstimation<PointInT, PointOutT>::mapNodes() {
  const pcl::PointCloud<PointInT>& surface = *surface_;
  const pcl::PointCloud<PointInT>& input = *input_;
  Nodes nodes;
  nodes.of_surface.assign(surface.size(), -1);
  // Surface points at one position share the node of the first of them (iterations > 0: PCA
  // keeps PCL's rule, which counts every point).
  const std::vector<std::int32_t> first_at_position =
      iterations_ > 0 && !surface.empty()
          ? pcl_dise::firstAtSamePosition(surface[0].data, surface.size(), sizeof(PointInT))
          : std::vector<std::int32_t>{};
  for (std::size_t i = 0; i < surface.size(); ++i) {
    if (!pcl::isFinite(surface[i])) continue;
    const std::int32_t first = first_at_position.empty() ? static_cast<std::int32_t>(i) : first_at_position[i];
    if (static_cast<std::size_t>(first) != i) {
      nodes.of_surface[i] = nodes.of_surface[first];
      continue;
    }
    nodes.of_surface[i] = static_cast<std::int32_t>(node_to_surface_.size());
    node_to_surface_.push_back(static_cast<pcl::index_t>(i));
  }
  nodes.surface_count = node_to_surface_.size();
  std::vector<std::size_t> copies(first_at_position.empty() ? 0 : nodes.surface_count, 0);
  for (const std::int32_t node : nodes.of_surface)
    if (node >= 0 && !copies.empty()) ++copies[node];
  output_nodes_.assign(indices_->size(), -1);
  for (std::size_t idx = 0; idx < indices_->size(); ++idx) {
    const pcl::index_t p = (*indices_)[idx];
    if (!pcl::isFinite(input[p])) continue;
    if (surface_ == input_) {
      const std::int32_t node = nodes.of_surface[p];
      if (copies.empty() || !pcl_dise::copiesFillTheNeighborhood(copies[node], k_ > 0 ? k_ + 1 : 0))
        output_nodes_[idx] = node;
    } else {
      output_nodes_[idx] = static_cast<std::int32_t>(nodes.size());
      nodes.query_inputs.push_back(p);
    }
  }
  return nodes;
}

template <typename PointInT, typename PointOutT>
std::vector<float> DeepIterativeNormalEstimation<PointInT, PointOutT>::centredPositions(const Nodes& nodes) const {
  auto node_point = [&](std::size_t node) -> const PointInT& {
    return node < nodes.surface_count ? (*surface_)[node_to_surface_[node]]
                                      : (*input_)[nodes.query_inputs[node - nodes.surface_count]];
  };
  // Every finite surface point counts, twins too: the tiled run centres on the file's points
  // before it knows which repeat.
  pcl_dise::FloatCentroid centroid;
  for (std::size_t i = 0; i < nodes.of_surface.size(); ++i)
    if (nodes.of_surface[i] >= 0) centroid.add((*surface_)[i].data);
  const std::array<double, 3> c = centroid.centroid();
  std::vector<float> positions(3 * nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const std::array<float, 3> q = pcl_dise::centredOn(node_point(n).data, c);
    std::copy(q.begin(), q.end(), positions.begin() + 3 * n);
  }
  return positions;
}

template <typename PointInT, typename PointOutT>
std::vector<std::int32_t> DeepIterativeNormalEstimation<PointInT, PointOutT>::numberAlongCurve(
    Nodes& nodes, std::vector<float>& positions) {
  // One Morton order over the nodes, surface nodes kept first.
  std::vector<std::int32_t> old_of_new = pcl_dise::mortonOrder(positions.data(), nodes.size());
  std::stable_partition(old_of_new.begin(), old_of_new.end(),
                        [&](std::int32_t n) { return static_cast<std::size_t>(n) < nodes.surface_count; });
  std::vector<std::int32_t> new_of_old(nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) new_of_old[old_of_new[n]] = static_cast<std::int32_t>(n);

  std::vector<float> moved(positions.size());
  std::vector<pcl::index_t> surface_of_node(nodes.surface_count);
  std::vector<pcl::index_t> query_inputs(nodes.query_inputs.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const std::size_t old = static_cast<std::size_t>(old_of_new[n]);
    std::copy_n(positions.begin() + 3 * old, 3, moved.begin() + 3 * n);
    if (n < nodes.surface_count)
      surface_of_node[n] = node_to_surface_[old];
    else
      query_inputs[n - nodes.surface_count] = nodes.query_inputs[old - nodes.surface_count];
  }
  positions.swap(moved);
  node_to_surface_.swap(surface_of_node);
  nodes.query_inputs.swap(query_inputs);
  for (std::int32_t& node : nodes.of_surface)
    if (node >= 0) node = new_of_old[node];
  for (std::int32_t& node : output_nodes_)
    if (node >= 0) node = new_of_old[node];
  new_of_old.resize(nodes.surface_count);
  return new_of_old;
}

template <typename PointInT, typename PointOutT>
pcl_dise::NeighborSearch DeepIterativeNormalEstimation<PointInT, PointOutT>::gridSearch(
    const Nodes& nodes, const std::vector<std::int32_t>& node_of_former) const {
  pcl_dise::NeighborSearch search;
  if (k_ > 0) {
    search.k = static_cast<std::size_t>(k_) + 1;
  } else {
    search.radius = static_cast<float>(search_radius_);
    search.max_neighbors = static_cast<std::size_t>(max_neighbors_);
  }
  search.num_searched = nodes.surface_count;
  search.tie_order = node_of_former.empty() ? nullptr : node_of_former.data();
  return search;
}

template <typename PointInT, typename PointOutT>
pcl_dise::Neighborhoods DeepIterativeNormalEstimation<PointInT, PointOutT>::userNeighborhoods(
    const Nodes& nodes, const std::vector<std::int32_t>* which) const {
  const std::size_t count = which ? which->size() : nodes.size();
  std::vector<std::vector<std::int32_t>> rows(count);
  // Asked in node order (along the curve where the nodes are numbered so): consecutive searches
  // walk the same branches of the tree.
  const int threads = pcl_dise::detail::resolveThreads(static_cast<int>(threads_));
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256)
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(count); ++r) {
    const std::size_t n = which ? static_cast<std::size_t>((*which)[r]) : static_cast<std::size_t>(r);
    pcl::Indices neighbors;
    std::vector<float> distances;
    if (n < nodes.surface_count)
      searchNeighborhood(*surface_, node_to_surface_[n], neighbors, distances);
    else
      searchNeighborhood(*input_, nodes.query_inputs[n - nodes.surface_count], neighbors, distances);
    rows[r].reserve(neighbors.size());
    // Twins share a node and lie at one distance: each node is kept once, looked for among the
    // entries at the same distance.
    std::size_t same_distance_from = 0, same_distance_from_entry = 0;
    for (std::size_t e = 0; e < neighbors.size(); ++e) {
      const pcl::index_t j = neighbors[e];
      if (j < 0 || static_cast<std::size_t>(j) >= nodes.of_surface.size() || nodes.of_surface[j] < 0) continue;
      if (rows[r].empty() || distances[e] != distances[same_distance_from_entry]) {
        same_distance_from = rows[r].size();
        same_distance_from_entry = e;
      }
      const std::int32_t node = nodes.of_surface[j];
      if (std::find(rows[r].begin() + same_distance_from, rows[r].end(), node) == rows[r].end())
        rows[r].push_back(node);
    }
  }
  return pcl_dise::Neighborhoods::fromRows(rows);
}

template <typename PointInT, typename PointOutT>
float DeepIterativeNormalEstimation<PointInT, PointOutT>::surfaceEdgeScale(
    const Nodes& nodes, const std::vector<float>& positions, const std::vector<std::int32_t>& node_of_former,
    const pcl_dise::NeighborSearchIndex* grid) const {
  if (iterations_ == 0) return 1.f;  // iteration 0 does not read it
  // The surface's own 16 nearest of every surface point, ties by surface index, whatever search
  // finds the neighbourhoods: as the forward pass measures it for its own search. A k-nearest
  // grid of the surface has them already indexed.
  const int threads = static_cast<int>(threads_);
  if (grid && k_ > 0) return grid->edgeScale(threads);
  pcl_dise::NeighborSearch nearest;
  nearest.k = pcl_dise::kEdgeScaleNeighbors;
  nearest.tie_order = node_of_former.empty() ? nullptr : node_of_former.data();
  return pcl_dise::NeighborSearchIndex(positions.data(), nodes.surface_count, nearest, threads).edgeScale(threads);
}

template <typename PointInT, typename PointOutT>
bool DeepIterativeNormalEstimation<PointInT, PointOutT>::readsLocalScales() const {
  return iterations_ > 0 && model_ && pcl_dise::edgeScaleRule(*model_) == pcl_dise::EdgeScaleRule::Local;
}

template <typename PointInT, typename PointOutT>
std::vector<float> DeepIterativeNormalEstimation<PointInT, PointOutT>::surfaceEdgeScales(
    const Nodes& nodes, const std::vector<float>& positions, const std::vector<std::int32_t>& node_of_former,
    float fallback) const {
  if (nodes.surface_count == 0) return std::vector<float>(nodes.size(), fallback);
  const int threads = pcl_dise::detail::resolveThreads(static_cast<int>(threads_));
  pcl_dise::NeighborSearch nearest;
  nearest.k = pcl_dise::kEdgeScaleNeighbors;
  nearest.num_searched = nodes.surface_count;
  nearest.tie_order = node_of_former.empty() ? nullptr : node_of_former.data();
  const pcl_dise::Neighborhoods rows = pcl_dise::NeighborSearchIndex(positions.data(), nodes.size(), nearest, threads)
                                           .rowsOf(nullptr, nodes.size(), threads);
  return pcl_dise::localEdgeScales(positions.data(), rows, fallback, threads);
}

template <typename PointInT, typename PointOutT>
bool DeepIterativeNormalEstimation<PointInT, PointOutT>::runForwardPass(pcl_dise::ForwardInput input,
                                                                        bool along_curve) {
  // Nodes that already lie along the curve are visited in node order; others the forward pass
  // orders itself.
  std::vector<std::int32_t> in_node_order(along_curve ? input.num_points : 0);
  std::iota(in_node_order.begin(), in_node_order.end(), 0);
  if (along_curve) input.visit_order = in_node_order.data();
  pcl_dise::ForwardOptions options;
  options.iterations = iterations_;
  options.threads = pcl_dise::detail::resolveThreads(static_cast<int>(threads_));
  options.keep_iterations = store_iterations_;
  options.keep_kernel_weights = store_kernel_weights_;
  options.keep_neighborhoods = store_neighborhoods_;
  options.settle_degrees = settle_degrees_;
  options.precision = precision_;
  options.progress = progress_;
  try {
    static const pcl_dise::Model no_model;  // iteration 0 needs no weights
    last_result_ = pcl_dise::runForward(iterations_ > 0 ? *model_ : no_model, input, options, backend_);
  } catch (const pcl_dise::Cancelled&) {
    cancelled_ = true;
    return false;
  } catch (const std::exception& e) {
    PCL_ERROR("[pcl::%s::compute] %s\n", getClassName().c_str(), e.what());
    return false;
  }
  return true;
}

template <typename PointInT, typename PointOutT>
void DeepIterativeNormalEstimation<PointInT, PointOutT>::writeOutput(PointCloudOut& output) const {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  bool dense = true;
  const int threads = pcl_dise::detail::resolveThreads(static_cast<int>(threads_));
#pragma omp parallel for num_threads(threads) schedule(static) reduction(&& : dense)
  for (std::int64_t idx = 0; idx < static_cast<std::int64_t>(output.size()); ++idx) {
    const std::int32_t node = output_nodes_[idx];
    const float* n = node >= 0 ? &last_result_.normals[3 * node] : nullptr;
    if (!n || !std::isfinite(n[0])) {
      output[idx].normal_x = output[idx].normal_y = output[idx].normal_z = output[idx].curvature = nan;
      dense = false;
      continue;
    }
    float normal[3] = {n[0], n[1], n[2]};
    signNormal(idx, normal);
    output[idx].normal_x = normal[0];
    output[idx].normal_y = normal[1];
    output[idx].normal_z = normal[2];
    output[idx].curvature = last_result_.curvature[node];
  }
  output.is_dense = dense;
}

template <typename PointInT, typename PointOutT>
void DeepIterativeNormalEstimation<PointInT, PointOutT>::signNormal(std::size_t output_index, float* normal) const {
  const float viewpoint[3] = {vpx_, vpy_, vpz_};
  pcl_dise::signNormal(normal_sign_, viewpoint, (*input_)[(*indices_)[output_index]].data, normal);
}

template <typename PointInT, typename PointOutT>
bool DeepIterativeNormalEstimation<PointInT, PointOutT>::getIterationNormals(
    int iteration, pcl::PointCloud<pcl::Normal>& normals) const {
  const auto& stored = last_result_.iteration_normals;
  if (iteration < 0 || static_cast<std::size_t>(iteration) >= stored.size()) {
    PCL_ERROR(
        "[pcl::%s::getIterationNormals] iteration %d not stored (call setStoreIterations(true) before "
        "compute; %zu iterations stored)\n",
        getClassName().c_str(), iteration, stored.size());
    return false;
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  normals.resize(output_nodes_.size());
  normals.is_dense = true;
  for (std::size_t idx = 0; idx < output_nodes_.size(); ++idx) {
    const std::int32_t node = output_nodes_[idx];
    float n[3] = {nan, nan, nan};
    if (node >= 0) std::copy(&stored[iteration][3 * node], &stored[iteration][3 * node] + 3, n);
    if (std::isfinite(n[0]))
      signNormal(idx, n);
    else
      normals.is_dense = false;
    normals[idx] = pcl::Normal(n[0], n[1], n[2], nan);
  }
  return true;
}

template <typename PointInT, typename PointOutT>
bool DeepIterativeNormalEstimation<PointInT, PointOutT>::getKernelWeights(std::size_t output_index,
                                                                          pcl::Indices& surface_indices,
                                                                          std::vector<float>& weights) const {
  surface_indices.clear();
  weights.clear();
  if (output_index >= output_nodes_.size() || output_nodes_[output_index] < 0) return false;
  const std::int32_t node = output_nodes_[output_index];
  const pcl_dise::Neighborhoods& nb = last_result_.kernel_neighborhoods;
  if (static_cast<std::size_t>(node) >= nb.numNodes() || nb.size(node) == 0) return false;
  for (std::int64_t e = nb.offsets[node]; e < nb.offsets[node + 1]; ++e) {
    surface_indices.push_back(node_to_surface_[nb.indices[e]]);
    weights.push_back(last_result_.kernel_weights[e]);
  }
  return true;
}

template <typename PointInT, typename PointOutT>
pcl_dise::KnownNeighborhoods DeepIterativeNormalEstimation<PointInT, PointOutT>::getNeighborhoods() const {
  pcl_dise::KnownNeighborhoods known;
  const pcl_dise::Neighborhoods& rows = last_result_.kernel_neighborhoods;
  // One row per node; every node a surface point (no query-only nodes) where the surface is the input.
  if constexpr (std::is_same<pcl::index_t, std::int32_t>::value) {
    if (rows.numNodes() > 0 && rows.numNodes() == node_to_surface_.size() && surface_is_input_ &&
        whole_surface_estimated_) {
      known.rows = &rows;
      known.point_of_row = node_to_surface_.data();
    }
  }
  return known;
}

}  // namespace pcl

#define PCL_INSTANTIATE_DeepIterativeNormalEstimation(T, NT) \
  template class PCL_EXPORTS pcl::DeepIterativeNormalEstimation<T, NT>;
