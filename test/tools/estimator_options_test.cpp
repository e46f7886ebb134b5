// The estimator's options (src/tools/estimator_options.h): what they set in a NormalSettings, and
// that every tool that estimates normals offers every declared setting under the same name and help.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "estimator_options.h"
#include "pcl_dise/core/errors.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::test;
using pcl_dise::tools::EstimatorOptions;

pcl_dise::NormalSettings parsed(std::vector<std::string> args) {
  CLI::App app;
  EstimatorOptions o;
  pcl_dise::tools::addEstimatorOptions(app, o, pcl_dise::kFileSurface);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  app.parse(args);
  pcl_dise::NormalSettings settings;
  o.applyTo(settings);
  return settings;
}

TEST(EstimatorOptions, SetWhatTheySay) {
  const pcl_dise::NormalSettings s = parsed({"--k", "12", "--iterations", "2", "--settle", "0.5", "--threads", "3",
                                             "--model", "m.safetensors", "--precision", "bf16"});
  EXPECT_EQ(s.k, 12);
  EXPECT_EQ(s.iterations, 2);
  EXPECT_DOUBLE_EQ(s.settle_degrees, 0.5);
  EXPECT_EQ(s.threads, 3u);
  EXPECT_EQ(s.model, "m.safetensors");
  EXPECT_EQ(s.precision, pcl_dise::Precision::Bf16);
  EXPECT_EQ(s.backend, pcl_dise::Backend::Native);
  const pcl_dise::NormalSettings r = parsed({"--radius", "0.25", "--max-neighbors", "40"});
  EXPECT_FLOAT_EQ(static_cast<float>(r.radius), 0.25f);
  EXPECT_EQ(r.max_neighbors, 40);
  EXPECT_EQ(r.k, 0);  // not set: NormalSettings' default
  EXPECT_EQ(parsed({}).neighbors(), 64);
}

TEST(EstimatorOptions, BadValuesAreTheDeclarationsAndValidatesErrors) {
  EXPECT_THROW(parsed({"--k", "8", "--radius", "0.1"}).validate(false), pcl_dise::OptionsError);
  EXPECT_THROW(parsed({"--backend", "fpga"}), pcl_dise::OptionsError);
  EXPECT_THROW(parsed({"--precision", "half"}), pcl_dise::OptionsError);
  EXPECT_THROW(parsed({"--k", "many"}), pcl_dise::OptionsError);
  EXPECT_THROW(parsed({"--orient-seed", "-2"}).validate(false), pcl_dise::OptionsError);
}

// The option's line of a tool's --help.
std::string helpLine(const std::string& help, const std::string& option) {
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);)
    if (line.find("  " + option + " ") != std::string::npos) return line;
  return "";
}

// A help line's words, one space between each.
std::string words(const std::string& line) {
  std::istringstream in(line);
  std::string word, joined;
  while (in >> word) joined += (joined.empty() ? "" : " ") + word;
  return joined;
}

TEST(EstimatorOptions, EveryToolOffersEveryDeclaredSettingAlike) {
  CLI::App app;
  EstimatorOptions o;
  pcl_dise::tools::addEstimatorOptions(app, o, pcl_dise::kEverySurface);
  const std::string reference = app.help();
  struct Tool {
    std::string name;
    unsigned surface;
    std::vector<std::string> left_out;  // settings the tool decides itself
  };
  std::vector<Tool> tools{{"dise_normals", pcl_dise::kFileSurface, {}}};  // and dise_normals_mpi: addNormalsOptions
#ifdef PCL_DISE_TEST_VTK_TOOLS
  tools.push_back({"dise_viewer", pcl_dise::kInMemorySurface, {}});
  tools.push_back({"dise_reconstruct", pcl_dise::kInMemorySurface, {"orient"}});
#endif
  for (const Tool& tool : tools) {
    const CommandResult r = runCommand(binaryDir() + "/apps/" + tool.name + " --help");
    ASSERT_EQ(r.exit_code, 0) << tool.name << ": " << r.output;
    for (const pcl_dise::SettingDeclaration& d : pcl_dise::settingDeclarations()) {
      if (!(d.surfaces & tool.surface) ||
          std::find(tool.left_out.begin(), tool.left_out.end(), d.name) != tool.left_out.end())
        continue;
      const std::string option = pcl_dise::commandLineFlag(d);
      const std::string line = helpLine(r.output, option);
      EXPECT_FALSE(line.empty()) << tool.name << " lacks " << option;
      // The same words (CLI11 pads the option's column to each tool's widest).
      EXPECT_EQ(words(line), words(helpLine(reference, option))) << tool.name << " " << option;
    }
  }
}

}  // namespace
