#pragma once
// What dise_viewer shows, without a window: the cloud in its local frame, its finite points, the
// ground truth, PCA's and DISE's estimates per iteration (computed when first asked for), the
// colours of each colouring and the angle error. The window (viewer_window.h) draws from here.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <pcl/kdtree/kdtree_flann.h>
#include <pcl/point_cloud.h>
#include <pcl/point_types.h>

#include "pcl_dise/core/normal_settings.h"
#include "pcl_dise/io/cloud_io.h"
#include "viewer/color_maps.h"

namespace pcl_dise {
namespace viewer {

using Cloud = pcl::PointCloud<pcl::PointXYZ>;
using Normals = pcl::PointCloud<pcl::Normal>;

/** What colours the points. */
enum class ColorBy { kNormal, kError, kWeights, kCurvature, kBound };
/** The colourings by name: "normal", "error", "weights", "curvature", "bound". */
const std::map<std::string, ColorBy>& colorModes();
/** A colouring's name. */
std::string modeName(ColorBy mode);

/** What the scene is made of. */
struct SceneOptions {
  std::string input;         ///< the cloud (.pcd, .ply, .las, .laz, .xyz)
  std::string ground_truth;  ///< its true normals (.normals), or "" for none
  NormalSettings settings;   ///< k, iterations, model, threads, orientation (DISE's; PCA's k + 1 points)
};

/** One method's result on the scene: DISE after some iterations, or PCA. */
struct Estimate {
  Normals normals;  ///< one per point of the cloud, NaN where none
  /// A point's neighbourhood and its kernel weights (indices into the cloud); false where none.
  std::function<bool(std::size_t, pcl::Indices&, std::vector<float>&)> weights;
  /// Each normal's error bound in degrees (docs/models.md#error-bounds); NaN where it has none
  /// (PCA, or a model without a calibration).
  std::vector<float> bounds;
};

/** The cloud, its truth and its estimates (see the file's comment). */
class Scene {
 public:
  /** Reads the cloud (and the truth), loads the model once. Throws std::runtime_error for fewer
   *  than 3 finite points or a truth of another size, OptionsError and FileError as the settings do. */
  explicit Scene(const SceneOptions& options);

  const Cloud& cloud() const { return *cloud_; }                ///< the local frame shown
  const pcl::Indices& finitePoints() const { return finite_; }  ///< indices of the finite points
  const Normals* truth() const { return truth_.get(); }         ///< the true normals, or nullptr
  const Eigen::Vector3f& low() const { return low_; }           ///< the finite points' box
  const Eigen::Vector3f& high() const { return high_; }         ///< the finite points' box
  float diagonal() const { return diagonal_; }                  ///< the box's diagonal
  const NormalSettings& settings() const { return settings_; }  ///< as validated
  /** Whether the cloud comes with the pose of the sensor that took it: a PCD VIEWPOINT other
   *  than the default, or an organized scan (whose sensor sits at its VIEWPOINT, the origin by
   *  default). A LAS or LAZ file states no pose: its survey's sensor flew above it. */
  bool hasSensorPose() const;
  /** Whether the cloud is a LiDAR file (LAS, LAZ): a survey seen from above. */
  bool isAerialSurvey() const { return !local_.las_source.empty(); }

  /** DISE after `iteration` iterations (0: PCA by PCL itself, with k + 1 points), oriented as the
   *  settings say; computed on first use and kept. Prints a whole-cloud orientation's report. */
  const Estimate& estimate(int iteration);
  /** The finite point nearest the centroid: the default pick. */
  std::size_t centralPoint() const;

 private:
  std::unique_ptr<Estimate> computePca();
  std::unique_ptr<Estimate> computeDise(int iterations);
  void orientPca(Normals& normals) const;

  NormalSettings settings_;
  io::LocalCloud local_;
  Cloud::Ptr cloud_;
  Normals::Ptr truth_;
  pcl::Indices finite_;
  pcl::KdTreeFLANN<pcl::PointXYZ> tree_;
  float diagonal_ = 1;
  Eigen::Vector3f low_, high_;
  std::shared_ptr<const Model> model_;
  std::map<int, std::unique_ptr<Estimate>> cache_;
};

/** Colours of the finite points (in finitePoints() order) under `mode`: the normal's direction,
 *  the angle error to the truth (saturating at max_error degrees; needs a truth), the kernel
 *  weights of point `pick`'s neighbourhood, the curvature, or the error bound (on the error's scale). */
std::vector<Rgb> colorPoints(const Scene& scene, const Estimate& e, ColorBy mode, std::size_t pick, double max_error);

/** RMSE (degrees) of the unoriented angle between an estimate's normals and the truth over the
 *  finite points (a missing normal counts 90 degrees, as in dise_eval); the scene needs a truth. */
double rmseDegrees(const Scene& scene, const Estimate& e);

}  // namespace viewer
}  // namespace pcl_dise
