#pragma once
// How the tools report a whole-cloud orientation (dise_normals --orient mst/closed, dise_orient,
// dise_reconstruct, dise_viewer).
#include <string>

#include "pcl_dise/core/normal_settings.h"
#include "pcl_dise/feature/normal_pipeline.h"

namespace pcl_dise {
namespace tools {

/** The orientation's report as lines to print ("" where outcome.oriented is false): the tree,
 *  its parts and seeds, the points flipped, and for closed shapes the outside grid's sides with
 *  a warning where many are undecided. */
std::string orientationText(const NormalSettings& settings, const NormalsOutcome& outcome);

}  // namespace tools
}  // namespace pcl_dise
