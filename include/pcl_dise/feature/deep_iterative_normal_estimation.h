#pragma once
// pcl::DeepIterativeNormalEstimation: DISE normals (Lenssen et al., CVPR 2020) as a drop-in
// replacement for pcl::NormalEstimation.
#include <memory>
#include <string>
#include <vector>

#include <pcl/features/feature.h>
#include <pcl/features/normal_3d.h>

#include "pcl_dise/core/error_bound.h"
#include "pcl_dise/core/forward.h"
#include "pcl_dise/core/model.h"
#include "pcl_dise/core/viewpoint.h"

namespace pcl {

/** Estimates surface normals and curvature by DISE: a PCA plane fit (iteration 0) followed by
 *  `iterations` weighted plane fits whose weights a small graph network predicts from the
 *  previous iteration.
 *
 *  Same API and output as pcl::NormalEstimation: setInputCloud, setIndices, setSearchSurface,
 *  setSearchMethod, setKSearch / setRadiusSearch (exactly one), setViewPoint,
 *  useSensorOriginAsViewPoint, compute. normal_x/y/z and curvature are written; normals are
 *  flipped towards the viewpoint (unless setFlipTowardsViewPoint(false)). A point gets a normal
 *  exactly where pcl::NormalEstimation gives one: it is finite and its own neighbourhood holds 3 or
 *  more finite points with spread (not all at one position); elsewhere NaN, and the output's
 *  is_dense is false. A neighbour without a normal stays in the neighbourhood: its position enters
 *  the fits, and the network reads "no normal" for it (docs/algorithm.md).
 *
 *  Repeated positions: with iterations > 0, surface points stored more than once at one position
 *  (merged scans, a cloud saved twice) are one point to the estimation, the first of them standing
 *  for the rest: a neighbourhood holds k distinct positions (a user's search method is asked for
 *  k + 1 points as always, and twins among them count once), the edge scale counts each position
 *  once, and every copy gets that point's normal; a cloud stored twice gives each copy the
 *  cloud's own normals. With setIterations(0), PCL's rule: every stored point counts.
 *
 *  Neighbourhoods: setKSearch(k) uses the k nearest neighbours **plus the point itself**, the same
 *  k+1 points as pcl::NormalEstimation::setKSearch(k+1) (the paper's "k = 64" is setKSearch(64)); a
 *  search method of the user's is asked nearestKSearch(cloud, index, k + 1, indices, distances) with
 *  both vectors already sized k + 1, as PCL's features ask (docs/cpp_api.md says how k relates to the
 *  neighbourhood).
 *  setRadiusSearch(r) uses every point within r (the point itself included), optionally only the
 *  nearest setMaxNeighbors(n) of them.
 *
 *  Search: without setSearchMethod (or with a pcl_dise::search::Grid) the neighbourhoods come from
 *  the grid search (pcl_dise/core/grid_search.h): exact, every point's neighbours found in one parallel
 *  pass. A search method the user sets (a pcl::search::KdTree, an OrganizedNeighbor) is used as
 *  given, one query per point.
 *
 *  Georeferenced data: the feature works relative to the cloud's centroid, but a pcl::PointCloud
 *  holds floats, whose step at UTM-sized coordinates (5e6) is 0.5: read such coordinates in
 *  double and subtract an offset before filling the cloud (as dise_normals does;
 *  docs/command_line.md, "Georeferenced clouds"); normals do not change under the translation.
 *
 *  A point's normal reads its neighbours' previous normals, L iterations deep: with setIndices, or
 *  a search surface larger than the input, only the output points' receptive field is searched and
 *  estimated (core/receptive_field.h), and each output point gets the same bytes as estimating the
 *  whole surface would give it. The edge scale is always the whole surface's. With setIterations(0)
 *  the result is PCL's PCA and no model is needed.
 *
 *  Errors (compute returns an empty cloud, as PCL's features do, after PCL_ERROR says why): both
 *  or neither of k and radius set, an empty input, a model that cannot be loaded, a backend that
 *  this build or machine lacks. */
template <typename PointInT, typename PointOutT>
class DeepIterativeNormalEstimation : public Feature<PointInT, PointOutT> {
 public:
  using Ptr = shared_ptr<DeepIterativeNormalEstimation<PointInT, PointOutT>>;             ///< shared pointer
  using ConstPtr = shared_ptr<const DeepIterativeNormalEstimation<PointInT, PointOutT>>;  ///< shared const pointer
  using Feature<PointInT, PointOutT>::feature_name_;
  using Feature<PointInT, PointOutT>::getClassName;
  using Feature<PointInT, PointOutT>::indices_;
  using Feature<PointInT, PointOutT>::input_;
  using Feature<PointInT, PointOutT>::surface_;
  using Feature<PointInT, PointOutT>::tree_;
  using Feature<PointInT, PointOutT>::k_;
  using Feature<PointInT, PointOutT>::search_radius_;
  using Feature<PointInT, PointOutT>::search_parameter_;

  using PointCloudOut = typename Feature<PointInT, PointOutT>::PointCloudOut;            ///< the output cloud
  using PointCloudConstPtr = typename Feature<PointInT, PointOutT>::PointCloudConstPtr;  ///< an input cloud

  /** \brief As pcl::NormalEstimation() and pcl::NormalEstimationOMP(nr_threads).
   *  \param[in] nr_threads threads for search and inference, as setNumberOfThreads (0: all) */
  explicit DeepIterativeNormalEstimation(unsigned int nr_threads = 0) : threads_(nr_threads) {
    feature_name_ = "DeepIterativeNormalEstimation";
  }
  ~DeepIterativeNormalEstimation() override = default;

  // ---- pcl::NormalEstimation's API ----

  /** PCA plane of one neighbourhood (cloud indices), as pcl::NormalEstimation: plane_parameters
   *  = (n, -n . centroid), n with docs/algorithm.md's sign rule; false and NaN for < 3 points or no spread. */
  bool computePointNormal(const pcl::PointCloud<PointInT>& cloud, const pcl::Indices& indices,
                          Eigen::Vector4f& plane_parameters, float& curvature);
  /** \brief The same as the normal's three components: nx, ny, nz and the curvature (NaN and
   *  false where there is no plane). */
  bool computePointNormal(const pcl::PointCloud<PointInT>& cloud, const pcl::Indices& indices, float& nx, float& ny,
                          float& nz, float& curvature);

  /** \brief The input cloud; its sensor origin becomes the viewpoint unless setViewPoint was called. */
  void setInputCloud(const PointCloudConstPtr& cloud) override {
    input_ = cloud;
    if (use_sensor_origin_ && input_) setViewPointFromSensorOrigin();
  }
  /** \brief The viewpoint normals are flipped towards (the input's coordinates). */
  void setViewPoint(float vpx, float vpy, float vpz) {
    vpx_ = vpx;
    vpy_ = vpy;
    vpz_ = vpz;
    use_sensor_origin_ = false;
  }
  /** \brief The viewpoint in use. */
  void getViewPoint(float& vpx, float& vpy, float& vpz) const {
    vpx = vpx_;
    vpy = vpy_;
    vpz = vpz_;
  }
  /** Whether normals are flipped towards the viewpoint (default true, as pcl::NormalEstimation).
   *  false keeps the plane fit's own sign (docs/algorithm.md), for an orientation step of one's
   *  own (pcl::ConsistentNormalOrientation). */
  void setFlipTowardsViewPoint(bool flip) {
    normal_sign_ = flip ? pcl_dise::NormalSign::kTowardsViewpoint : pcl_dise::NormalSign::kPlaneFit;
  }
  /// see setFlipTowardsViewPoint
  bool getFlipTowardsViewPoint() const { return normal_sign_ == pcl_dise::NormalSign::kTowardsViewpoint; }
  /** How normals get their sign (core/viewpoint.h): towards the viewpoint (the default), up
   *  (+z: aerial LiDAR, where the sensor is above and a LAS file has no sensor pose) or the
   *  plane fit's own. setFlipTowardsViewPoint sets the first or the last. */
  void setNormalSign(pcl_dise::NormalSign sign) { normal_sign_ = sign; }
  pcl_dise::NormalSign getNormalSign() const { return normal_sign_; }  ///< see setNormalSign
  /** \brief Takes the input's sensor origin as the viewpoint again (the default). */
  void useSensorOriginAsViewPoint() {
    use_sensor_origin_ = true;
    if (input_)
      setViewPointFromSensorOrigin();
    else
      vpx_ = vpy_ = vpz_ = 0.f;
  }

  // ---- DISE ----

  /** Model file (.safetensors), loaded at the next compute. By default, or with an empty path,
   *  the shipped model for the k in use: pcl_dise::defaultModelPath(k) for setKSearch(k), the
   *  k = 64 model for a radius search. */
  void setModelPath(const std::string& path) {
    model_path_ = path;
    model_in_memory_ = false;
    model_.reset();
  }
  /** The model file the next compute uses (see setModelPath); empty after setModel. */
  std::string getModelPath() const {
    if (model_in_memory_) return {};
    return pcl_dise::modelPathOrDefault(model_path_, k_);
  }
  /** Uses an in-memory model instead of a file. */
  void setModel(std::shared_ptr<const pcl_dise::Model> model) {
    model_ = std::move(model);
    model_path_.clear();
    model_in_memory_ = true;
  }
  /** The model in use (loaded on demand); nullptr with PCL_ERROR if it cannot be loaded. */
  std::shared_ptr<const pcl_dise::Model> getModel();

  /** Number of DISE iterations L after the PCA (default 4; 0 gives PCA). */
  void setIterations(int iterations) { iterations_ = iterations; }
  int getIterations() const { return iterations_; }  ///< see setIterations

  /** Threads for search and inference (0, the default: all hardware threads). */
  void setNumberOfThreads(unsigned int threads) { threads_ = threads; }
  unsigned int getNumberOfThreads() const { return threads_; }  ///< see setNumberOfThreads

  /** Adaptive mode (native and CUDA backends, one rule: core/adaptive_mode.h): a point whose
   *  normal turns by less than `degrees` in an iteration stops iterating, and its neighbours read
   *  its last state. Faster where most of a cloud settles early (planar parts); 0, the default,
   *  runs every point every iteration. The LibTorch backend refuses it (PCL_ERROR, empty output). */
  void setSettleAngle(double degrees) { settle_degrees_ = degrees; }
  double getSettleAngle() const { return settle_degrees_; }  ///< see setSettleAngle

  /** The native backend's arithmetic (core/forward.h): Precision::Float (default) or
   *  Precision::Bf16, the edge MLPs' products in bfloat16 where the processor has AVX512_BF16
   *  (elsewhere float, said once on stderr); docs/benchmarks.md, section "bfloat16", gives its
   *  speed and accuracy. The other backends refuse Bf16 (PCL_ERROR, empty output). */
  void setPrecision(pcl_dise::Precision precision) { precision_ = precision; }
  pcl_dise::Precision getPrecision() const { return precision_; }  ///< see setPrecision

  /** \brief Progress of compute() (core/progress.h): the share of iteration 0 and the iterations
   *  done, after the search. Answering false stops compute(), which then leaves the output empty,
   *  as on failure, and wasCancelled() is true; nothing is printed.
   *  \param[in] progress the callback (an empty one: none) */
  void setProgressCallback(pcl_dise::ProgressCallback progress) { progress_ = std::move(progress); }

  /** \brief Whether the last compute() was stopped by the progress callback. */
  bool wasCancelled() const { return cancelled_; }

  /** \brief The backend the iterations run on (native CPU by default; torch, cuda where built). */
  void setBackend(pcl_dise::Backend backend) { backend_ = backend; }
  pcl_dise::Backend getBackend() const { return backend_; }  ///< see setBackend

  /** Radius search only: keep at most the nearest n points of each neighbourhood, the point
   *  itself included (0, the default: no cap). */
  void setMaxNeighbors(int max_neighbors) { max_neighbors_ = max_neighbors; }
  int getMaxNeighbors() const { return max_neighbors_; }  ///< see setMaxNeighbors

  /** Keep every iteration's normals at the next compute (for getIterationNormals). */
  void setStoreIterations(bool store) { store_iterations_ = store; }

  /** Keep the kernel weights at the next compute (for getKernelWeights; true, the default).
   *  false saves 8 bytes per neighbour, and with the CUDA backend their copy from the device. */
  void setStoreKernelWeights(bool store) { store_kernel_weights_ = store; }

  /** Keep the neighbourhoods at the next compute even without the kernel weights (for
   *  getNeighborhoods; 4 bytes per neighbour; false, the default). */
  void setStoreNeighborhoods(bool store) { store_neighborhoods_ = store; }

  /** Normals after `iteration` (0 = PCA .. L) for the points of the last compute, flipped
   *  towards the viewpoint, curvature NaN. False (with PCL_ERROR) unless setStoreIterations(true)
   *  was set for that compute and iteration is in range. */
  bool getIterationNormals(int iteration, pcl::PointCloud<pcl::Normal>& normals) const;

  /** \brief Each normal's error bound (docs/models.md, "Error bounds"): the angle in degrees within
   *  which the normal lies with the probability the model's calibration states (90% for the
   *  shipped models), read from the normal's curvature (pcl_dise/core/error_bound.h).
   *  \param[in] normals the output of a compute with these settings (its curvature is read)
   *  \param[out] degrees one per normal; NaN where a normal has none
   *  \return false (degrees all NaN) where the model carries no calibration or iterations is 0
   *  (PCA's normals are not what it was calibrated on) */
  bool computeErrorBounds(const PointCloudOut& normals, std::vector<float>& degrees);

  /** The last iteration's kernel weights of the neighbourhood of output point `output_index`
   *  (the paper's interpretability view): indices into the search surface and their weights,
   *  which sum to 1. False where that point has no normal, nothing was computed, or
   *  setStoreKernelWeights(false) was set for that compute. */
  bool getKernelWeights(std::size_t output_index, pcl::Indices& surface_indices, std::vector<float>& weights) const;

  /** The last compute's neighbourhoods (those of the iterations: points without a normal left
   *  out), for a later stage on the same cloud to read instead of searching again
   *  (pcl::ConsistentNormalOrientation::setNeighborhoods). Rows belong to input points; valid until
   *  the next compute. None (rows nullptr) unless setStoreKernelWeights(true), the default, or
   *  setStoreNeighborhoods(true) was set for that compute and the search surface was the input. */
  pcl_dise::KnownNeighborhoods getNeighborhoods() const;
  /** Frees the neighbourhoods setStoreNeighborhoods(true) kept, where the kernel weights (which
   *  getKernelWeights reads with them) were not kept: 4 bytes per neighbour. */
  void releaseNeighborhoods() {
    if (last_result_.kernel_weights.empty()) last_result_.kernel_neighborhoods = pcl_dise::Neighborhoods();
  }

 protected:
  /** \brief Checks the settings (k or radius, the model, the backend) before compute. */
  bool initCompute() override;
  /** \brief The estimation's stages: nodes, centring, Morton order, search, edge scale, forward pass, output. */
  void computeFeature(PointCloudOut& output) override;

 private:
  void setViewPointFromSensorOrigin() {
    vpx_ = input_->sensor_origin_.coeff(0);
    vpy_ = input_->sensor_origin_.coeff(1);
    vpz_ = input_->sensor_origin_.coeff(2);
  }
  /** The points the forward pass works on ("nodes"): the finite surface points, one per position
   *  with iterations > 0 (twins share the first one's node), then (with a separate search
   *  surface) the finite query points. */
  struct Nodes {
    std::vector<std::int32_t> of_surface;    ///< node of each surface point, -1 for non-finite ones
    std::size_t surface_count = 0;           ///< nodes [0, surface_count) are surface points
    std::vector<pcl::index_t> query_inputs;  ///< input index of each query-only node
    std::size_t size() const { return surface_count + query_inputs.size(); }
  };

  // computeFeature's stages, in order.
  /** Fills node_to_surface_ and output_nodes_; returns the nodes. */
  Nodes mapNodes();
  /** Node positions (nodes x 3) relative to the surface's centroid, so that float keeps the
   *  precision of georeferenced coordinates. */
  std::vector<float> centredPositions(const Nodes& nodes) const;
  /** Renumbers the nodes along a Morton curve, surface nodes first (nodes, positions,
   *  node_to_surface_, output_nodes_): every later stage reads neighbouring nodes' data close
   *  together in memory, whatever order the cloud came in. Returns the new node of each former
   *  surface node (surface_count entries; former numbers are in surface order). */
  std::vector<std::int32_t> numberAlongCurve(Nodes& nodes, std::vector<float>& positions);
  /** Whether the output points are so many that every node is estimated (one search of all,
   *  runOnWholeSurface) rather than their receptive field alone (runOnReceptiveField). */
  bool estimatesWholeSurface(const Nodes& nodes) const;
  /** The forward pass over every node. */
  bool runOnWholeSurface(const Nodes& nodes, const std::vector<float>& positions,
                         const std::vector<std::int32_t>& node_of_former);
  /** The forward pass over the output nodes' receptive field (core/receptive_field.h), searched
   *  hop by hop: the same bytes as runOnWholeSurface at a cost that follows the output. Leaves
   *  node_to_surface_ and output_nodes_ numbered as the field's nodes. */
  bool runOnReceptiveField(const Nodes& nodes, const std::vector<float>& positions);
  /** Whether the search method is the default grid (pcl_dise::search::Grid). */
  bool usesGridSearch() const;
  /** The default grid search: among the surface nodes, ties in distance by surface index.
   *  node_of_former: numberAlongCurve's result, which must outlive the search (empty: the nodes
   *  are in surface order). */
  pcl_dise::NeighborSearch gridSearch(const Nodes& nodes, const std::vector<std::int32_t>& node_of_former) const;
  /** Neighbourhoods by the user's search method, as node indices, nearest first, ties by surface
   *  index: row r of node (*which)[r], or of node r for which == nullptr. */
  pcl_dise::Neighborhoods userNeighborhoods(const Nodes& nodes, const std::vector<std::int32_t>* which) const;
  /** The edge scale of the whole surface (docs/algorithm.md): over every surface node's 16
   *  nearest surface nodes plus itself, found by the grid whatever the search method (`grid`,
   *  the search's k-nearest index where there is one, else one of its own). */
  float surfaceEdgeScale(const Nodes& nodes, const std::vector<float>& positions,
                         const std::vector<std::int32_t>& node_of_former,
                         const pcl_dise::NeighborSearchIndex* grid = nullptr) const;
  /** Whether the iterations read a scale per node: the model's rule is local (EdgeScaleRule). */
  bool readsLocalScales() const;
  /** Every node's own edge scale under the local rule (localEdgeScales): from its 17 nearest
   *  surface nodes and theirs, ties by surface index, whatever the search method; `fallback`
   *  where a node's statistic is zero. */
  std::vector<float> surfaceEdgeScales(const Nodes& nodes, const std::vector<float>& positions,
                                       const std::vector<std::int32_t>& node_of_former, float fallback) const;
  /** runForward into last_result_; false, with a PCL_ERROR, where it fails. along_curve: the
   *  nodes lie along the curve already (numberAlongCurve), else the forward pass orders them. */
  bool runForwardPass(pcl_dise::ForwardInput input, bool along_curve = true);
  /** Normals flipped towards the viewpoint and curvature per output point, NaN where none. */
  void writeOutput(PointCloudOut& output) const;

  /** Neighbourhood of a query point as node indices (k+1 nearest or radius, capped). */
  void searchNeighborhood(const pcl::PointCloud<PointInT>& cloud, pcl::index_t index, pcl::Indices& neighbors,
                          std::vector<float>& distances) const;
  void signNormal(std::size_t output_index, float* normal) const;

  float vpx_ = 0.f, vpy_ = 0.f, vpz_ = 0.f;
  bool use_sensor_origin_ = true;
  pcl_dise::NormalSign normal_sign_ = pcl_dise::NormalSign::kTowardsViewpoint;
  std::string model_path_;         ///< empty: the default model for the k in use
  bool model_in_memory_ = false;   ///< set by setModel
  std::string loaded_model_path_;  ///< the file model_ came from
  std::shared_ptr<const pcl_dise::Model> model_;
  int iterations_ = 4;
  double settle_degrees_ = 0;
  pcl_dise::Precision precision_ = pcl_dise::Precision::Float;
  pcl_dise::ProgressCallback progress_;
  bool cancelled_ = false;
  unsigned int threads_;
  pcl_dise::Backend backend_ = pcl_dise::Backend::Native;
  int max_neighbors_ = 0;
  bool store_iterations_ = false;
  bool store_kernel_weights_ = true;
  bool store_neighborhoods_ = false;

  /// Results of the last compute, for getIterationNormals / getKernelWeights.
  std::vector<std::int32_t> output_nodes_;     ///< node of each output point, -1 for none
  std::vector<pcl::index_t> node_to_surface_;  ///< surface index of each node, -1 for query-only nodes
  pcl_dise::ForwardResult last_result_;
  bool surface_is_input_ = false;         ///< the last compute searched the input itself
  bool whole_surface_estimated_ = false;  ///< the last compute estimated every node (getNeighborhoods)
};

}  // namespace pcl

#ifdef PCL_NO_PRECOMPILE
#include "pcl_dise/feature/impl/deep_iterative_normal_estimation.hpp"
#endif
