// Model files: round trip, the published prefix, and clear errors for broken files.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "pcl_dise/core/model.h"
#include "pcl_dise/core/safetensors.h"
#include "test_support.h"

namespace {

using namespace pcl_dise;

std::size_t countParameters(const Model& m) {
  std::size_t n = 0;
  for (const auto& [name, mlp] : m.namedMlps())
    n += mlp->first.weight.size() + mlp->first.bias.size() + mlp->second.weight.size() + mlp->second.bias.size();
  return n;
}

std::string errorOf(const std::string& path) {
  try {
    loadModel(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(Model, HasThePapersParameterCount) { EXPECT_EQ(countParameters(randomModel(1)), 7981u); }

TEST(Model, SaveLoadRoundTrip) {
  Model m = randomModel(3);
  m.metadata["made_by"] = "test";
  const std::string path = test::temporaryDir("model_roundtrip") + "/m.safetensors";
  saveModel(m, path);
  const Model back = loadModel(path);
  EXPECT_EQ(back.layer4.first.weight, m.layer4.first.weight);
  EXPECT_EQ(back.layerg3.second.bias, m.layerg3.second.bias);
  EXPECT_EQ(back.metadata.at("made_by"), "test");
}

TEST(Model, TheEdgeScaleRuleTravelsInTheFile) {
  EXPECT_EQ(edgeScaleRule(randomModel(3)), EdgeScaleRule::Global);  // no entry: the published recipe
  EXPECT_EQ(edgeScaleRule(loadModel(test::randomModelFile(3))), EdgeScaleRule::Global);
  EXPECT_EQ(edgeScaleRule(loadModel(test::randomModelFile(3, EdgeScaleRule::Local))), EdgeScaleRule::Local);
  EXPECT_EQ(edgeScaleRule(loadModel(test::randomModelFile(3, EdgeScaleRule::Global))), EdgeScaleRule::Global);
}

TEST(Model, RandomModelIsSeeded) {
  EXPECT_EQ(randomModel(5).layer1.first.weight, randomModel(5).layer1.first.weight);
  EXPECT_NE(randomModel(5).layer1.first.weight, randomModel(6).layer1.first.weight);
}

TEST(Model, AcceptsThePublishedPrefix) {
  SafetensorsFile file = readSafetensors(test::randomModelFile(4));
  SafetensorsFile prefixed;
  for (auto& [name, t] : file.tensors) prefixed.tensors["stepWeights." + name] = t;
  const std::string path = test::temporaryDir("model_prefix") + "/p.safetensors";
  writeSafetensors(path, prefixed);
  EXPECT_EQ(loadModel(path).layer2.first.weight, loadModel(test::randomModelFile(4)).layer2.first.weight);
}

TEST(Model, LoadsThePublishedWeights) {
  const std::string path = test::sharedDir() + "/reference/published_k64.safetensors";
  if (!test::sharedFileExists("reference/published_k64.safetensors")) GTEST_SKIP() << "no " << path;
  EXPECT_EQ(countParameters(loadModel(path)), 7981u);
}

class BrokenModel : public ::testing::Test {
 protected:
  std::string dir = test::temporaryDir("model_broken");
  std::string write(const SafetensorsFile& f) {
    const std::string path = dir + "/broken.safetensors";
    writeSafetensors(path, f);
    return path;
  }
  SafetensorsFile valid = readSafetensors(test::randomModelFile(2));
};

TEST_F(BrokenModel, MissingFile) {
  EXPECT_NE(errorOf(dir + "/nope.safetensors").find("cannot be opened"), std::string::npos);
}

TEST_F(BrokenModel, MissingTensor) {
  valid.tensors.erase("layer3.2.bias");
  const std::string path = write(valid);
  const std::string error = errorOf(path);
  EXPECT_NE(error.find("layer3.2.bias"), std::string::npos) << error;
  EXPECT_NE(error.find(path), std::string::npos) << error;
}

TEST_F(BrokenModel, WrongShape) {
  valid.tensors["layer1.0.weight"].shape = {8, 32};
  EXPECT_NE(errorOf(write(valid)).find("has shape [8, 32], expected [32, 8]"), std::string::npos);
}

TEST_F(BrokenModel, UnexpectedTensor) {
  valid.tensors["extra.weight"] = Float32Tensor{{1}, {0.f}};
  EXPECT_NE(errorOf(write(valid)).find("unexpected tensor 'extra.weight'"), std::string::npos);
}

TEST_F(BrokenModel, UnknownEdgeScaleRule) {
  valid.metadata["edge_scale"] = "per-tile";
  const std::string error = errorOf(write(valid));
  EXPECT_NE(error.find("unknown edge scale 'per-tile'"), std::string::npos) << error;
}

TEST_F(BrokenModel, NonFiniteValues) {
  valid.tensors["layerg.0.bias"].values[3] = std::nanf("");
  EXPECT_NE(errorOf(write(valid)).find("non-finite"), std::string::npos);
}

TEST_F(BrokenModel, Truncated) {
  const std::string path = write(valid);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t keep : {std::size_t(0), std::size_t(5), std::size_t(100), bytes.size() - 10}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(keep));
    EXPECT_NE(errorOf(path).find("truncated"), std::string::npos) << "kept " << keep << ": " << errorOf(path);
  }
}

TEST_F(BrokenModel, WrongDtypeAndGarbageHeader) {
  const std::string path = write(valid);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string f16 = bytes;
  const auto at = f16.find("\"F32\"");
  f16.replace(at, 5, "\"F16\"");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << f16;
  EXPECT_NE(errorOf(path).find("dtype \"F16\""), std::string::npos) << errorOf(path);
  std::string garbage = bytes;
  garbage[8] = '#';
  std::ofstream(path, std::ios::binary | std::ios::trunc) << garbage;
  EXPECT_NE(errorOf(path).find("malformed JSON header"), std::string::npos) << errorOf(path);
}

TEST(Model, MissingDefaultModelSaysHowToGetOne) {
  const std::string help = missingModelHelp("/nowhere/dise_k64.safetensors");
  EXPECT_NE(help.find("dise_train"), std::string::npos);
  EXPECT_NE(help.find("PCL_DISE_MODEL_DIR"), std::string::npos);
}

TEST(Model, DefaultModelFollowsK) {
  const std::string both = test::temporaryDir("k32_and_k64");
  for (const char* name : {"dise_k32.safetensors", "dise_k64.safetensors"}) std::ofstream(both + "/" + name) << "x";
  {
    test::ScopedModelDir scope(both);
    EXPECT_EQ(defaultModelPath(32), both + "/dise_k32.safetensors");
    EXPECT_EQ(defaultModelPath(), both + "/dise_k64.safetensors");
    EXPECT_EQ(defaultModelPath(48), both + "/dise_k64.safetensors");  // no k = 48 model there
    EXPECT_EQ(modelPathOrDefault("", 32), both + "/dise_k32.safetensors");
    EXPECT_EQ(modelPathOrDefault("", 0), both + "/dise_k64.safetensors");  // radius search
    EXPECT_EQ(modelPathOrDefault("mine.safetensors", 32), "mine.safetensors");
  }
  // The first folder that holds a model wins, so a user's own k = 64 model is not passed over
  // for a shipped k = 32 one further down the search order.
  const std::string only64 = test::temporaryDir("only_k64");
  std::ofstream(only64 + "/dise_k64.safetensors") << "x";
  test::ScopedModelDir scope(only64);
  EXPECT_EQ(defaultModelPath(32), only64 + "/dise_k64.safetensors");
}

}  // namespace
