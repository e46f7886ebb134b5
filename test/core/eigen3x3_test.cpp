// The shared 3x3 eigensolver against Eigen's SelfAdjointEigenSolver in double precision.
#include <random>

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include "pcl_dise/core/eigen3x3.h"

namespace {

using pcl_dise::SymMat3;

SymMat3<double> fromEigen(const Eigen::Matrix3d& m) { return {m(0, 0), m(0, 1), m(0, 2), m(1, 1), m(1, 2), m(2, 2)}; }

Eigen::Matrix3d randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  Eigen::Quaterniond q(g(rng), g(rng), g(rng), g(rng));
  return q.normalized().toRotationMatrix();
}

// Checks values against Eigen's, and that the vectors form an orthonormal eigenbasis.
void expectDecomposes(const Eigen::Matrix3d& m, double tol) {
  const auto r = pcl_dise::eigenSymmetric3(fromEigen(m));
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> ref(m);
  const double scale = std::max(1e-300, m.cwiseAbs().maxCoeff());
  Eigen::Matrix3d u;
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(r.values[i], ref.eigenvalues()[i], tol * scale) << "matrix\n" << m;
    u.col(i) = Eigen::Vector3d(r.vectors[i][0], r.vectors[i][1], r.vectors[i][2]);
  }
  EXPECT_TRUE(u.allFinite());
  EXPECT_LT((u.transpose() * u - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff(), 1e-9) << "matrix\n" << m;
  const Eigen::Matrix3d reconstructed =
      u * Eigen::Vector3d(r.values[0], r.values[1], r.values[2]).asDiagonal() * u.transpose();
  EXPECT_LT((reconstructed - m).cwiseAbs().maxCoeff(), tol * scale) << "matrix\n" << m;
  EXPECT_GT(u.determinant(), 0.0);
}

TEST(EigenSymmetric3, RandomMatrices) {
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  for (int t = 0; t < 2000; ++t) {
    Eigen::Matrix3d a;
    for (int i = 0; i < 9; ++i) a.data()[i] = g(rng);
    expectDecomposes(0.5 * (a + a.transpose()), 1e-12);
  }
}

TEST(EigenSymmetric3, SimpleEigenvectorsMatchEigen) {
  std::mt19937 rng(8);
  for (int t = 0; t < 500; ++t) {
    const Eigen::Matrix3d q = randomRotation(rng);
    const Eigen::Matrix3d m = q * Eigen::Vector3d(0.1, 1.0, 3.0).asDiagonal() * q.transpose();
    const auto r = pcl_dise::eigenSymmetric3(fromEigen(m));
    for (int i = 0; i < 3; ++i) {
      const Eigen::Vector3d v(r.vectors[i][0], r.vectors[i][1], r.vectors[i][2]);
      EXPECT_NEAR(std::fabs(v.dot(q.col(i))), 1.0, 1e-12);
    }
  }
}

TEST(EigenSymmetric3, RankDeficient) {
  std::mt19937 rng(9);
  for (int t = 0; t < 500; ++t) {
    const Eigen::Matrix3d q = randomRotation(rng);
    expectDecomposes(q * Eigen::Vector3d(0.0, 1.0, 2.0).asDiagonal() * q.transpose(), 1e-12);  // planar patch
    expectDecomposes(q * Eigen::Vector3d(0.0, 0.0, 5.0).asDiagonal() * q.transpose(), 1e-12);  // collinear
    const auto r =
        pcl_dise::eigenSymmetric3(fromEigen(q * Eigen::Vector3d(0.0, 1.0, 2.0).asDiagonal() * q.transpose()));
    EXPECT_NEAR(std::fabs(Eigen::Vector3d(r.vectors[0][0], r.vectors[0][1], r.vectors[0][2]).dot(q.col(0))), 1.0,
                1e-12);
  }
}

TEST(EigenSymmetric3, RepeatedEigenvalues) {
  std::mt19937 rng(10);
  for (int t = 0; t < 500; ++t) {
    const Eigen::Matrix3d q = randomRotation(rng);
    expectDecomposes(q * Eigen::Vector3d(1.0, 1.0, 4.0).asDiagonal() * q.transpose(), 1e-12);
    expectDecomposes(q * Eigen::Vector3d(-2.0, 3.0, 3.0).asDiagonal() * q.transpose(), 1e-12);
    expectDecomposes(q * Eigen::Vector3d(2.5, 2.5, 2.5).asDiagonal() * q.transpose(), 1e-12);
    expectDecomposes(q * Eigen::Vector3d(1.0, 1.0 + 1e-9, 1.0 + 2e-9).asDiagonal() * q.transpose(), 1e-12);
  }
}

TEST(EigenSymmetric3, ZeroAndDiagonal) {
  expectDecomposes(Eigen::Matrix3d::Zero(), 1e-12);
  expectDecomposes(Eigen::Vector3d(3.0, -1.0, 2.0).asDiagonal().toDenseMatrix(), 1e-12);
  const auto r = pcl_dise::eigenSymmetric3(SymMat3<double>{0, 0, 0, 0, 0, 0});
  EXPECT_EQ(r.values[0], 0.0);
  EXPECT_EQ(r.vectors[2][2], 1.0);
}

TEST(EigenSymmetric3, BadlyScaled) {
  std::mt19937 rng(11);
  for (double scale : {1e-30, 1e-12, 1e-6, 1e6, 1e12, 1e30}) {
    for (int t = 0; t < 100; ++t) {
      const Eigen::Matrix3d q = randomRotation(rng);
      expectDecomposes(scale * (q * Eigen::Vector3d(1e-4, 0.5, 1.0).asDiagonal() * q.transpose()), 1e-12);
    }
  }
}

// The smallest eigenpair taken alone: eigenSymmetric3's where it answers (a plane's covariance:
// the smallest eigenvalue far below two close ones), declined where that eigenvalue is not the
// one farthest from the others, not clearly apart, or not the smallest in size.
TEST(ClearlySmallestEigenpair, AgreesWithTheFullDecompositionOrDeclines) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int t = 0; t < 2000; ++t) {
    const Eigen::Matrix3d q = randomRotation(rng);
    const double scale = std::pow(10.0, 12.0 * u(rng) - 6.0);
    const Eigen::Vector3d spectrum(1e-3 * u(rng), 0.8 + 0.2 * u(rng), 1.0 + 0.5 * u(rng));
    const SymMat3<double> m = fromEigen(scale * (q * spectrum.asDiagonal() * q.transpose()));
    double vector[3], value;
    ASSERT_TRUE(pcl_dise::clearlySmallestEigenpair(m, vector, &value));
    const auto full = pcl_dise::eigenSymmetric3(m);
    const int i = pcl_dise::smallestMagnitudeIndex(full);
    ASSERT_EQ(i, 0);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(vector[c], full.vectors[0][c], 1e-12);
    EXPECT_NEAR(value, full.values[0], 1e-12 * scale);
  }
  double vector[3], value;
  const auto declines = [&](const Eigen::Vector3d& spectrum) {
    const Eigen::Matrix3d q = randomRotation(rng);
    return !pcl_dise::clearlySmallestEigenpair(fromEigen(q * spectrum.asDiagonal() * q.transpose()), vector, &value);
  };
  EXPECT_TRUE(declines({0.0, 0.0, 5.0}));          // collinear: the smallest is a double root
  EXPECT_TRUE(declines({1.0, 1.0 + 1e-9, 3.0}));   // nearly double smallest
  EXPECT_TRUE(declines({0.99995, 1.0, 1.00001}));  // the smallest apart, but by less than the margin
  EXPECT_TRUE(declines({-3.0, 2.0, 2.5}));         // the smallest value is not the smallest in size
  EXPECT_TRUE(declines({2.5, 2.5, 2.5}));          // a multiple of the identity
  EXPECT_FALSE(pcl_dise::clearlySmallestEigenpair(SymMat3<double>{0, 0, 0, 0, 0, 0}, vector, &value));
}

TEST(EigenSymmetric3, FloatPlaneNormalIsAccurate) {
  std::mt19937 rng(12);
  for (int t = 0; t < 500; ++t) {
    const Eigen::Matrix3d q = randomRotation(rng);
    const Eigen::Matrix3f m = (q * Eigen::Vector3d(1e-3, 0.3, 1.0).asDiagonal() * q.transpose()).cast<float>();
    float normal[3], curvature;
    pcl_dise::planeFromCovariance(SymMat3<float>{m(0, 0), m(0, 1), m(0, 2), m(1, 1), m(1, 2), m(2, 2)}, normal,
                                  &curvature);
    EXPECT_NEAR(std::fabs(Eigen::Vector3f(normal[0], normal[1], normal[2]).dot(q.col(0).cast<float>())), 1.f, 1e-6f);
    EXPECT_GE(normal[0] + 2 * normal[1] + 3 * normal[2], 0.f);  // sign rule
    EXPECT_NEAR(curvature, 1e-3 / 1.301, 1e-5);
  }
}

}  // namespace
