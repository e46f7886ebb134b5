// pcl::DeepIterativeNormalEstimation as a drop-in for pcl::NormalEstimation, and its behaviour
// on bad input.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include <gtest/gtest.h>
#include <pcl/features/normal_3d.h>
#include <pcl/io/pcd_io.h>
#include <pcl/search/kdtree.h>

#include "pcl_dise/core/centroid_frame.h"
#include "pcl_dise/core/edge_scale.h"
#include "pcl_dise/core/forward.h"
#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/core/model.h"
#include "pcl_dise/feature/deep_iterative_normal_estimation.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::test;
using Cloud = pcl::PointCloud<pcl::PointXYZ>;
using Dise = pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal>;

// Configures PCL's estimator and ours alike; `k` counts neighbours without the point itself.
struct SearchSetup {
  int k = 0;
  double radius = 0;
  pcl::IndicesPtr indices;
  Cloud::ConstPtr surface;
  Eigen::Vector3f viewpoint = Eigen::Vector3f::Zero();
  bool use_viewpoint = false;
};

template <typename Estimator>
pcl::PointCloud<pcl::Normal> run(Estimator& e, const Cloud::ConstPtr& cloud, const SearchSetup& s, int pcl_k) {
  e.setInputCloud(cloud);
  if (s.indices) e.setIndices(s.indices);
  if (s.surface) e.setSearchSurface(s.surface);
  if (pcl_k > 0)
    e.setKSearch(pcl_k);
  else
    e.setRadiusSearch(s.radius);
  if (s.use_viewpoint) e.setViewPoint(s.viewpoint.x(), s.viewpoint.y(), s.viewpoint.z());
  pcl::PointCloud<pcl::Normal> out;
  e.compute(out);
  return out;
}

void expectMatchesPcl(const Cloud::ConstPtr& cloud, const SearchSetup& s) {
  pcl::NormalEstimation<pcl::PointXYZ, pcl::Normal> pca;
  Dise dise;
  dise.setIterations(0);
  const auto expected = run(pca, cloud, s, s.k > 0 ? s.k + 1 : 0);
  const auto actual = run(dise, cloud, s, s.k);
  ASSERT_EQ(actual.size(), expected.size());
  ASSERT_EQ(actual.width, expected.width);
  EXPECT_EQ(actual.is_dense, expected.is_dense);
  std::size_t compared = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const auto& a = actual[i];
    const auto& b = expected[i];
    ASSERT_EQ(std::isfinite(a.normal_x), std::isfinite(b.normal_x)) << "point " << i;
    if (!std::isfinite(b.normal_x)) continue;
    ++compared;
    EXPECT_NEAR(a.normal_x, b.normal_x, 1e-4) << "point " << i;
    EXPECT_NEAR(a.normal_y, b.normal_y, 1e-4) << "point " << i;
    EXPECT_NEAR(a.normal_z, b.normal_z, 1e-4) << "point " << i;
    EXPECT_NEAR(a.curvature, b.curvature, 1e-4) << "point " << i;
  }
  EXPECT_GT(compared, actual.size() / 2);
}

Cloud::Ptr bunny() {
  auto cloud = pcl::make_shared<Cloud>();
  pcl::io::loadPCDFile(sourceDir() + "/data/clouds/bun0.pcd", *cloud);
  return cloud;
}

// A smooth, gently curved surface: well-defined normals for PCA comparisons.
Cloud::Ptr wavySheet(int n, unsigned seed = 3) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto cloud = pcl::make_shared<Cloud>();
  for (int i = 0; i < n; ++i) {
    const float x = u(rng), y = u(rng);
    cloud->push_back(pcl::PointXYZ(x, y, 0.2f * std::sin(2 * x) * std::cos(1.5f * y)));
  }
  return cloud;
}

TEST(DropIn, MatchesNormalEstimationOnBunny) {
  const auto cloud = bunny();
  SearchSetup knn;
  knn.k = 15;
  expectMatchesPcl(cloud, knn);
  SearchSetup radius;
  radius.radius = 0.01;
  expectMatchesPcl(cloud, radius);
  SearchSetup viewpoint = knn;
  viewpoint.use_viewpoint = true;
  viewpoint.viewpoint = {0.f, 1.f, -2.f};
  expectMatchesPcl(cloud, viewpoint);
}

TEST(DropIn, MatchesNormalEstimationOnSyntheticClouds) {
  for (const auto& cloud : {wavySheet(2000), sphereCloud(1500)}) {
    SearchSetup knn;
    knn.k = 20;
    expectMatchesPcl(cloud, knn);
    SearchSetup radius;
    radius.radius = 0.15;
    expectMatchesPcl(cloud, radius);
  }
}

TEST(DropIn, IndicesAndSearchSurface) {
  const auto cloud = wavySheet(3000);
  SearchSetup subset;
  subset.k = 16;
  subset.indices = pcl::make_shared<pcl::Indices>();
  for (int i = 0; i < 3000; i += 7) subset.indices->push_back(i);
  expectMatchesPcl(cloud, subset);

  // Query a sparse cloud against a dense surface.
  SearchSetup surface;
  surface.k = 16;
  surface.surface = cloud;
  expectMatchesPcl(wavySheet(300, 11), surface);
  surface.k = 0;
  surface.radius = 0.2;
  expectMatchesPcl(wavySheet(300, 11), surface);
}

TEST(DropIn, OtherPointTypes) {
  pcl::PointCloud<pcl::PointXYZRGB>::Ptr cloud(new pcl::PointCloud<pcl::PointXYZRGB>);
  const auto sphere = sphereCloud(300);
  for (const auto& p : *sphere) {
    pcl::PointXYZRGB q;
    q.x = p.x;
    q.y = p.y;
    q.z = p.z;
    cloud->push_back(q);
  }
  pcl::DeepIterativeNormalEstimation<pcl::PointXYZRGB, pcl::PointNormal> dise;
  dise.setInputCloud(cloud);
  dise.setKSearch(16);
  dise.setModelPath(randomModelFile(1));
  dise.setSearchMethod(pcl::make_shared<pcl::search::KdTree<pcl::PointXYZRGB>>());
  pcl::PointCloud<pcl::PointNormal> out;
  dise.compute(out);
  ASSERT_EQ(out.size(), cloud->size());
  for (const auto& p : out) EXPECT_TRUE(std::isfinite(p.normal_x) && std::isfinite(p.curvature));
}

// computePointNormal keeps pcl::NormalEstimation::computePointNormal's contract: the plane fit of
// the given points (normal up to sign, d = -n . centroid), curvature l0 / (l0 + l1 + l2), and false
// with NaN everywhere for fewer than 3 points.
TEST(DropIn, ComputePointNormalKeepsNormalEstimationsContract) {
  const auto cloud = wavySheet(400, 11);
  std::mt19937 rng(4);
  pcl::NormalEstimation<pcl::PointXYZ, pcl::Normal> pca;
  Dise dise;
  for (int trial = 0; trial < 50; ++trial) {
    pcl::Indices indices(3 + trial % 40);
    for (auto& i : indices) i = static_cast<int>(rng() % cloud->size());
    Eigen::Vector4f expected, got;
    float expected_curvature = 0, got_curvature = 0;
    ASSERT_TRUE(pca.computePointNormal(*cloud, indices, expected, expected_curvature));
    ASSERT_TRUE(dise.computePointNormal(*cloud, indices, got, got_curvature));
    const float sign = expected.head<3>().dot(got.head<3>()) < 0.f ? -1.f : 1.f;
    for (int a = 0; a < 4; ++a) EXPECT_NEAR(sign * got[a], expected[a], 2e-4) << "trial " << trial << " axis " << a;
    EXPECT_NEAR(got.head<3>().norm(), 1.f, 1e-5);
    EXPECT_NEAR(got_curvature, expected_curvature, 1e-4) << "trial " << trial;
    float nx, ny, nz, c;
    ASSERT_TRUE(dise.computePointNormal(*cloud, indices, nx, ny, nz, c));
    EXPECT_EQ(nx, got[0]);
    EXPECT_EQ(nz, got[2]);
    EXPECT_EQ(c, got_curvature);
  }
  const pcl::Indices two{0, 1};
  Eigen::Vector4f plane;
  float curvature = 0;
  EXPECT_FALSE(dise.computePointNormal(*cloud, two, plane, curvature));
  EXPECT_TRUE(plane.array().isNaN().all());
  EXPECT_TRUE(std::isnan(curvature));
}

TEST(Dise, RadiusCappedAtKPlusOneEqualsKnn) {
  const auto cloud = sphereCloud(800);
  const std::string model = randomModelFile(5);
  auto estimate = [&](bool radius_mode) {
    Dise dise;
    dise.setInputCloud(cloud);
    dise.setModelPath(model);
    if (radius_mode) {
      dise.setRadiusSearch(10.0);
      dise.setMaxNeighbors(21);
    } else {
      dise.setKSearch(20);
    }
    pcl::PointCloud<pcl::Normal> out;
    dise.compute(out);
    return out;
  };
  const auto knn = estimate(false), radius = estimate(true);
  ASSERT_EQ(knn.size(), radius.size());
  for (std::size_t i = 0; i < knn.size(); ++i) {
    EXPECT_NEAR(knn[i].normal_x, radius[i].normal_x, 1e-5);
    EXPECT_NEAR(knn[i].normal_y, radius[i].normal_y, 1e-5);
    EXPECT_NEAR(knn[i].curvature, radius[i].curvature, 1e-5);
  }
}

TEST(Dise, RadiusNeighbourhoodsHaveTheirTrueSize) {
  const auto cloud = wavySheet(1500);
  const double r = 0.12;
  Dise dise;
  dise.setInputCloud(cloud);
  dise.setRadiusSearch(r);
  dise.setModelPath(randomModelFile(6));
  pcl::PointCloud<pcl::Normal> out;
  dise.compute(out);
  std::set<std::size_t> sizes;
  for (std::size_t i = 0; i < cloud->size(); i += 50) {
    pcl::Indices neighbors;
    std::vector<float> weights;
    ASSERT_TRUE(dise.getKernelWeights(i, neighbors, weights));
    std::size_t brute = 0;
    for (const auto& q : *cloud) brute += ((*cloud)[i].getVector3fMap() - q.getVector3fMap()).norm() <= r;
    EXPECT_EQ(neighbors.size(), brute);
    EXPECT_NEAR(std::accumulate(weights.begin(), weights.end(), 0.0), 1.0, 1e-5);
    sizes.insert(neighbors.size());
  }
  EXPECT_GT(sizes.size(), 3u);  // variable-size, not padded
  // Not kept on request: the same normals, no weights.
  dise.setStoreKernelWeights(false);
  pcl::PointCloud<pcl::Normal> again;
  dise.compute(again);
  pcl::Indices neighbors;
  std::vector<float> weights;
  EXPECT_FALSE(dise.getKernelWeights(0, neighbors, weights));
  for (std::size_t i = 0; i < cloud->size(); ++i)  // equal, or NaN in both (too few neighbours)
    EXPECT_TRUE(again[i].normal_x == out[i].normal_x || (std::isnan(again[i].normal_x) && std::isnan(out[i].normal_x)))
        << i;
}

// getNeighborhoods: one row per finite input point holding its k + 1 nearest points (itself
// included), as brute force finds them; kept with the weights or alone on request, freed on request,
// and none for a search surface other than the input.
TEST(Dise, NeighborhoodsAreEachInputPointsNearest) {
  auto cloud = pcl::make_shared<Cloud>(*sphereCloud(1500));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  (*cloud)[3].x = nan;  // rows then differ from input indices
  (*cloud)[700].z = nan;
  cloud->is_dense = false;
  Dise dise;
  dise.setInputCloud(cloud);
  dise.setKSearch(16);
  dise.setModelPath(randomModelFile(7));
  dise.setStoreKernelWeights(false);
  dise.setStoreNeighborhoods(true);
  pcl::PointCloud<pcl::Normal> out;
  dise.compute(out);
  const pcl_dise::KnownNeighborhoods known = dise.getNeighborhoods();
  ASSERT_NE(known.rows, nullptr);
  ASSERT_EQ(known.rows->numNodes(), cloud->size() - 2);
  std::vector<int> rows_of_point(cloud->size(), 0);
  for (std::size_t r = 0; r < known.rows->numNodes(); ++r) {
    const std::int32_t p = known.point_of_row[r];
    ASSERT_TRUE(p >= 0 && p < std::int32_t(cloud->size()) && pcl::isFinite((*cloud)[p]));
    ++rows_of_point[p];
    std::vector<std::pair<float, std::int32_t>> brute;
    for (std::size_t q = 0; q < cloud->size(); ++q)
      if (pcl::isFinite((*cloud)[q]))
        brute.emplace_back(((*cloud)[q].getVector3fMap() - (*cloud)[p].getVector3fMap()).squaredNorm(),
                           std::int32_t(q));
    std::sort(brute.begin(), brute.end());
    std::set<std::int32_t> expected, found;
    for (std::size_t e = 0; e < 17; ++e) expected.insert(brute[e].second);
    for (const std::int32_t* e = known.rows->begin(r); e != known.rows->begin(r) + known.rows->size(r); ++e)
      found.insert(known.point_of_row[*e]);
    ASSERT_EQ(found, expected) << "row of point " << p;
  }
  EXPECT_EQ(rows_of_point[3] + rows_of_point[700], 0);
  EXPECT_EQ(std::count(rows_of_point.begin(), rows_of_point.end(), 1), std::ptrdiff_t(cloud->size() - 2));
  dise.releaseNeighborhoods();
  EXPECT_EQ(dise.getNeighborhoods().rows, nullptr);

  dise.setStoreNeighborhoods(false);
  dise.compute(out);
  EXPECT_EQ(dise.getNeighborhoods().rows, nullptr);  // neither weights nor neighbourhoods kept
  dise.setStoreKernelWeights(true);
  dise.compute(out);
  dise.releaseNeighborhoods();  // the weights read them: kept
  EXPECT_NE(dise.getNeighborhoods().rows, nullptr);
  dise.setSearchSurface(sphereCloud(1000, 3));
  dise.compute(out);
  EXPECT_EQ(dise.getNeighborhoods().rows, nullptr);
}

TEST(Dise, InputOrderOnlyBreaksTies) {
  // A stepped lattice, a few points doubled, in random order: distances tie everywhere, and the
  // input order is far from the spatial one. The feature works on the points renumbered along a
  // curve; its normals must be, bit for bit, those of the forward pass run on the cloud as given
  // (the grid search's lists, ties by input index, points visited in input order), each position
  // once: a doubled point's copies take the normal of the first of them.
  auto cloud = pcl::make_shared<Cloud>();
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 40; ++j) cloud->push_back(pcl::PointXYZ(0.5f * i, 0.5f * j, 0.25f * ((i / 8) % 3)));
  for (std::size_t p = 0; p < 1600; p += 37) cloud->push_back((*cloud)[p]);
  std::shuffle(cloud->begin(), cloud->end(), std::mt19937(11));
  const std::string model_file = randomModelFile(12);
  const int k = 24;

  // The forward pass on the distinct positions in input order, centred as the feature centres
  // them (on every point, twins too).
  pcl_dise::FloatCentroid centroid;
  for (const auto& p : *cloud) centroid.add(p.data);
  std::vector<float> positions;
  std::vector<std::size_t> distinct_of(cloud->size());
  std::map<std::array<float, 3>, std::size_t> distinct_at;
  for (std::size_t i = 0; i < cloud->size(); ++i) {
    const std::array<float, 3> key{(*cloud)[i].x, (*cloud)[i].y, (*cloud)[i].z};
    const auto [it, first] = distinct_at.emplace(key, distinct_at.size());
    distinct_of[i] = it->second;
    if (!first) continue;
    const std::array<float, 3> q = pcl_dise::centredOn((*cloud)[i].data, centroid.centroid());
    positions.insert(positions.end(), q.begin(), q.end());
  }
  const std::size_t distinct = distinct_at.size();
  ASSERT_LT(distinct, cloud->size());
  const pcl_dise::Neighborhoods lists =
      pcl_dise::GridSearch::forNearest(positions.data(), distinct, k + 1).nearest(positions.data(), distinct, k + 1);
  pcl_dise::ForwardInput input;
  input.points = positions.data();
  input.num_points = distinct;
  input.neighborhoods = &lists;
  input.edge_scale = pcl_dise::edgeScale(positions.data(), lists.truncated(distinct, 17));
  pcl_dise::ForwardOptions options;
  options.iterations = 2;
  const pcl_dise::ForwardResult expected = pcl_dise::runForward(pcl_dise::loadModel(model_file), input, options);

  Dise dise;
  dise.setInputCloud(cloud);
  dise.setModelPath(model_file);
  dise.setIterations(2);
  dise.setKSearch(k);
  pcl::PointCloud<pcl::Normal> out;
  dise.compute(out);
  ASSERT_EQ(out.size(), cloud->size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t d = distinct_of[i];
    float n[3] = {expected.normals[3 * d], expected.normals[3 * d + 1], expected.normals[3 * d + 2]};
    pcl::flipNormalTowardsViewpoint((*cloud)[i], 0.f, 0.f, 0.f, n[0], n[1], n[2]);
    ASSERT_EQ(out[i].normal_x, n[0]) << "point " << i;
    ASSERT_EQ(out[i].normal_y, n[1]) << "point " << i;
    ASSERT_EQ(out[i].normal_z, n[2]) << "point " << i;
    ASSERT_EQ(out[i].curvature, expected.curvature[d]) << "point " << i;
  }
}

TEST(Dise, StoresEveryIteration) {
  // Iterations are stored and differ from the PCA; the final output equals the last one.
  const auto cloud = boxCloud(2000);
  Dise dise;
  dise.setInputCloud(cloud);
  dise.setKSearch(32);
  dise.setModelPath(randomModelFile(7));
  dise.setStoreIterations(true);
  pcl::PointCloud<pcl::Normal> out, it0, it4;
  dise.compute(out);
  ASSERT_TRUE(dise.getIterationNormals(0, it0));
  ASSERT_TRUE(dise.getIterationNormals(4, it4));
  double changed = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_FLOAT_EQ(out[i].normal_x, it4[i].normal_x);
    changed += unorientedAngleDeg(it0[i].normal, it4[i].normal) > 0.01;
  }
  EXPECT_GT(changed, 0);
  pcl::PointCloud<pcl::Normal> unused;
  EXPECT_FALSE(dise.getIterationNormals(5, unused));
}

TEST(Dise, DefaultModelFollowsKSearch) {
  // With no model set, each compute loads the default model for its k (dise_k<k>, else dise_k64);
  // an explicit file or an in-memory model stays whatever k is.
  const std::string dir = temporaryDir("models_by_k");
  std::filesystem::copy_file(randomModelFile(11), dir + "/dise_k8.safetensors");
  std::filesystem::copy_file(randomModelFile(12), dir + "/dise_k64.safetensors");
  ScopedModelDir scope(dir);
  auto parametersOf = [](const std::shared_ptr<const pcl_dise::Model>& model) {
    return model ? pcl_dise::packParameters(*model) : std::vector<float>{};
  };
  const auto k8 = pcl_dise::packParameters(pcl_dise::loadModel(dir + "/dise_k8.safetensors"));
  const auto k64 = pcl_dise::packParameters(pcl_dise::loadModel(dir + "/dise_k64.safetensors"));

  Dise dise;
  dise.setInputCloud(sphereCloud(200));
  pcl::PointCloud<pcl::Normal> out;
  dise.setKSearch(8);
  EXPECT_EQ(dise.getModelPath(), dir + "/dise_k8.safetensors");
  dise.compute(out);
  EXPECT_EQ(out.size(), 200u);
  EXPECT_EQ(parametersOf(dise.getModel()), k8);
  dise.setKSearch(16);  // no k = 16 model: the k = 64 one
  dise.compute(out);
  EXPECT_EQ(dise.getModelPath(), dir + "/dise_k64.safetensors");
  EXPECT_EQ(parametersOf(dise.getModel()), k64);
  dise.setKSearch(0);
  dise.setRadiusSearch(0.3);
  EXPECT_EQ(dise.getModelPath(), dir + "/dise_k64.safetensors");

  dise.setRadiusSearch(0);
  dise.setKSearch(8);
  const std::string explicit_model = randomModelFile(13);
  dise.setModelPath(explicit_model);
  dise.compute(out);
  EXPECT_EQ(dise.getModelPath(), explicit_model);
  EXPECT_EQ(parametersOf(dise.getModel()), pcl_dise::packParameters(pcl_dise::loadModel(explicit_model)));
  const auto in_memory = std::make_shared<const pcl_dise::Model>(pcl_dise::randomModel(14));
  dise.setModel(in_memory);
  dise.compute(out);
  EXPECT_EQ(dise.getModelPath(), "");
  EXPECT_EQ(dise.getModel(), in_memory);
  dise.setModelPath("");  // back to the default for k
  EXPECT_EQ(dise.getModelPath(), dir + "/dise_k8.safetensors");
}

TEST(Dise, ViewpointAndSensorOrigin) {
  auto cloud = sphereCloud(500);
  cloud->sensor_origin_ = Eigen::Vector4f(0, 0, 0, 1);  // inside the sphere: normals point inwards
  Dise dise;
  dise.setModelPath(randomModelFile(8));
  dise.setInputCloud(cloud);
  dise.setKSearch(16);
  pcl::PointCloud<pcl::Normal> out;
  dise.compute(out);
  for (std::size_t i = 0; i < out.size(); ++i)
    EXPECT_LT(out[i].getNormalVector3fMap().dot((*cloud)[i].getVector3fMap()), 0.f);
  dise.setViewPoint(0, 0, 10);
  float vx, vy, vz;
  dise.getViewPoint(vx, vy, vz);
  EXPECT_EQ(vz, 10.f);
  dise.compute(out);
  for (std::size_t i = 0; i < out.size(); ++i)
    EXPECT_GE(out[i].getNormalVector3fMap().dot(Eigen::Vector3f(0, 0, 10) - (*cloud)[i].getVector3fMap()), 0.f);
  dise.useSensorOriginAsViewPoint();
  dise.getViewPoint(vx, vy, vz);
  EXPECT_EQ(vz, 0.f);
}

// ---- bad input ----

TEST(BadInput, EmptyCloud) {
  Dise dise;
  dise.setInputCloud(pcl::make_shared<Cloud>());
  dise.setKSearch(8);
  dise.setModelPath(randomModelFile(1));
  pcl::PointCloud<pcl::Normal> out;
  out.resize(3);
  dise.compute(out);
  EXPECT_TRUE(out.empty());
}

TEST(BadInput, NanPointsInAnOrganizedScan) {
  if (!sharedFileExists("data/scans/table_scene_mug_stereo_textured.pcd")) GTEST_SKIP() << "scan not found";
  auto full = pcl::make_shared<Cloud>();
  pcl::io::loadPCDFile(sharedDir() + "/data/scans/table_scene_mug_stereo_textured.pcd", *full);
  // Every 4th row and column keeps the test fast while staying organized and full of NaNs.
  auto cloud = pcl::make_shared<Cloud>(full->width / 4, full->height / 4);
  for (std::uint32_t r = 0; r < cloud->height; ++r)
    for (std::uint32_t c = 0; c < cloud->width; ++c) cloud->at(c, r) = full->at(4 * c, 4 * r);
  cloud->is_dense = false;
  Dise dise;
  dise.setInputCloud(cloud);
  dise.setKSearch(16);
  dise.setModelPath(randomModelFile(2));
  pcl::PointCloud<pcl::Normal> out;
  dise.compute(out);
  ASSERT_EQ(out.size(), cloud->size());
  EXPECT_EQ(out.width, cloud->width);
  EXPECT_EQ(out.height, cloud->height);
  EXPECT_FALSE(out.is_dense);
  std::size_t nan_points = 0, good = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!pcl::isFinite((*cloud)[i])) {
      ++nan_points;
      EXPECT_TRUE(std::isnan(out[i].normal_x) && std::isnan(out[i].curvature));
    } else {
      good += std::isfinite(out[i].normal_x);
    }
  }
  EXPECT_GT(nan_points, 100u);
  EXPECT_GT(good, out.size() / 2);
}

TEST(BadInput, FewerPointsThanKPlusOne) {
  const auto cloud = sphereCloud(10);
  Dise dise;
  dise.setInputCloud(cloud);
  dise.setKSearch(64);
  dise.setModelPath(randomModelFile(3));
  pcl::PointCloud<pcl::Normal> out;
  dise.compute(out);
  ASSERT_EQ(out.size(), 10u);
  for (const auto& n : out) EXPECT_TRUE(std::isfinite(n.normal_x));
}

TEST(BadInput, DuplicatePointsAndLonelyPoints) {
  auto cloud = wavySheet(500);
  for (int i = 0; i < 100; ++i) cloud->push_back((*cloud)[i]);                         // duplicates
  for (int i = 0; i < 5; ++i) cloud->push_back(pcl::PointXYZ(50.f + 10 * i, 50, 50));  // alone in space
  for (int i = 0; i < 4; ++i) cloud->push_back(pcl::PointXYZ(-40, -40, -40));          // coincident cluster
  Dise dise;
  dise.setInputCloud(cloud);
  dise.setRadiusSearch(0.2);
  dise.setModelPath(randomModelFile(4));
  pcl::PointCloud<pcl::Normal> out;
  dise.compute(out);
  ASSERT_EQ(out.size(), cloud->size());
  EXPECT_FALSE(out.is_dense);
  for (std::size_t i = 0; i < 600; ++i) EXPECT_TRUE(std::isfinite(out[i].normal_x)) << i;
  for (std::size_t i = 600; i < cloud->size(); ++i) EXPECT_TRUE(std::isnan(out[i].normal_x)) << i;
  EXPECT_FLOAT_EQ(out[3].normal_x, out[503].normal_x);  // a duplicate gets its twin's normal
}

TEST(BadInput, CollinearPoints) {
  auto cloud = pcl::make_shared<Cloud>();
  for (int i = 0; i < 50; ++i) cloud->push_back(pcl::PointXYZ(0.1f * i, 0.2f * i, 0.f));
  Dise dise;
  dise.setInputCloud(cloud);
  dise.setKSearch(8);
  dise.setModelPath(randomModelFile(5));
  pcl::PointCloud<pcl::Normal> out;
  dise.compute(out);
  for (const auto& n : out) {
    EXPECT_NEAR(n.normal_x * 0.1f + n.normal_y * 0.2f, 0.f, 1e-5f);  // perpendicular to the line
    EXPECT_NEAR(n.getNormalVector3fMap().norm(), 1.f, 1e-5f);
  }
}

TEST(BadInput, BothOrNeitherSearchParameter) {
  Dise dise;
  dise.setInputCloud(sphereCloud(100));
  dise.setModelPath(randomModelFile(6));
  pcl::PointCloud<pcl::Normal> out;
  dise.compute(out);
  EXPECT_TRUE(out.empty());
  dise.setKSearch(8);
  dise.setRadiusSearch(0.3);
  dise.compute(out);
  EXPECT_TRUE(out.empty());
}

TEST(BadInput, MissingOrCorruptModel) {
  Dise dise;
  dise.setInputCloud(sphereCloud(100));
  dise.setKSearch(8);
  dise.setModelPath("/nonexistent/dise_k64.safetensors");
  pcl::PointCloud<pcl::Normal> out;
  dise.compute(out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(dise.getModel(), nullptr);
  const std::string corrupt = temporaryDir("corrupt") + "/bad.safetensors";
  std::ofstream(corrupt) << "not a model";
  dise.setModelPath(corrupt);
  dise.compute(out);
  EXPECT_TRUE(out.empty());
  dise.setIterations(0);  // PCA needs no model
  dise.compute(out);
  EXPECT_EQ(out.size(), 100u);
}

TEST(BadInput, GeoreferencedCoordinates) {
  auto surface = [](const Eigen::Vector3f& offset) {
    auto cloud = pcl::make_shared<Cloud>();
    for (int i = 0; i <= 100; ++i)
      for (int j = 0; j <= 100; ++j) {
        const float x = 0.5f * i, y = 0.5f * j;
        const float z = 3.f * std::sin(x / 8.f) * std::cos(y / 11.f);
        cloud->push_back(pcl::PointXYZ(x + offset.x(), y + offset.y(), z + offset.z()));
      }
    return cloud;
  };
  const std::string model = randomModelFile(9);
  auto estimate = [&](const Cloud::Ptr& cloud) {
    Dise dise;
    dise.setInputCloud(cloud);
    dise.setKSearch(24);
    dise.setModelPath(model);
    dise.setViewPoint(0, 0, 1e4);
    pcl::PointCloud<pcl::Normal> out;
    dise.compute(out);
    return out;
  };
  const auto near = estimate(surface({0, 0, 0}));
  const auto far = estimate(surface({1e6f, 1e6f, 100.f}));
  ASSERT_EQ(near.size(), far.size());
  for (std::size_t i = 0; i < near.size(); ++i) EXPECT_LT(unorientedAngleDeg(near[i].normal, far[i].normal), 1.0) << i;
}

}  // namespace
