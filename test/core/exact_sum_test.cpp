// ExactSum (exact_sum.h) against sums known exactly: the same bits in every order and split,
// across the whole exponent range, with cancellation, and through the state MPI adds up.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "pcl_dise/core/exact_sum.h"

namespace {

using pcl_dise::ExactSum;

double sumOf(const std::vector<double>& terms) {
  ExactSum sum;
  for (double t : terms) sum.add(t);
  return sum.value();
}

TEST(ExactSum, TheSameBitsInEveryOrderAndSplit) {
  // Edge-scale terms: squared distances over many scales, where a plain double sum depends on order.
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> terms(100000);
  for (double& t : terms) t = std::ldexp(u(rng), static_cast<int>(u(rng) * 60) - 30);
  const double expected = sumOf(terms);
  double plain_forward = 0, plain_backward = 0;
  for (double t : terms) plain_forward += t;
  for (auto t = terms.rbegin(); t != terms.rend(); ++t) plain_backward += *t;
  EXPECT_NE(plain_forward, plain_backward);  // what the exact sum is for
  EXPECT_NEAR(expected, plain_forward, 1e-12 * expected);
  for (int shuffle = 0; shuffle < 3; ++shuffle) {
    std::shuffle(terms.begin(), terms.end(), rng);
    EXPECT_EQ(sumOf(terms), expected);
    // In three pieces, joined directly and through the additive state, as MPI does.
    ExactSum parts[3];
    for (std::size_t i = 0; i < terms.size(); ++i) parts[i % 3].add(terms[i]);
    ExactSum joined = parts[0];
    joined.add(parts[1]);
    joined.add(parts[2]);
    EXPECT_EQ(joined.value(), expected);
    ExactSum::State state{};
    for (const ExactSum& part : parts) {
      const ExactSum::State own = part.state();
      for (std::size_t i = 0; i < state.size(); ++i) state[i] += own[i];
    }
    EXPECT_EQ(ExactSum::fromState(state).value(), expected);
  }
}

TEST(ExactSum, ExactWhereDoublesLoseEverything) {
  // 1e300 + 1 - 1e300 is 0 in doubles; here the 1 survives, as do the least subnormals.
  EXPECT_EQ(sumOf({1e300, 1.0, -1e300}), 1.0);
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(sumOf({1.0, tiny, -1.0}), tiny);
  EXPECT_EQ(sumOf({std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), -2.5}), -2.5);
  EXPECT_EQ(sumOf({0.1, 0.2, -0.3}), std::ldexp(1.0, -55));  // doubles, left to right: 2^-54
  EXPECT_EQ(sumOf({}), 0.0);
  EXPECT_EQ(sumOf({-0.0, 0.0}), 0.0);
  // Many equal terms: carries between digits (more adds than one carry interval would hold).
  ExactSum many;
  for (int i = 0; i < 1 << 20; ++i) many.add(0.75);
  EXPECT_EQ(many.value(), 0.75 * (1 << 20));
  // A sum past the largest double overflows to infinity, as a double sum would.
  EXPECT_EQ(sumOf({std::numeric_limits<double>::max(), std::numeric_limits<double>::max()}),
            std::numeric_limits<double>::infinity());
}

TEST(ExactSum, NonFiniteTerms) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(sumOf({1.0, inf}), inf);
  EXPECT_EQ(sumOf({1.0, -inf}), -inf);
  EXPECT_TRUE(std::isnan(sumOf({inf, -inf})));
  EXPECT_TRUE(std::isnan(sumOf({1.0, std::numeric_limits<double>::quiet_NaN()})));
}

}  // namespace
