#pragma once
// The one way a front end runs normals on a cloud in memory: pcl::DeepIterativeNormalEstimation
// configured by NormalSettings, then the orientation they ask for (pcl::ConsistentNormalOrientation
// for mst and closed). dise_normals, dise_reconstruct, dise_viewer, dise_orient, Python and the ROS
// node run through it, so every setting means the same everywhere.
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <pcl/point_cloud.h>
#include <pcl/point_types.h>

#include "pcl_dise/core/normal_settings.h"
#include "pcl_dise/feature/deep_iterative_normal_estimation.h"
#include "pcl_dise/orientation/orientation_propagation.h"

namespace pcl_dise {

/** What one NormalPipeline::compute did. */
struct NormalsOutcome {
  std::size_t without_normal = 0;  ///< points left without a normal (NaN)
  bool cancelled = false;          ///< the progress callback or Ctrl-C stopped it; the normals are empty
  bool oriented = false;           ///< the whole-cloud orientation ran (mst, closed)
  OrientationReport orientation;   ///< its report, where it ran
  /// Where it ran: how sure each point's side is, in [0, 1], one per point (NaN without a normal;
  /// orientation_propagation.h's `confidence`); empty otherwise
  std::vector<float> confidence;
  bool seeded_at_viewpoint = false;  ///< it seeded each part at the viewpoint (not at the topmost point)
  double orientation_seconds = 0;    ///< wall-clock time of the whole-cloud orientation, where it ran
};

/** NormalSettings applied to clouds in memory. The settings are validated and the model loaded
 *  once, on construction; compute() then runs any number of clouds. */
class NormalPipeline {
 public:
  using Estimator = pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal>;  ///< the feature it runs

  /** \param[in] settings validated here (OptionsError, FileError)
   *  \param[in] model a model already loaded, to share between pipelines; nullptr: loaded from
   *  settings.modelPath() where settings.iterations > 0 (FileError where it cannot be) */
  explicit NormalPipeline(const NormalSettings& settings, std::shared_ptr<const Model> model = nullptr);

  const NormalSettings& settings() const { return settings_; }  ///< as validated
  /** The model file loaded ("" where no model was loaded: iterations 0, or a model passed in). */
  const std::string& modelPath() const { return model_path_; }
  /** The model in use (nullptr for iterations 0). */
  const std::shared_ptr<const Model>& model() const { return model_; }

  /** Called through the estimation (the feature's stages) and once more, stage "orientation",
   *  before a whole-cloud orientation; false stops the run (NormalsOutcome::cancelled). */
  void setProgressCallback(ProgressCallback progress) {
    progress_ = progress;
    estimator_.setProgressCallback(std::move(progress));
  }

  /** The estimator compute() configures and runs: set what the settings do not cover on it
   *  (setStoreIterations, setStoreKernelWeights, setIndices) and read what it keeps
   *  (getIterationNormals, getKernelWeights) after compute(). */
  Estimator& estimator() { return estimator_; }

  /** The estimation, then the orientation the settings ask for (a whole-cloud orientation reads
   *  the estimation's neighbourhoods instead of searching again: the sides orient() gives).
   *  \param[in] cloud N points in a local frame: the cloud's coordinates minus `offset`; its
   *  sensor_origin_ (in the same frame) is the viewpoint where the settings give none
   *  \param[out] normals N normals and curvatures (NaN where a point gets none), or one per index;
   *  empty where cancelled
   *  \param[in] offset what was subtracted from the cloud's coordinates (settings.viewpoint is in
   *  the cloud's own coordinates)
   *  \param[in] indices the points whose normals are wanted (nullptr: every point): `normals`
   *  then holds one per index, and only their receptive field is estimated, the same bytes as
   *  for the whole cloud (the feature's setIndices)
   *  \throws std::runtime_error where the estimation fails (the feature's PCL_ERROR says why);
   *  OptionsError for indices with an orientation of the whole cloud (mst, closed) */
  NormalsOutcome compute(const pcl::PointCloud<pcl::PointXYZ>::ConstPtr& cloud, pcl::PointCloud<pcl::Normal>& normals,
                         const std::array<double, 3>& offset = {0, 0, 0}, const pcl::IndicesPtr& indices = nullptr);

  /** The whole-cloud orientation alone, on normals made by any estimator (dise_orient): mst, or
   *  closed (any other orientation runs as mst). Seeds: settings.orientation_seed, else the
   *  viewpoint where one is known (settings.viewpoint, or a sensor origin other than the cloud's
   *  coordinate origin), else each part's topmost point facing +z.
   *  \param[in] cloud, offset as for compute
   *  \param[in,out] normals one per point; only signs change
   *  \throws OptionsError for a seed outside the cloud, std::runtime_error for a size mismatch */
  NormalsOutcome orient(const pcl::PointCloud<pcl::PointXYZ>::ConstPtr& cloud, pcl::PointCloud<pcl::Normal>& normals,
                        const std::array<double, 3>& offset = {0, 0, 0}) const;

 private:
  // orient(), reading the neighbourhoods `known` where given (the estimation's, in compute()).
  NormalsOutcome orient(const pcl::PointCloud<pcl::PointXYZ>::ConstPtr& cloud, pcl::PointCloud<pcl::Normal>& normals,
                        const std::array<double, 3>& offset, const KnownNeighborhoods& known) const;

  NormalSettings settings_;
  std::shared_ptr<const Model> model_;
  std::string model_path_;
  ProgressCallback progress_;
  Estimator estimator_;
};

}  // namespace pcl_dise
