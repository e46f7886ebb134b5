#pragma once
// One set of settings for a normals run, whichever front end asks for it (dise_normals, the
// MPI tool, dise_reconstruct, dise_viewer, Python, the ROS node): the neighbourhood, the model,
// the iterations, the backend, the threads, the adaptive mode, the precision and the orientation, validated in
// one place with one set of messages. NormalPipeline (feature/normal_pipeline.h) runs a cloud in
// memory from them, jobs::outOfCoreOptions (jobs/out_of_core_normals.h) a file in tiles.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "pcl_dise/core/errors.h"
#include "pcl_dise/core/forward.h"  // Backend
#include "pcl_dise/core/viewpoint.h"

namespace pcl_dise {

/** How the normals get their side. */
enum class Orientation {
  kViewpoint,  ///< "viewpoint": each normal faces the viewpoint (PCL's rule)
  kUp,         ///< "up": each normal faces +z (aerial LiDAR: the sensor above)
  kTree,       ///< "mst": one side for each connected part, along a minimum spanning tree
  kClosed,     ///< "closed": "mst", then each point takes the side an outside grid shows it
  kNone        ///< "none": the plane fit's own sign
};

/** "viewpoint, up, mst, closed or none": every orientation's name, for messages. */
const char* orientationNames();
/** The orientation named `name` (as above); throws OptionsError otherwise. */
Orientation orientationFromName(const std::string& name);
/** The orientation's name ("viewpoint", "up", "mst", "closed", "none"). */
const char* orientationName(Orientation orientation);
/** Whether the orientation decides over the whole cloud at once (mst, closed: the cloud in memory). */
bool orientsWholeCloud(Orientation orientation);
/** The per-point sign the estimation gives (the whole-cloud modes give none: kPlaneFit). */
NormalSign normalSignOf(Orientation orientation);

/** Everything a normals run is configured by. Defaults: the 64 nearest neighbours, 4 iterations
 *  of the shipped model, the native backend on every core, exact (no adaptive mode), normals
 *  facing the viewpoint. */
struct NormalSettings {
  int k = 0;              ///< neighbours per point, the point itself not counted (0: 64 unless radius is set)
  double radius = 0;      ///< > 0: every point closer than this instead of k nearest (k must be 0)
  int max_neighbors = 0;  ///< with radius: only the nearest this many (0: all)
  int iterations = 4;     ///< DISE iterations after the PCA, 0 .. 255 (0: plain PCA, no model)
  std::string model;      ///< model file; "": the shipped one for the neighbourhood (modelPath)
  Backend backend = Backend::Native;  ///< where the iterations run
  unsigned threads = 0;               ///< 0: every core
  double settle_degrees = 0;  ///< adaptive mode (adaptive_mode.h): stop a point turning less than this; 0: exact
  /// The native network's arithmetic: Float, or Bf16 (forward.h; native backend only)
  Precision precision = Precision::Float;
  Orientation orientation = Orientation::kViewpoint;  ///< how the normals get their side
  /// The viewpoint in the cloud's own coordinates (before any offset); none: the cloud's sensor
  /// origin (a PCD VIEWPOINT, or the origin)
  std::optional<std::array<double, 3>> viewpoint;
  int orientation_neighbors = 10;      ///< mst, closed: the neighbours of the spanning tree's graph
  std::int64_t orientation_seed = -1;  ///< mst, closed: a point whose normal is taken as oriented (-1: none)

  /** The k in use: k, or 64 where neither k nor radius is set, 0 for a radius search. */
  int neighbors() const { return radius > 0 ? 0 : (k > 0 ? k : 64); }
  /** model, or the shipped model for the neighbourhood (the k = 64 one for a radius search). */
  std::string modelPath() const;
  /** Throws OptionsError for a value out of range or a combination that cannot run (k and radius
   *  both, max_neighbors without radius, a viewpoint that is not finite, precision bf16 off the
   *  native backend), and, with
   *  check_model_file, FileError where iterations > 0 and the model file cannot be opened. The
   *  messages name the settings as this type, Python and the command line do (k, radius, ...). */
  void validate(bool check_model_file = true) const;
};

}  // namespace pcl_dise
