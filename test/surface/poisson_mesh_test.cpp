// Poisson meshes (src/surface) as a unit: what Poisson reads from points and normals (NaN and
// zero-weight normals left out, weights as lengths), a sphere with its true normals meshed onto
// the sphere, too few points refused, and mesh files by extension.
#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <pcl/conversions.h>

#include "surface/mesh_files.h"
#include "surface/poisson_mesh.h"
#include "test_support.h"

namespace {

using namespace pcl_dise;

// A sphere's points (radius 1) and their outward unit normals.
void sphereWithNormals(int n, pcl::PointCloud<pcl::PointXYZ>& points, pcl::PointCloud<pcl::Normal>& normals) {
  points = *test::sphereCloud(n);
  normals.clear();
  for (const auto& p : points) {
    const float length = p.getVector3fMap().norm();
    normals.push_back(pcl::Normal(p.x / length, p.y / length, p.z / length));
  }
}

TEST(PoissonMesh, PoissonReadsFiniteNormalsWithTheirWeightsAsLengths) {
  pcl::PointCloud<pcl::PointXYZ> points;
  pcl::PointCloud<pcl::Normal> normals;
  sphereWithNormals(10, points, normals);
  normals[2].normal_x = std::numeric_limits<float>::quiet_NaN();
  points[4].z = std::numeric_limits<float>::infinity();
  EXPECT_EQ(surface::pointsWithNormals(points, normals)->size(), 8u);

  std::vector<float> weights(10, 1.f);
  weights[0] = 0.25f;
  weights[7] = 0.f;  // no weight: left out
  const auto weighted = surface::pointsWithNormals(points, normals, &weights);
  ASSERT_EQ(weighted->size(), 7u);
  EXPECT_FLOAT_EQ((*weighted)[0].getNormalVector3fMap().norm(), 0.25f);
  EXPECT_FLOAT_EQ((*weighted)[1].getNormalVector3fMap().norm(), 1.f);

  weights.pop_back();
  EXPECT_THROW(surface::pointsWithNormals(points, normals, &weights), std::invalid_argument);
  normals.push_back(pcl::Normal(0, 0, 1));
  EXPECT_THROW(surface::pointsWithNormals(points, normals), std::invalid_argument);
}

TEST(PoissonMesh, ASphereWithItsTrueNormalsIsMeshedOntoTheSphere) {
  pcl::PointCloud<pcl::PointXYZ> points;
  pcl::PointCloud<pcl::Normal> normals;
  sphereWithNormals(4000, points, normals);
  surface::PoissonOptions options;
  options.depth = 6;
  options.threads = 2;
  const pcl::PolygonMesh mesh = surface::reconstructPoisson(surface::pointsWithNormals(points, normals), options);
  pcl::PointCloud<pcl::PointXYZ> vertices;
  pcl::fromPCLPointCloud2(mesh.cloud, vertices);
  ASSERT_GT(mesh.polygons.size(), 500u);
  for (const auto& v : vertices) ASSERT_NEAR(v.getVector3fMap().norm(), 1.0, 0.03);
  const surface::MeshFit fit = surface::measureFit(mesh, points, 2);
  EXPECT_EQ(fit.vertices, vertices.size());
  EXPECT_EQ(fit.faces, mesh.polygons.size());
  EXPECT_LT(fit.vertex_to_points, 0.02);  // of the diagonal (about 3.5)
  EXPECT_LT(fit.points_to_vertex, 0.02);
}

TEST(PoissonMesh, TooFewPointsAreRefused) {
  pcl::PointCloud<pcl::PointXYZ> points;
  pcl::PointCloud<pcl::Normal> normals;
  sphereWithNormals(9, points, normals);
  EXPECT_THROW(surface::reconstructPoisson(surface::pointsWithNormals(points, normals), surface::PoissonOptions()),
               std::runtime_error);
}

TEST(MeshFiles, AMeshIsWrittenByItsExtensionAndOtherExtensionsAreRefused) {
  EXPECT_NO_THROW(surface::checkMeshPath("mesh.ply"));
  EXPECT_NO_THROW(surface::checkMeshPath("mesh.obj"));
  EXPECT_THROW(surface::checkMeshPath("mesh.stl"), std::runtime_error);
  pcl::PointCloud<pcl::PointXYZ> points;
  pcl::PointCloud<pcl::Normal> normals;
  sphereWithNormals(2000, points, normals);
  surface::PoissonOptions options;
  options.depth = 5;
  const pcl::PolygonMesh mesh = surface::reconstructPoisson(surface::pointsWithNormals(points, normals), options);
  const std::string dir = test::temporaryDir("mesh_files");
  for (const char* name : {"/mesh.ply", "/mesh.obj"}) {
    surface::writeMesh(dir + name, mesh);
    EXPECT_GT(std::filesystem::file_size(dir + name), 1000u) << name;
  }
  EXPECT_THROW(surface::writeMesh("/nonexistent/folder/mesh.ply", mesh), std::runtime_error);
}

}  // namespace
