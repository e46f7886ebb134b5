#pragma once
// Every setting of a normals run declared once: its name on each surface (the C++ setter, the
// command line's flag, Python's keyword, the ROS parameter, the report's key), its kind, help,
// where it is offered, and how its value is read from text and shown as text. The tools' options
// (tools/estimator_options.h), Python's keywords, the ROS node's parameters and the JSON reports
// are made from this table; test/core/setting_declarations_test.cpp and
// test/python/test_setting_surfaces.py check every surface against it. Reading a value checks its
// kind only; the ranges and the rules over several settings are NormalSettings::validate's.
#include <string>
#include <vector>

#include "pcl_dise/core/normal_settings.h"

namespace pcl_dise {

/** What kind of value a setting holds, which says how each surface spells it. */
enum class SettingKind {
  kInteger,  ///< a whole number
  kNumber,   ///< a real number
  kPath,     ///< a file path
  kName,     ///< one of a few names (SettingDeclaration::choices)
  kPoint     ///< three numbers: "X,Y,Z" on the command line, a sequence in Python, ROS's <name>_x, _y, _z
};

/** Where a setting is offered (bits of SettingDeclaration::surfaces). */
enum SettingSurface : unsigned {
  kInMemorySurface = 1,  ///< a cloud in memory: Python's Estimator and estimate_normals, dise_viewer
  kFileSurface = 2,      ///< a cloud file: dise_normals, dise_normals_mpi, Python's estimate_normals_file
  kRosSurface = 4,       ///< the ROS node's parameters
  kEverySurface = 7
};

/** One setting of NormalSettings, as every surface names and reads it. */
struct SettingDeclaration {
  const char* name;        ///< Python's keyword and the report's key ("max_neighbors")
  const char* ros_name;    ///< the ROS node's parameter (pcl_ros's name where it has one: "k_search")
  const char* cpp_setter;  ///< pcl::DeepIterativeNormalEstimation's setter ("setKSearch")
  SettingKind kind;        ///< its kind of value
  std::string choices;     ///< kName: every name it takes ("a, b or c", from their own tables), "" otherwise
  const char* help;        ///< one sentence for --help and docs/command_line.md's table
  /// The default means "not set" (k and radius: the 64 nearest; model: the shipped one;
  /// viewpoint: the cloud's sensor origin): None in Python, left out on the command line.
  bool unset_by_default;
  /// The file surfaces choose the default from the input (orient: jobs::defaultOrientationFor).
  bool default_from_input;
  unsigned surfaces;  ///< SettingSurface bits
  /** \brief Sets this setting from text, as typed on a command line.
   *  \param[in,out] settings the settings to change
   *  \param[in] text the value ("" leaves it unset where unset_by_default)
   *  \throws OptionsError naming the setting where the text is not of its kind */
  void (*read)(NormalSettings& settings, const std::string& text);
  /** The value in `settings` as text, in the form read takes ("" where not set). */
  std::string (*show)(const NormalSettings& settings);
};

/** The declarations, in the order the surfaces list them. */
const std::vector<SettingDeclaration>& settingDeclarations();

/** \brief The declaration called `name` (SettingDeclaration::name).
 *  \throws OptionsError "unknown setting" listing every name */
const SettingDeclaration& settingDeclaration(const std::string& name);

/** The command line's flag: "--" and the name with '-' for '_' ("--max-neighbors"). */
std::string commandLineFlag(const SettingDeclaration& declaration);

/** The default as text: show of a default NormalSettings ("" where unset_by_default). */
std::string defaultText(const SettingDeclaration& declaration);

}  // namespace pcl_dise
