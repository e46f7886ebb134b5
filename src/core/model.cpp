#include "pcl_dise/core/model.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <stdexcept>

#include "pcl_dise/core/errors.h"
#include "pcl_dise/core/network_shape.h"
#include "pcl_dise/core/safetensors.h"

namespace pcl_dise {
namespace {

constexpr const char* kPublishedPrefix = "stepWeights.";

void shapeLinear(Linear& l, int in, int out) {
  l.in_features = in;
  l.out_features = out;
  l.weight.assign(static_cast<std::size_t>(in) * out, 0.f);
  l.bias.assign(out, 0.f);
}

Model shapedModel() {
  Model m;
  auto mlps = m.namedMlps();
  for (std::size_t i = 0; i < mlps.size(); ++i) {
    shapeLinear(mlps[i].second->first, kMlpShapes[i].in, kMlpShapes[i].hidden);
    shapeLinear(mlps[i].second->second, kMlpShapes[i].hidden, kMlpShapes[i].out);
  }
  return m;
}

// Calls f(file name, tensor shape, values) for the 28 tensors of the model.
template <typename ModelT, typename F>
void forEachTensor(ModelT& model, F&& f) {
  for (auto& [name, mlp] : model.namedMlps()) {
    for (auto* linear : {&mlp->first, &mlp->second}) {
      const std::string base = std::string(name) + (linear == &mlp->first ? ".0" : ".2");
      f(base + ".weight", std::vector<std::int64_t>{linear->out_features, linear->in_features}, linear->weight);
      f(base + ".bias", std::vector<std::int64_t>{linear->out_features}, linear->bias);
    }
  }
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

std::array<std::pair<const char*, Mlp*>, 7> Model::namedMlps() {
  return {{{"layer1", &layer1},
           {"layerg", &layerg},
           {"layer2", &layer2},
           {"layerg2", &layerg2},
           {"layer3", &layer3},
           {"layerg3", &layerg3},
           {"layer4", &layer4}}};
}

std::array<std::pair<const char*, const Mlp*>, 7> Model::namedMlps() const {
  auto mutable_mlps = const_cast<Model*>(this)->namedMlps();
  std::array<std::pair<const char*, const Mlp*>, 7> out;
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {mutable_mlps[i].first, mutable_mlps[i].second};
  return out;
}

Model randomModel(std::uint64_t seed) {
  Model m = shapedModel();
  std::mt19937_64 rng(seed);
  for (auto& entry : m.namedMlps()) {
    for (auto* linear : {&entry.second->first, &entry.second->second}) {
      const float bound = 1.f / std::sqrt(static_cast<float>(linear->in_features));
      std::uniform_real_distribution<float> u(-bound, bound);
      for (auto& w : linear->weight) w = u(rng);
      for (auto& b : linear->bias) b = u(rng);
    }
  }
  m.metadata["origin"] = "random initialisation, seed " + std::to_string(seed);
  return m;
}

Model loadModel(const std::string& path) {
  SafetensorsFile file = readSafetensors(path);
  auto fail = [&](const std::string& problem) -> void { throw FileError("model file '" + path + "': " + problem); };
  // Accept the published prefix by stripping it from every name that carries it.
  std::map<std::string, Float32Tensor> tensors;
  for (auto& [name, tensor] : file.tensors) {
    const std::string key =
        name.rfind(kPublishedPrefix, 0) == 0 ? name.substr(std::string(kPublishedPrefix).size()) : name;
    tensors[key] = std::move(tensor);
  }
  Model model = shapedModel();
  std::set<std::string> expected;
  forEachTensor(
      model, [&](const std::string& name, const std::vector<std::int64_t>& shape, std::vector<float>& values) {
        expected.insert(name);
        auto it = tensors.find(name);
        if (it == tensors.end()) fail("tensor '" + name + "' is missing");
        if (it->second.shape != shape)
          fail("tensor '" + name + "' has shape " + shapeText(it->second.shape) + ", expected " + shapeText(shape));
        for (float v : it->second.values)
          if (!std::isfinite(v)) fail("tensor '" + name + "' holds non-finite values");
        values = std::move(it->second.values);
      });
  for (const auto& entry : tensors)
    if (!expected.count(entry.first)) fail("unexpected tensor '" + entry.first + "' (not a DISE model?)");
  model.metadata = file.metadata;
  try {
    edgeScaleRule(model);
  } catch (const std::runtime_error& e) {
    fail(e.what());
  }
  return model;
}

namespace {
constexpr const char* kEdgeScaleKey = "edge_scale";
}  // namespace

std::string toString(EdgeScaleRule rule) { return rule == EdgeScaleRule::Local ? "local" : "global"; }

EdgeScaleRule edgeScaleRule(const Model& model) {
  const auto entry = model.metadata.find(kEdgeScaleKey);
  if (entry == model.metadata.end() || entry->second == "global") return EdgeScaleRule::Global;
  if (entry->second == "local") return EdgeScaleRule::Local;
  throw std::runtime_error("unknown edge scale '" + entry->second +
                           "' in the model's metadata (expected global or local)");
}

void setEdgeScaleRule(Model& model, EdgeScaleRule rule) { model.metadata[kEdgeScaleKey] = toString(rule); }

void saveModel(const Model& model, const std::string& path) {
  SafetensorsFile file;
  file.metadata = model.metadata;
  forEachTensor(model,
                [&](const std::string& name, const std::vector<std::int64_t>& shape, const std::vector<float>& values) {
                  file.tensors[name] = Float32Tensor{shape, values};
                });
  writeSafetensors(path, file);
}

namespace {

// The file holding this code: the shared library, or the program a static build is linked into.
std::string thisModule() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&defaultModelPath), &info) && info.dli_fname) return info.dli_fname;
  return {};
}

// Where the shipped models are, in search order: the source tree for a library that runs from
// its build tree, else the install's share/pcl_dise/models relative to this library's folder (or
// to bin/, where a static build sits in a program), then the prefix configured at build time.
std::vector<std::string> modelFolders() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("PCL_DISE_MODEL_DIR")) dirs.emplace_back(env);
  const std::string module = thisModule();
  const std::string build_dir = std::string(PCL_DISE_BUILD_DIR) + "/";
  if (module.compare(0, build_dir.size(), build_dir) == 0) {
    dirs.emplace_back(PCL_DISE_SOURCE_MODEL_DIR);
  } else if (!module.empty()) {
    // The loader may name the library through the program's RPATH (bin/../lib/...): tidy it.
    const std::filesystem::path folder = std::filesystem::path(module).lexically_normal().parent_path();
    for (const char* relative : {PCL_DISE_MODELS_FROM_LIB, PCL_DISE_MODELS_FROM_BIN})
      dirs.push_back((folder / relative).lexically_normal().string());
  }
  dirs.emplace_back(PCL_DISE_INSTALL_MODEL_DIR);
  return dirs;
}

}  // namespace

std::string defaultModelPath(int k) {
  const std::vector<std::string> dirs = modelFolders();
  const std::string k64 = "dise_k64.safetensors";
  for (const auto& dir : dirs)
    for (const std::string& file : {"dise_k" + std::to_string(k) + ".safetensors", k64}) {
      const std::string candidate = dir + "/" + file;
      if (std::ifstream(candidate).good()) return candidate;
    }
  return dirs.back() + "/" + k64;
}

std::string modelPathOrDefault(const std::string& path, int k) {
  return path.empty() ? defaultModelPath(k > 0 ? k : 64) : path;
}

std::string missingModelHelp(const std::string& path) {
  return "no DISE model at '" + path +
         "'. Train one with dise_train (see docs/models.md, 'Training'), pass a model file "
         "explicitly (setModelPath / --model FILE), or point PCL_DISE_MODEL_DIR at a folder holding "
         "dise_k64.safetensors.";
}

std::vector<float> packParameters(const Model& model) {
  std::vector<float> packed;
  packed.reserve(Model::kNumParameters);
  for (const auto& [name, mlp] : model.namedMlps())
    for (const Linear* linear : {&mlp->first, &mlp->second}) {
      packed.insert(packed.end(), linear->weight.begin(), linear->weight.end());
      packed.insert(packed.end(), linear->bias.begin(), linear->bias.end());
    }
  return packed;
}

Model unpackParameters(const std::vector<float>& packed) {
  if (packed.size() != static_cast<std::size_t>(Model::kNumParameters))
    throw std::invalid_argument("unpackParameters: " + std::to_string(packed.size()) + " values, expected " +
                                std::to_string(Model::kNumParameters));
  Model model = shapedModel();
  std::size_t at = 0;
  for (auto& [name, mlp] : model.namedMlps())
    for (Linear* linear : {&mlp->first, &mlp->second}) {
      for (float& w : linear->weight) w = packed[at++];
      for (float& b : linear->bias) b = packed[at++];
    }
  return model;
}

}  // namespace pcl_dise
