#pragma once
// Arithmetic on 3-vectors stored as three consecutive floats (xyz and normal arrays).

namespace pcl_dise {
namespace detail {

inline float dot(const float* a, const float* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

}  // namespace detail
}  // namespace pcl_dise
