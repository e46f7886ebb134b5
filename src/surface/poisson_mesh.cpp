#include "surface/poisson_mesh.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <pcl/common/io.h>
#include <pcl/common/point_tests.h>
#include <pcl/conversions.h>
#include <pcl/surface/poisson.h>

#include "pcl_dise/core/grid_search.h"

namespace pcl_dise {
namespace surface {

pcl::PointCloud<pcl::PointNormal>::Ptr pointsWithNormals(const pcl::PointCloud<pcl::PointXYZ>& cloud,
                                                         const pcl::PointCloud<pcl::Normal>& normals,
                                                         const std::vector<float>* weights) {
  if (normals.size() != cloud.size() || (weights && weights->size() != cloud.size()))
    throw std::invalid_argument("pointsWithNormals: one normal (and weight) per point");
  auto points = pcl::make_shared<pcl::PointCloud<pcl::PointNormal>>();
  for (std::size_t i = 0; i < normals.size(); ++i) {
    if (!pcl::isFinite(normals[i]) || !pcl::isFinite(cloud[i])) continue;
    const float weight = weights ? (*weights)[i] : 1.f;
    if (!(weight > 0)) continue;
    pcl::PointNormal p;
    p.getVector3fMap() = cloud[i].getVector3fMap();
    p.getNormalVector3fMap() = weight * normals[i].getNormalVector3fMap();
    points->push_back(p);
  }
  return points;
}
namespace {

// Keeps what the process prints to stdout (printf and std::cout alike) in a temporary file while
// it lives; lines() counts it.
class StdoutToFile {
 public:
  StdoutToFile() : file_(std::tmpfile()) {
    std::fflush(stdout);
    std::cout.flush();
    saved_ = dup(STDOUT_FILENO);
    if (file_ && saved_ >= 0) dup2(fileno(file_), STDOUT_FILENO);
  }
  ~StdoutToFile() {
    std::fflush(stdout);
    std::cout.flush();
    if (saved_ >= 0) {
      dup2(saved_, STDOUT_FILENO);
      close(saved_);
    }
    if (file_) std::fclose(file_);
  }
  std::size_t lines() const {
    std::fflush(stdout);
    if (!file_) return 0;
    std::rewind(file_);
    std::size_t count = 0;
    for (int c; (c = std::fgetc(file_)) != EOF;) count += c == '\n';
    std::fseek(file_, 0, SEEK_END);
    return count;
  }

 private:
  std::FILE* file_;
  int saved_ = -1;
};

std::vector<float> finiteXyz(const pcl::PointCloud<pcl::PointXYZ>& cloud) {
  std::vector<float> xyz;
  xyz.reserve(3 * cloud.size());
  for (const auto& p : cloud)
    if (std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z)) xyz.insert(xyz.end(), {p.x, p.y, p.z});
  return xyz;
}

std::vector<float> allXyz(const pcl::PointCloud<pcl::PointXYZ>& cloud) {
  std::vector<float> xyz;
  xyz.reserve(3 * cloud.size());
  for (const auto& p : cloud) xyz.insert(xyz.end(), {p.x, p.y, p.z});
  return xyz;
}

double diagonal(const std::vector<float>& xyz) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (std::size_t i = 0; i < xyz.size(); i += 3)
    for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], xyz[i + a]), hi[a] = std::max(hi[a], xyz[i + a]);
  double d = 0;
  for (int a = 0; a < 3; ++a) d += double(hi[a] - lo[a]) * double(hi[a] - lo[a]);
  return std::sqrt(d);
}

// Distance from each query (N×3) to its nearest point of `points` (N×3, indexed by `index`).
std::vector<double> nearestDistances(const GridSearch& index, const std::vector<float>& points,
                                     const std::vector<float>& queries, unsigned threads) {
  const Neighborhoods nearest = index.nearest(queries.data(), queries.size() / 3, 1, static_cast<int>(threads));
  std::vector<double> distances(queries.size() / 3, INFINITY);
  for (std::size_t q = 0; q < distances.size(); ++q) {
    if (nearest.size(q) == 0) continue;
    const float* p = &points[3 * nearest.begin(q)[0]];
    double d2 = 0;
    for (int a = 0; a < 3; ++a) d2 += double(queries[3 * q + a] - p[a]) * double(queries[3 * q + a] - p[a]);
    distances[q] = std::sqrt(d2);
  }
  return distances;
}

}  // namespace

pcl::PolygonMesh reconstructPoisson(const pcl::PointCloud<pcl::PointNormal>::ConstPtr& points,
                                    const PoissonOptions& options, std::size_t* diagnostics) {
  if (points->size() < 10)
    throw std::runtime_error("Poisson reconstruction needs at least 10 points with a normal, got " +
                             std::to_string(points->size()));
  pcl::Poisson<pcl::PointNormal> poisson;
  poisson.setDepth(options.depth);
  poisson.setThreads(options.threads > 0 ? static_cast<int>(options.threads) : 0);
  poisson.setConfidence(options.confidence);
  poisson.setInputCloud(points);
  pcl::PolygonMesh mesh;
  {
    const StdoutToFile captured;
    poisson.reconstruct(mesh);
    if (diagnostics) *diagnostics = captured.lines();
  }

  pcl::PointCloud<pcl::PointXYZ> vertices;
  pcl::fromPCLPointCloud2(mesh.cloud, vertices);
  if (vertices.empty() || mesh.polygons.empty()) throw std::runtime_error("Poisson reconstruction gave an empty mesh");

  // Trim: the vertices near the points, the faces all of whose vertices are kept.
  pcl::PointCloud<pcl::PointXYZ> xyz;
  pcl::copyPointCloud(*points, xyz);
  const std::vector<float> point_xyz = finiteXyz(xyz);
  const GridSearch index = GridSearch::forNearest(point_xyz.data(), point_xyz.size() / 3, 1);
  const std::vector<double> distance = nearestDistances(index, point_xyz, allXyz(vertices), options.threads);
  const double limit = options.trim * diagonal(point_xyz);
  std::vector<std::int64_t> renumbered(vertices.size(), -1);
  pcl::PointCloud<pcl::PointXYZ> kept;
  for (std::size_t v = 0; v < vertices.size(); ++v)
    if (distance[v] <= limit) {
      renumbered[v] = static_cast<std::int64_t>(kept.size());
      kept.push_back(vertices[v]);
    }
  std::vector<pcl::Vertices> faces;
  for (const pcl::Vertices& face : mesh.polygons) {
    pcl::Vertices out;
    for (const auto v : face.vertices) {
      if (renumbered[v] < 0) break;
      out.vertices.push_back(static_cast<std::uint32_t>(renumbered[v]));
    }
    if (out.vertices.size() == face.vertices.size()) faces.push_back(out);
  }
  if (faces.empty()) throw std::runtime_error("trimming left no faces: raise --trim");
  pcl::PolygonMesh trimmed;
  pcl::toPCLPointCloud2(kept, trimmed.cloud);
  trimmed.polygons = std::move(faces);
  return trimmed;
}

MeshFit measureFit(const pcl::PolygonMesh& mesh, const pcl::PointCloud<pcl::PointXYZ>& points, unsigned threads) {
  pcl::PointCloud<pcl::PointXYZ> vertices;
  pcl::fromPCLPointCloud2(mesh.cloud, vertices);
  const std::vector<float> point_xyz = finiteXyz(points), vertex_xyz = finiteXyz(vertices);
  MeshFit fit;
  fit.vertices = vertices.size();
  fit.faces = mesh.polygons.size();
  if (point_xyz.empty() || vertex_xyz.empty()) return fit;
  const double scale = diagonal(point_xyz);
  const auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (const double d : v) sum += d;
    return sum / double(v.size());
  };
  const GridSearch by_points = GridSearch::forNearest(point_xyz.data(), point_xyz.size() / 3, 1);
  const GridSearch by_vertices = GridSearch::forNearest(vertex_xyz.data(), vertex_xyz.size() / 3, 1);
  fit.vertex_to_points = mean(nearestDistances(by_points, point_xyz, vertex_xyz, threads)) / scale;
  fit.points_to_vertex = mean(nearestDistances(by_vertices, vertex_xyz, point_xyz, threads)) / scale;
  return fit;
}

}  // namespace surface
}  // namespace pcl_dise
