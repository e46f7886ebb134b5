// pcl::DeepIterativeNormalEstimation where PCL's own normal-estimation behaviours define the
// answer, side by side with pcl::NormalEstimation / NormalEstimationOMP: the constructors, a user's
// search as PCL's features call it, a search surface larger than the input (the receptive field
// alone, the same bytes), coincident points, and a normal exactly where PCL gives one.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <pcl/features/normal_3d.h>
#include <pcl/features/normal_3d_omp.h>
#include <pcl/io/pcd_io.h>
#include <pcl/search/kdtree.h>

#include "pcl_dise/feature/deep_iterative_normal_estimation.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::test;
using Cloud = pcl::PointCloud<pcl::PointXYZ>;
using Normals = pcl::PointCloud<pcl::Normal>;
using Dise = pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal>;

Cloud::Ptr bunny() {
  auto cloud = pcl::make_shared<Cloud>();
  pcl::io::loadPCDFile(sourceDir() + "/data/clouds/bun0.pcd", *cloud);
  return cloud;
}

Cloud::Ptr wavySheet(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto cloud = pcl::make_shared<Cloud>();
  for (int i = 0; i < n; ++i) {
    const float x = u(rng), y = u(rng);
    cloud->push_back(pcl::PointXYZ(x, y, 0.2f * std::sin(3 * x) * std::cos(2 * y)));
  }
  return cloud;
}

// A search written for PCL's behaviour: it fills the output vectors in place, as sized by the
// caller, and counts the calls that came without them sized to k.
class SizedOutputSearch : public pcl::search::KdTree<pcl::PointXYZ> {
 public:
  int nearestKSearch(const pcl::PointXYZ& point, int k, pcl::Indices& indices,
                     std::vector<float>& distances) const override {
    ++calls;
    if (indices.size() != std::size_t(k) || distances.size() != std::size_t(k)) {
      ++unsized;  // written for PCL, this search would write past the end: counted, then sized
      indices.resize(k);
      distances.resize(k);
    }
    pcl::Indices found;
    std::vector<float> d;
    const int n = pcl::search::KdTree<pcl::PointXYZ>::nearestKSearch(point, k, found, d);
    for (int j = 0; j < n; ++j) {
      indices[j] = found[j];
      distances[j] = d[j];
    }
    indices.resize(n);
    distances.resize(n);
    return n;
  }
  using pcl::search::KdTree<pcl::PointXYZ>::nearestKSearch;
  mutable std::atomic<int> calls{0}, unsized{0};
};

bool sameBytes(const pcl::Normal& a, const pcl::Normal& b) {
  return std::memcmp(a.normal, b.normal, 3 * sizeof(float)) == 0 &&
         std::memcmp(&a.curvature, &b.curvature, sizeof(float)) == 0;
}

Normals computeWith(Dise& dise, const Cloud::ConstPtr& cloud) {
  dise.setInputCloud(cloud);
  Normals out;
  dise.compute(out);
  return out;
}

TEST(PclBehaviours, ConstructorsOfBothClasses) {
  const Dise plain;
  EXPECT_EQ(plain.getNumberOfThreads(), 0u);  // all hardware threads, as NormalEstimationOMP()
  Dise threaded(1);                           // as NormalEstimationOMP(nr_threads)
  EXPECT_EQ(threaded.getNumberOfThreads(), 1u);
  Dise all;
  const auto cloud = wavySheet(800, 2);
  for (Dise* dise : {&threaded, &all}) {
    dise->setKSearch(16);
    dise->setModelPath(randomModelFile(31));
  }
  const Normals one = computeWith(threaded, cloud), every = computeWith(all, cloud);
  ASSERT_EQ(one.size(), every.size());
  for (std::size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(sameBytes(one[i], every[i])) << i;
}

TEST(PclBehaviours, AUsersSearchGetsOutputVectorsSizedToK) {
  const auto cloud = bunny();
  auto theirs = pcl::make_shared<SizedOutputSearch>();
  pcl::NormalEstimation<pcl::PointXYZ, pcl::Normal> pca;
  pca.setInputCloud(cloud);
  pca.setSearchMethod(theirs);
  pca.setKSearch(11);
  Normals expected;
  pca.compute(expected);
  EXPECT_EQ(theirs->unsized.load(), 0);  // PCL's contract (PCL PR #3614)

  auto ours = pcl::make_shared<SizedOutputSearch>();
  Dise dise;
  dise.setSearchMethod(ours);
  dise.setKSearch(10);  // 10 neighbours + the point: the same 11 as PCL's setKSearch(11)
  const Normals got = computeWith(dise, cloud);
  EXPECT_EQ(ours->unsized.load(), 0);
  EXPECT_EQ(ours->calls.load(), static_cast<int>(cloud->size()));  // one query per point, k + 1 each
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(std::isfinite(got[i].normal_x), std::isfinite(expected[i].normal_x)) << i;
}

// A few points' normals over a larger surface: the bytes of the whole surface's estimate at those
// points, and a search that asks for their receptive field alone.
TEST(PclBehaviours, ASearchSurfaceLargerThanTheInputEstimatesWhatTheQueriesRead) {
  const auto surface = wavySheet(30000, 5);
  auto queries = pcl::make_shared<Cloud>();
  auto picked = pcl::make_shared<pcl::Indices>();
  for (int i = 0; i < 30000; i += 997) {
    queries->push_back((*surface)[i]);
    picked->push_back(i);
  }
  for (pcl_dise::EdgeScaleRule rule : {pcl_dise::EdgeScaleRule::Global, pcl_dise::EdgeScaleRule::Local})
    for (bool users_search : {false, true})
      for (int k : {0, 16}) {
        auto configure = [&](Dise& dise, pcl::search::Search<pcl::PointXYZ>::Ptr search) {
          if (k > 0)
            dise.setKSearch(k);
          else
            dise.setRadiusSearch(0.04);
          dise.setModelPath(randomModelFile(32, rule));
          if (search) dise.setSearchMethod(search);
        };
        auto counting = pcl::make_shared<SizedOutputSearch>();
        Dise whole;
        configure(whole, users_search ? pcl::make_shared<pcl::search::KdTree<pcl::PointXYZ>>() : nullptr);
        const Normals all = computeWith(whole, surface);

        Dise few;
        configure(few, users_search ? counting : nullptr);
        few.setSearchSurface(surface);
        const Normals some = computeWith(few, queries);

        Dise indexed;
        configure(indexed, nullptr);
        indexed.setIndices(picked);
        const Normals by_indices = computeWith(indexed, surface);
        ASSERT_EQ(some.size(), picked->size());
        ASSERT_EQ(by_indices.size(), picked->size());
        for (std::size_t q = 0; q < picked->size(); ++q) {
          EXPECT_TRUE(sameBytes(some[q], all[(*picked)[q]])) << "query " << q << ", k " << k << ", " << toString(rule);
          if (!users_search) {
            EXPECT_TRUE(sameBytes(by_indices[q], all[(*picked)[q]]))
                << "index " << q << ", k " << k << ", " << toString(rule);
          }
        }
        if (users_search && k > 0) {
          EXPECT_GT(counting->calls.load(), static_cast<int>(picked->size()));
          EXPECT_LT(counting->calls.load(), 30000 / 4) << "the receptive field alone is searched";
        }
      }
}

TEST(PclBehaviours, IndicesOverHalfTheCloudAndUnderItGiveTheSameBytes) {
  const auto cloud = wavySheet(4000, 6);
  auto half = pcl::make_shared<pcl::Indices>(), few = pcl::make_shared<pcl::Indices>();
  for (int i = 0; i < 4000; i += 2) half->push_back(i);
  for (int i = 0; i < 4000; i += 50) few->push_back(i);
  auto run = [&](const pcl::IndicesPtr& indices) {
    Dise dise;
    dise.setKSearch(12);
    dise.setModelPath(randomModelFile(33));
    dise.setIndices(indices);
    return computeWith(dise, cloud);
  };
  const Normals a = run(half), b = run(few);
  for (std::size_t f = 0; f < few->size(); ++f) EXPECT_TRUE(sameBytes(b[f], a[25 * f])) << f;
}

// An organized scan's invalid pixels written as zeros: the stacked points get NaN (a fit of one
// position has no plane: PCL's convention for a failed fit), every other point its normal.
TEST(PclBehaviours, CoincidentPointsGetNaNAndTheRestTheirNormals) {
  auto cloud = bunny();
  const std::size_t distinct = cloud->size();
  for (int i = 0; i < 5000; ++i) cloud->push_back(pcl::PointXYZ(0.f, 0.f, 0.f));
  Dise dise;
  dise.setKSearch(64);
  const Normals out = computeWith(dise, cloud);
  ASSERT_EQ(out.size(), cloud->size());
  for (std::size_t i = 0; i < distinct; ++i) EXPECT_TRUE(std::isfinite(out[i].normal_x)) << i;
  for (std::size_t i = distinct; i < cloud->size(); ++i) ASSERT_TRUE(std::isnan(out[i].normal_x)) << i;
}

// Every position stored twice (a cloud saved twice, merged passes): with iterations, each position
// is one point, and each copy gets the cloud's own normal, bit for bit, whether the whole cloud or
// a few points are estimated, by k or radius, the grid's search or a radius search of the user's.
// A user's k search is asked for k + 1 points, twins among them: its rows name each position once.
TEST(PclBehaviours, ACloudStoredTwiceGivesEachCopyTheCloudsOwnNormals) {
  const auto sheet = wavySheet(3000, 8);
  const std::size_t n = sheet->size();
  auto twice = pcl::make_shared<Cloud>(*sheet);
  *twice += *sheet;
  auto few = pcl::make_shared<pcl::Indices>();
  for (std::size_t i = n; i < 2 * n; i += 97) few->push_back(static_cast<pcl::index_t>(i));
  for (pcl_dise::EdgeScaleRule rule : {pcl_dise::EdgeScaleRule::Global, pcl_dise::EdgeScaleRule::Local})
    for (int k : {16, 0})
      for (bool users_search : {false, true}) {
        auto configure = [&](Dise& dise) {
          if (k > 0)
            dise.setKSearch(k);
          else
            dise.setRadiusSearch(0.08);
          dise.setModelPath(randomModelFile(34, rule));
          if (users_search) dise.setSearchMethod(pcl::make_shared<pcl::search::KdTree<pcl::PointXYZ>>());
        };
        Dise own_estimation, doubled_estimation, few_estimation;
        configure(own_estimation);
        configure(doubled_estimation);
        configure(few_estimation);
        few_estimation.setIndices(few);
        const Normals own = computeWith(own_estimation, sheet);
        doubled_estimation.setStoreKernelWeights(true);
        const Normals doubled = computeWith(doubled_estimation, twice);
        const Normals some = computeWith(few_estimation, twice);
        ASSERT_EQ(doubled.size(), 2 * n);
        const std::string what =
            "k " + std::to_string(k) + (users_search ? ", user's search, " : ", grid, ") + pcl_dise::toString(rule);
        if (!(users_search && k > 0)) {
          for (std::size_t i = 0; i < n; ++i) {
            ASSERT_TRUE(sameBytes(doubled[i], own[i])) << i << ", " << what;
            ASSERT_TRUE(sameBytes(doubled[n + i], own[i])) << n + i << ", " << what;
          }
          for (std::size_t f = 0; f < few->size(); ++f)
            EXPECT_TRUE(sameBytes(some[f], own[(*few)[f] - n])) << f << ", " << what;
          continue;
        }
        for (std::size_t i = 0; i < 2 * n; i += 101) {
          pcl::Indices row;
          std::vector<float> weights;
          ASSERT_TRUE(doubled_estimation.getKernelWeights(i, row, weights)) << i;
          for (pcl::index_t& j : row) j = static_cast<pcl::index_t>(j % n);  // its position
          std::sort(row.begin(), row.end());
          EXPECT_EQ(std::adjacent_find(row.begin(), row.end()), row.end()) << "a position twice in row " << i;
          EXPECT_TRUE(sameBytes(doubled[i], doubled[(i + n) % (2 * n)])) << i;
        }
      }
}

// Side by side with pcl::NormalEstimation: a normal at the same points; returns how many.
std::size_t expectNaNWherePcl(const Cloud::ConstPtr& cloud, int k, double radius) {
  pcl::NormalEstimation<pcl::PointXYZ, pcl::Normal> pca;
  pca.setInputCloud(cloud);
  if (k > 0)
    pca.setKSearch(k + 1);
  else
    pca.setRadiusSearch(radius);
  Normals expected;
  pca.compute(expected);
  Dise dise;  // the shipped model, 4 iterations
  if (k > 0)
    dise.setKSearch(k);
  else
    dise.setRadiusSearch(radius);
  const Normals got = computeWith(dise, cloud);
  if (got.size() != expected.size()) {
    ADD_FAILURE() << got.size() << " normals, PCL " << expected.size();
    return 0;
  }
  std::size_t with_normal = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(std::isfinite(got[i].normal_x), std::isfinite(expected[i].normal_x))
        << "point " << i << ", k " << k << ", radius " << radius;
    with_normal += std::isfinite(got[i].normal_x);
  }
  return with_normal;
}

TEST(PclBehaviours, RadiusSearchGivesANormalExactlyWherePclDoes) {
  const auto cloud = bunny();
  for (double r : {0.004, 0.006, 0.008, 0.01, 0.02}) EXPECT_GT(expectNaNWherePcl(cloud, 0, r), 0u) << r;
}

TEST(PclBehaviours, KSearchGivesANormalWhereThreeFiniteNeighboursAre) {
  // An organized frame, most pixels invalid: few finite points, each with NaN pixels around it.
  auto frame = pcl::make_shared<Cloud>(12, 10);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (auto& p : *frame) p = pcl::PointXYZ(nan, nan, nan);
  (*frame)(2, 3) = pcl::PointXYZ(0.f, 0.f, 1.f);
  (*frame)(7, 3) = pcl::PointXYZ(0.1f, 0.f, 1.f);
  frame->is_dense = false;
  EXPECT_EQ(expectNaNWherePcl(frame, 5, 0), 0u);  // 2 finite points: none gets a normal
  (*frame)(5, 8) = pcl::PointXYZ(0.f, 0.1f, 1.05f);
  EXPECT_EQ(expectNaNWherePcl(frame, 1, 0), 0u);   // k + 1 = 2 entries: fewer than 3
  EXPECT_EQ(expectNaNWherePcl(frame, 2, 0), 3u);   // 3 entries: a plane each
  EXPECT_EQ(expectNaNWherePcl(frame, 20, 0), 3u);  // more asked than there are: the 3 there
}

// A point whose neighbours have no normal (each alone within the radius but for it) keeps its own.
TEST(PclBehaviours, ANeighbourWithoutANormalDoesNotTakeThePointsNormal) {
  auto cloud = pcl::make_shared<Cloud>();
  const float r = 0.1f;
  cloud->push_back(pcl::PointXYZ(0.f, 0.f, 0.f));
  cloud->push_back(pcl::PointXYZ(0.9f * r, 0.f, 0.f));
  cloud->push_back(pcl::PointXYZ(0.f, 0.9f * r, 0.f));
  EXPECT_EQ(expectNaNWherePcl(cloud, 0, r), 1u);
  Dise dise;
  dise.setRadiusSearch(r);
  const Normals out = computeWith(dise, cloud);
  EXPECT_NEAR(std::fabs(out[0].normal_z), 1.f, 1e-6f);
}

}  // namespace
