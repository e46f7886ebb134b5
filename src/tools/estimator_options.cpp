#include "estimator_options.h"

#include "pcl_dise/core/forward.h"  // nativeInstructionSet

namespace pcl_dise {
namespace tools {

void EstimatorOptions::applyTo(NormalSettings& settings) const {
  for (const auto& [name, text] : given) settingDeclaration(name).read(settings, text);
}

namespace {

std::string helpOf(const SettingDeclaration& d) {
  std::string help = d.help;
  if (!d.choices.empty()) help += " {" + d.choices + "}";
  const std::string by_default = defaultText(d);
  if (!d.default_from_input && !by_default.empty()) help += " (default: " + by_default + ")";
  return help;
}

void addSettingOption(CLI::App& app, EstimatorOptions& o, const SettingDeclaration& d) {
  const std::string name = d.name;
  app.add_option_function<std::string>(
         commandLineFlag(d), [&o, name](const std::string& text) { o.given[name] = text; }, helpOf(d))
      ->type_name(d.kind == SettingKind::kInteger  ? "INT"
                  : d.kind == SettingKind::kNumber ? "FLOAT"
                  : d.kind == SettingKind::kPoint  ? "X,Y,Z"
                  : d.kind == SettingKind::kPath   ? "FILE"
                                                   : "NAME");
}

}  // namespace

void addEstimatorOptions(CLI::App& app, EstimatorOptions& o, unsigned surface, const std::set<std::string>& except) {
  for (const SettingDeclaration& d : settingDeclarations())
    if ((d.surfaces & surface) && !except.count(d.name)) addSettingOption(app, o, d);
}

void addSettingOptions(CLI::App& app, EstimatorOptions& o, const std::vector<std::string>& names) {
  for (const std::string& name : names) addSettingOption(app, o, settingDeclaration(name));
}

nlohmann::json settingsReport(const NormalSettings& settings) {
  nlohmann::json report;
  for (const SettingDeclaration& d : settingDeclarations()) {
    const std::string text = d.show(settings);
    if (text.empty())
      report[d.name] = nullptr;
    else if (d.kind == SettingKind::kInteger)
      report[d.name] = std::stoll(text);
    else if (d.kind == SettingKind::kNumber)
      report[d.name] = std::stod(text);
    else
      report[d.name] = text;
  }
  report["k_in_use"] = settings.neighbors();
  report["instruction_set"] = settings.backend == Backend::Native ? nativeInstructionSet(settings.precision) : "";
  return report;
}

}  // namespace tools
}  // namespace pcl_dise
