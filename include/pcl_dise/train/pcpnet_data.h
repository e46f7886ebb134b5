#pragma once
// PCPNet-protocol data (docs/algorithm.md): meshes, sampling with noise and density variants, and
// the file format (NAME.xyz, NAME.normals, NAME.pidx, list files). Header of plain C++ and
// Eigen, shared by dise_make_dataset, dise_train and dise_eval.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pcl_dise {
namespace train {

/** A triangle mesh: a training shape. */
struct Mesh {
  std::vector<std::array<double, 3>> vertices;  ///< x, y, z
  std::vector<std::array<int, 3>> triangles;    ///< polygons fanned into triangles
  /// Unions of solids (procedural shapes): triangle t belongs to solid part[t], and a sample on
  /// it that lies strictly inside another solid's box (min xyz, max xyz) is not on the surface.
  /// Both empty for an ordinary mesh.
  std::vector<int> part;
  std::vector<std::array<double, 6>> solid_boxes;  ///< per solid: min x, y, z, max x, y, z

  /** Appends a triangle unless it is degenerate (zero area); returns whether it was kept. */
  bool addTriangle(int a, int b, int c, int solid = -1);
};

/** Reads an .off, .obj or .ply (ASCII or binary little-endian) mesh by its extension; polygons
 *  are fanned, degenerate (zero-area) triangles dropped with a count in `dropped`. Throws
 *  std::runtime_error naming the file and the problem. */
Mesh readMesh(const std::string& path, std::size_t* dropped = nullptr);

enum class Density { Uniform, Gradient, Striped };

/** A sampled cloud with its true normals (PCPNet's BASE.xyz and BASE.normals). */
struct Cloud {
  std::vector<std::array<float, 3>> points;   ///< N x 3
  std::vector<std::array<float, 3>> normals;  ///< N x 3, the true normals
};

/** The standard deviation (per coordinate) of PCPNet's white noise of `level` on a shape whose
 *  bounding box's largest side is `largest_side`: level / (4.2 sqrt 3) x largest_side. */
double noiseDeviation(double level, double largest_side);

/** A noisy cloud's name, NAME_noise_white_<level> (as dise_make_dataset names them): sets `clean`
 *  to NAME and returns the level; 0 (clean untouched) for any other name. */
double noiseLevelOfName(const std::string& name, std::string& clean);

/** Area-weighted samples (face normal as ground truth), density variant by face centroid,
 *  Gaussian noise of noiseDeviation(noise_level, the bounding box's largest side). */
Cloud sample(const Mesh& mesh, std::size_t count, Density density, double noise_level, std::uint64_t seed);

/** `count` distinct indices in [0, n), ascending (PCPNet's .pidx). */
std::vector<std::int64_t> sampleIndices(std::size_t n, std::size_t count, std::uint64_t seed);

void writeCloud(const std::string& base, const Cloud& cloud, const std::vector<std::int64_t>& pidx);

/** Reads BASE.xyz, BASE.normals and BASE.pidx (pidx optional: all points where absent).
 *  Throws std::runtime_error for missing files, different lengths and indices out of range. */
struct LoadedCloud {
  Cloud cloud;                     ///< BASE.xyz and BASE.normals
  std::vector<std::int64_t> pidx;  ///< BASE.pidx: the points that are evaluated
};
LoadedCloud readCloud(const std::string& base);

/** Names listed in a list file (one per line), resolved against the list's folder. */
std::vector<std::string> readList(const std::string& list_path);

}  // namespace train
}  // namespace pcl_dise
