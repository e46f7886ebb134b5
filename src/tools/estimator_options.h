#pragma once
// The estimator's options, one vocabulary for every tool that estimates normals (dise_normals,
// dise_normals_mpi, dise_viewer, dise_reconstruct): made from the settings' declarations
// (core/setting_declarations.h), so that every tool has the same names, meanings, defaults and
// help as Python and the ROS node, and the JSON report the same keys.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "pcl_dise/core/normal_settings.h"
#include "pcl_dise/core/setting_declarations.h"

namespace pcl_dise {
namespace tools {

/** The settings given on the command line, by declaration name, as typed. */
struct EstimatorOptions {
  std::map<std::string, std::string> given;

  /** \brief The settings given, read into `settings` (its other fields left as they are).
   *  \throws OptionsError naming the setting whose text is not of its kind (NormalSettings::validate
   *  checks the ranges and rules) */
  void applyTo(NormalSettings& settings) const;
  /** Whether the setting called `name` was given. */
  bool has(const std::string& name) const { return given.count(name) > 0; }
};

/** \brief Adds an option for every declared setting offered on `surface` (SettingSurface), but
 *  those in `except` (settings the tool decides itself), to `app`: the flag, the help with its
 *  choices and default, from the declaration.
 *  \param[in,out] app the tool's command line
 *  \param[out] o where the given values go
 *  \param[in] surface kFileSurface (a cloud file) or kInMemorySurface (a cloud the tool holds)
 *  \param[in] except declaration names left out */
void addEstimatorOptions(CLI::App& app, EstimatorOptions& o, unsigned surface,
                         const std::set<std::string>& except = {});

/** \brief Adds the options of the declared settings called `names`, in that order (a tool that
 *  offers a few of them: dise_orient).
 *  \throws OptionsError for a name that is not declared */
void addSettingOptions(CLI::App& app, EstimatorOptions& o, const std::vector<std::string>& names);

/** \brief The settings as a report's "settings" object: every declared setting by name (numbers
 *  as numbers, a setting not set as null), "k_in_use" (NormalSettings::neighbors) and, for the
 *  native backend, "instruction_set".
 *  \param[in] settings the run's settings */
nlohmann::json settingsReport(const NormalSettings& settings);

}  // namespace tools
}  // namespace pcl_dise
