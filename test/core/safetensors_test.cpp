// The safetensors reader and writer (safetensors.h) on their own: a round trip with metadata,
// and a clear error for each way a file can be wrong.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>

#include "pcl_dise/core/safetensors.h"
#include "test_support.h"

namespace {

using namespace pcl_dise;

std::string writeRaw(const std::string& name, const std::string& header, const std::string& data) {
  const std::string path = test::temporaryDir("safetensors") + "/" + name;
  std::ofstream out(path, std::ios::binary);
  const std::uint64_t length = header.size();
  out.write(reinterpret_cast<const char*>(&length), 8);
  out << header << data;
  return path;
}

std::string errorOf(const std::string& path) {
  try {
    readSafetensors(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(Safetensors, RoundTripKeepsTensorsAndMetadata) {
  SafetensorsFile file;
  file.metadata = {{"recipe", "a \"quoted\" text"}, {"k_train", "64"}};
  file.tensors["b"] = Float32Tensor{{2, 3}, {1, 2, 3, 4, 5, 6}};
  file.tensors["a"] = Float32Tensor{{1}, {-0.5f}};
  const std::string path = test::temporaryDir("safetensors") + "/round.safetensors";
  writeSafetensors(path, file);
  const SafetensorsFile back = readSafetensors(path);
  EXPECT_EQ(back.metadata, file.metadata);
  ASSERT_EQ(back.tensors.size(), 2u);
  EXPECT_EQ(back.tensors.at("b").shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(back.tensors.at("b").values, file.tensors["b"].values);
  EXPECT_EQ(back.tensors.at("a").values, file.tensors["a"].values);
}

TEST(Safetensors, MalformedFilesAreNamed) {
  const std::string two_floats(8, '\0');
  EXPECT_NE(errorOf("/nonexistent.safetensors").find("cannot be opened"), std::string::npos);
  EXPECT_NE(errorOf(writeRaw("json.safetensors", "{not json", "")).find("malformed JSON header"), std::string::npos);
  EXPECT_NE(errorOf(writeRaw("array.safetensors", "[1, 2]", "")).find("not an object"), std::string::npos);
  EXPECT_NE(
      errorOf(writeRaw("dtype.safetensors", R"({"t":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})", two_floats))
          .find("expected F32"),
      std::string::npos);
  EXPECT_NE(
      errorOf(writeRaw("outside.safetensors", R"({"t":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", two_floats))
          .find("lies outside the data"),
      std::string::npos);
  EXPECT_NE(
      errorOf(writeRaw("count.safetensors", R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", two_floats))
          .find("8 bytes for 3"),
      std::string::npos);
  EXPECT_NE(errorOf(writeRaw("meta.safetensors", R"({"__metadata__":{"a":1}})", "")).find("non-string __metadata__"),
            std::string::npos);
  const std::string path = test::temporaryDir("safetensors") + "/short.safetensors";
  std::ofstream(path, std::ios::binary) << "abc";
  EXPECT_NE(errorOf(path).find("truncated"), std::string::npos);
}

}  // namespace
