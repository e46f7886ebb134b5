#include "pcl_dise/core/exact_sum.h"

#include <cmath>
#include <limits>

namespace pcl_dise {
namespace {

constexpr std::size_t kPositiveInfinities = ExactSum::kDigits, kNegativeInfinities = ExactSum::kDigits + 1,
                      kNaNs = ExactSum::kDigits + 2;
constexpr std::int64_t kBase = std::int64_t(1) << 32;
// One add puts less than 2^33 into a digit: carrying every 2^29 adds keeps digits below 2^62.
constexpr std::uint32_t kAddsBetweenCarries = 1u << 29;
constexpr int kLowestExponent = -1074;  // the least subnormal double is 2^-1074

}  // namespace

void ExactSum::add(double term) {
  if (!std::isfinite(term)) {
    ++state_[std::isnan(term) ? kNaNs : term > 0 ? kPositiveInfinities : kNegativeInfinities];
    return;
  }
  if (term == 0) return;
  int exponent = 0;
  const double fraction = std::frexp(term, &exponent);  // term = fraction 2^exponent, 0.5 <= |fraction| < 1
  auto mantissa = static_cast<std::uint64_t>(std::ldexp(std::abs(fraction), 53));  // exact: < 2^53
  int shift = exponent - 53 - kLowestExponent;
  if (shift < 0) {  // a subnormal: the bits below 2^-1074 are zero
    mantissa >>= -shift;
    shift = 0;
  }
  const std::size_t digit = static_cast<std::size_t>(shift) / 32;
  const int offset = shift % 32;
  // mantissa 2^offset, split into 32-bit digits: its low and high halves shifted separately.
  const std::uint64_t low = (mantissa & 0xffffffffu) << offset, high = (mantissa >> 32) << offset;
  const std::int64_t sign = term < 0 ? -1 : 1;
  state_[digit] += sign * static_cast<std::int64_t>(low & 0xffffffffu);
  state_[digit + 1] += sign * static_cast<std::int64_t>((low >> 32) + (high & 0xffffffffu));
  state_[digit + 2] += sign * static_cast<std::int64_t>(high >> 32);
  if (++since_carry_ == kAddsBetweenCarries) carry();
}

void ExactSum::add(const ExactSum& other) {
  ExactSum carried = other;
  carried.carry();
  for (std::size_t i = 0; i < kStateSize; ++i) state_[i] += carried.state_[i];
  if (++since_carry_ == kAddsBetweenCarries) carry();
}

void ExactSum::carry() {
  for (std::size_t i = 0; i + 1 < kDigits; ++i) {
    // Floor division keeps every digit but the last in [0, 2^32); the last holds the sign.
    const std::int64_t over = state_[i] >= 0 ? state_[i] / kBase : -((-state_[i] + kBase - 1) / kBase);
    state_[i] -= over * kBase;
    state_[i + 1] += over;
  }
  since_carry_ = 0;
}

double ExactSum::value() const {
  if (state_[kNaNs] > 0 || (state_[kPositiveInfinities] > 0 && state_[kNegativeInfinities] > 0))
    return std::numeric_limits<double>::quiet_NaN();
  if (state_[kPositiveInfinities] > 0) return std::numeric_limits<double>::infinity();
  if (state_[kNegativeInfinities] > 0) return -std::numeric_limits<double>::infinity();
  ExactSum digits = *this;
  digits.carry();
  // A negative sum is read as the negated positive one: digits all >= 0, no cancellation.
  const bool negative = digits.state_[kDigits - 1] < 0;
  if (negative) {
    for (std::size_t i = 0; i < kDigits; ++i) digits.state_[i] = -digits.state_[i];
    digits.carry();
  }
  double sum = 0;
  for (std::size_t i = kDigits; i-- > 0;)
    sum += std::ldexp(static_cast<double>(digits.state_[i]), kLowestExponent + 32 * static_cast<int>(i));
  return negative ? -sum : sum;
}

ExactSum::State ExactSum::state() const {
  ExactSum carried = *this;
  carried.carry();
  return carried.state_;
}

ExactSum ExactSum::fromState(const State& state) {
  ExactSum sum;
  sum.state_ = state;
  sum.carry();
  return sum;
}

}  // namespace pcl_dise
