#pragma once
// The SIMD type of the portable versions of the per-point network and its training pass
// (point_network_simd.h, point_training_simd.h), compiled for the default target.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace pcl_dise {
namespace detail {
namespace {

// Four lanes per register as a GCC/Clang vector type: the compiler maps it onto whatever vectors
// the default target has (SSE2 on x86-64, NEON on AArch64), so any processor runs this code.
struct Portable {
  using Reg = float __attribute__((vector_size(16)));
  using Mask = std::int32_t __attribute__((vector_size(16)));
  static constexpr int width = 4;
  static constexpr int lanes = 3;
  static constexpr int outputs = 4;
  static Reg load(const float* p) {
    Reg r;
    std::memcpy(&r, p, sizeof r);
    return r;
  }
  static void store(float* p, Reg a) { std::memcpy(p, &a, sizeof a); }
  static Reg set1(float x) { return Reg{x, x, x, x}; }
  static Reg add(Reg a, Reg b) { return a + b; }
  static Reg sub(Reg a, Reg b) { return a - b; }
  static Reg mul(Reg a, Reg b) { return a * b; }
  static Reg div(Reg a, Reg b) { return a / b; }
  static Reg fma(Reg a, Reg b, Reg c) { return a * b + c; }
  static Reg max(Reg a, Reg b) { return a > b ? a : b; }
  static Reg relu(Reg a) { return max(a, set1(0.f)); }
  static Reg sqrt(Reg a) { return Reg{std::sqrt(a[0]), std::sqrt(a[1]), std::sqrt(a[2]), std::sqrt(a[3])}; }
  static Reg fillWhereBelow(Reg x, float bound, float fill, Reg value) { return x < set1(bound) ? set1(fill) : value; }
  static Reg fillTail(Reg a, int n, float value) { return Mask{0, 1, 2, 3} < n ? a : set1(value); }
  static float sum(Reg a) { return (a[0] + a[1]) + (a[2] + a[3]); }
  static float maximum(Reg a) { return std::max(std::max(a[0], a[1]), std::max(a[2], a[3])); }
  static Reg exp(Reg a) { return Reg{std::exp(a[0]), std::exp(a[1]), std::exp(a[2]), std::exp(a[3])}; }
};

}  // namespace
}  // namespace detail
}  // namespace pcl_dise
