// dise_make_dataset: PCPNet-protocol training / validation data from meshes and procedural CAD shapes.
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "pcl_dise/train/pcpnet_data.h"
#include "pcl_dise/train/procedural_shapes.h"

namespace {

using pcl_dise::train::Density;

// The six PCPNet categories: list-file suffix, cloud-name suffix, density, noise level.
struct Variant {
  const char* list;
  const char* suffix;
  Density density;
  double noise;
};
constexpr Variant kVariants[] = {
    {"no_noise", "", Density::Uniform, 0.0},
    {"low_noise", "_noise_white_1.00e-02", Density::Uniform, 1e-2},
    {"med_noise", "_noise_white_5.00e-02", Density::Uniform, 5e-2},
    {"high_noise", "_noise_white_1.00e-01", Density::Uniform, 1e-1},
    {"vardensity_striped", "_ddist_minmax_layers", Density::Striped, 0.0},
    {"vardensity_gradient", "_ddist_minmax", Density::Gradient, 0.0},
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Writes PCPNet-format clouds (NAME.xyz, .normals, .pidx) for each mesh (.off, .obj, .ply) and\n"
      "procedural CAD shape in the six PCPNet categories (no noise, noise 1e-2, 5e-2, 1e-1, striped\n"
      "and gradient density), and list files PREFIX_<category>.txt plus PREFIX_all.txt."};
  std::vector<std::string> meshes;
  std::string out_dir, prefix = "testset";
  std::size_t points = 100000, pidx = 5000;
  std::uint64_t seed = 1, shape_seed = 1;
  std::size_t shapes = 0, thin = 0;
  app.add_option("meshes", meshes, ".off, .obj or .ply meshes")->check(CLI::ExistingFile);
  app.add_option("--procedural", shapes, "procedural CAD shapes to add (cycling through the kinds)")
      ->capture_default_str();
  app.add_option("--thin", thin, "thin-structure shapes to add (cycling through the kinds), after the procedural ones")
      ->capture_default_str();
  app.add_option("--shape-seed", shape_seed, "seed of the procedural shapes' proportions (hold out with another seed)")
      ->capture_default_str();
  app.add_option("--out", out_dir, "output folder")->required();
  app.add_option("--prefix", prefix, "list-file prefix (e.g. trainingset, validationset)")->capture_default_str();
  app.add_option("--points", points, "samples per cloud")->capture_default_str();
  app.add_option("--pidx", pidx, "evaluation indices per cloud")->capture_default_str();
  app.add_option("--seed", seed, "random seed")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  if (meshes.empty() && shapes == 0 && thin == 0) {
    std::cerr << "dise_make_dataset: error: give meshes, --procedural N, --thin N, or several\n";
    return 2;
  }

  std::filesystem::create_directories(out_dir);
  std::vector<std::vector<std::string>> lists(std::size(kVariants));
  // Meshes, then procedural shapes, then thin ones: adding thin shapes keeps the others' clouds.
  auto procedural = pcl_dise::train::proceduralShapes(shapes, shape_seed);
  for (auto& shape : pcl_dise::train::thinShapes(thin, shape_seed)) procedural.push_back(std::move(shape));
  const std::size_t sources = meshes.size() + procedural.size();
  int failures = 0;
  for (std::size_t m = 0; m < sources; ++m) {
    std::string name;
    pcl_dise::train::Mesh mesh;
    if (m < meshes.size()) {
      name = std::filesystem::path(meshes[m]).stem().string();
      try {
        std::size_t dropped = 0;
        mesh = pcl_dise::train::readMesh(meshes[m], &dropped);
        if (dropped)
          std::cerr << "dise_make_dataset: warning: " << meshes[m] << ": dropped " << dropped << " degenerate faces\n";
      } catch (const std::exception& e) {
        std::cerr << "dise_make_dataset: skipping " << e.what() << "\n";
        ++failures;
        continue;
      }
    } else {
      name = procedural[m - meshes.size()].name;
      mesh = procedural[m - meshes.size()].mesh;
    }
#pragma omp parallel for schedule(dynamic)
    for (std::size_t v = 0; v < std::size(kVariants); ++v) {
      const Variant& variant = kVariants[v];
      const std::uint64_t cloud_seed = seed * 1000003ull + m * 101 + v;
      const auto cloud = pcl_dise::train::sample(mesh, points, variant.density, variant.noise, cloud_seed);
      const std::string cloud_name = name + variant.suffix;
      pcl_dise::train::writeCloud(out_dir + "/" + cloud_name, cloud,
                                  pcl_dise::train::sampleIndices(points, pidx, cloud_seed ^ 0x9e3779b97f4a7c15ull));
#pragma omp critical
      lists[v].push_back(cloud_name);
    }
    std::cout << "dise_make_dataset: " << name << " (" << mesh.triangles.size() << " triangles) done\n";
  }
  std::ofstream all(out_dir + "/" + prefix + "_all.txt");
  for (std::size_t v = 0; v < std::size(kVariants); ++v) {
    std::sort(lists[v].begin(), lists[v].end());
    std::ofstream list(out_dir + "/" + prefix + "_" + kVariants[v].list + ".txt");
    for (const auto& n : lists[v]) {
      list << n << "\n";
      all << n << "\n";
    }
  }
  std::cout << "dise_make_dataset: wrote " << out_dir << "/" << prefix << "_*.txt\n";
  return failures == static_cast<int>(sources) ? 1 : 0;
}
