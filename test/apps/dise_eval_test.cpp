// dise_eval end to end on a tiny generated dataset: the table, the JSON (every category, every
// method, 18 good-point shares, RMSE per cloud, DISE per iteration, the paired comparison), the
// PNG plot, and clear errors.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

using namespace pcl_dise::test;

class DiseEval : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(temporaryDir("dise_eval"));
    std::ofstream(*dir_ + "/cube.off") << "OFF\n8 6 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n"
                                          "4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 2 3 7 6\n4 1 2 6 5\n4 0 4 7 3\n";
    const CommandResult made = runCommand(binaryDir() + "/apps/dise_make_dataset " + *dir_ + "/cube.off --out " +
                                          *dir_ + "/data --prefix val --points 1200 --pidx 80");
    ASSERT_EQ(made.exit_code, 0) << made.output;
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string* dir_;
};
std::string* DiseEval::dir_ = nullptr;

TEST_F(DiseEval, TableJsonAndPlot) {
  const std::string model = randomModelFile(11);
  const CommandResult r = runCommand(
      binaryDir() + "/apps/dise_eval " + *dir_ + "/data --prefix val --k 12 --iterations 2 --model " + model +
      " --compare-model " + model + " --threads 1 --report " + *dir_ + "/eval.json --plot " + *dir_ + "/eval.png");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("average"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("jet"), std::string::npos) << r.output;
  const auto json = nlohmann::json::parse(std::ifstream(*dir_ + "/eval.json"));
  ASSERT_EQ(json["categories"].size(), 6u);
  for (const auto& [category, entry] : json["categories"].items()) {
    for (const char* method : {"DISE", "random", "PCA", "jet"}) {
      ASSERT_TRUE(entry.contains(method)) << category << " " << method;
      const double rmse = entry[method]["rmse"].get<double>();
      EXPECT_GE(rmse, 0.0);
      EXPECT_LE(rmse, 90.0);
      const auto shares = entry[method]["good_points"].get<std::vector<double>>();
      ASSERT_EQ(shares.size(), 18u);
      EXPECT_TRUE(std::is_sorted(shares.begin(), shares.end()));
      EXPECT_GT(shares.back(), 0.99);  // unoriented errors stay under 90 degrees but for missing normals
      // The category's RMSE is the mean of its clouds' RMSEs (one cloud per category here).
      const auto& per_cloud = entry[method]["per_cloud"];
      ASSERT_EQ(per_cloud.size(), 1u) << category << " " << method;
      EXPECT_NE(per_cloud.begin().key().find("cube"), std::string::npos) << per_cloud.dump();
      EXPECT_DOUBLE_EQ(per_cloud.begin().value().get<double>(), rmse);
    }
    EXPECT_EQ(entry["DISE"]["rmse_per_iteration"].size(), 3u);
    // The same model twice gives the same numbers.
    EXPECT_DOUBLE_EQ(entry["DISE"]["rmse"].get<double>(), entry["random"]["rmse"].get<double>());
  }
  // Paired by shape: the one cube, and the same model twice differs by nothing.
  EXPECT_NE(r.output.find("DISE - random over 1 shapes"), std::string::npos) << r.output;
  EXPECT_EQ(json["paired"]["shapes"].get<int>(), 1);
  EXPECT_DOUBLE_EQ(json["paired"]["mean_difference"].get<double>(), 0.0);
  EXPECT_TRUE(json["paired"]["standard_error"].is_null());  // NaN: one shape has no spread
  // Jet fitting on the faces of a clean cube is nearly exact away from the edges.
  EXPECT_GT(json["categories"]["no_noise"]["jet"]["good_points"][1].get<double>(), 0.5);
  EXPECT_GT(std::filesystem::file_size(*dir_ + "/eval.png"), 1000u);
}

TEST_F(DiseEval, BadInput) {
  const CommandResult no_model = runCommand(binaryDir() + "/apps/dise_eval " + *dir_ + "/data --prefix val --model " +
                                            *dir_ + "/none.safetensors");
  EXPECT_NE(no_model.exit_code, 0);
  EXPECT_NE(no_model.output.find("none.safetensors"), std::string::npos) << no_model.output;
  const CommandResult no_lists = runCommand(binaryDir() + "/apps/dise_eval " + *dir_ +
                                            " --prefix nothing --no-jet --model " + randomModelFile(11));
  EXPECT_NE(no_lists.exit_code, 0);
  EXPECT_NE(no_lists.output.find("no category list"), std::string::npos) << no_lists.output;
}

}  // namespace
