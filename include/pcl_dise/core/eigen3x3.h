#pragma once
// Robust eigendecomposition of a symmetric 3x3 matrix (D. Eberly's analytic solver):
// scale by the largest entry, closed-form eigenvalues of the shifted matrix, eigenvectors
// from row cross products and a 2x2 problem in the orthogonal complement, so that repeated
// and zero eigenvalues still give an orthonormal basis. Header-only, no dependencies, usable
// from CUDA device code: every backend (native, LibTorch, CUDA) calls this one solver.
#include <cmath>
#include <limits>

#if defined(__CUDACC__)
#define PCL_DISE_HOST_DEVICE __host__ __device__ __forceinline__
#elif defined(__GNUC__)
// Always inlined: the library's AVX2 and AVX-512 translation units include these functions too,
// and an out-of-line copy of theirs must never stand in for the default target's at link time.
#define PCL_DISE_HOST_DEVICE inline __attribute__((always_inline))
#else
#define PCL_DISE_HOST_DEVICE inline
#endif

namespace pcl_dise {

/** Symmetric 3x3 matrix stored by its upper triangle: a00 a01 a02 a11 a12 a22. */
template <typename Scalar>
struct SymMat3 {
  Scalar a00;  ///< row 0, column 0
  Scalar a01;  ///< row 0, column 1
  Scalar a02;  ///< row 0, column 2
  Scalar a11;  ///< row 1, column 1
  Scalar a12;  ///< row 1, column 2
  Scalar a22;  ///< row 2, column 2
};

/** m += w d d^T for the 3-vector d: one entry of a (weighted) covariance. */
template <typename Scalar>
PCL_DISE_HOST_DEVICE void addWeightedOuterProduct(SymMat3<Scalar>& m, Scalar w, const Scalar* d) {
  m.a00 += w * d[0] * d[0];
  m.a01 += w * d[0] * d[1];
  m.a02 += w * d[0] * d[2];
  m.a11 += w * d[1] * d[1];
  m.a12 += w * d[1] * d[2];
  m.a22 += w * d[2] * d[2];
}

/** Eigenvalues ascending (values[0] smallest) and unit eigenvectors vectors[c] (a right-handed
 *  orthonormal basis). */
template <typename Scalar>
struct Eigen3Result {
  Scalar values[3];      ///< ascending
  Scalar vectors[3][3];  ///< vectors[c]: the unit eigenvector of values[c]
};

namespace eigen3x3_detail {

template <typename Scalar>
PCL_DISE_HOST_DEVICE void cross(const Scalar* a, const Scalar* b, Scalar* out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

template <typename Scalar>
PCL_DISE_HOST_DEVICE Scalar dot(const Scalar* a, const Scalar* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/// Unit vector spanning the null space of A - value*I when value is a simple eigenvalue.
template <typename Scalar>
PCL_DISE_HOST_DEVICE void eigenvectorOfSimpleValue(const SymMat3<Scalar>& a, Scalar value, Scalar* out) {
  const Scalar row0[3] = {a.a00 - value, a.a01, a.a02};
  const Scalar row1[3] = {a.a01, a.a11 - value, a.a12};
  const Scalar row2[3] = {a.a02, a.a12, a.a22 - value};
  Scalar c01[3], c02[3], c12[3];
  cross(row0, row1, c01);
  cross(row0, row2, c02);
  cross(row1, row2, c12);
  const Scalar d01 = dot(c01, c01), d02 = dot(c02, c02), d12 = dot(c12, c12);
  const Scalar* best = c01;
  Scalar best_norm2 = d01;
  if (d02 > best_norm2) {
    best = c02;
    best_norm2 = d02;
  }
  if (d12 > best_norm2) {
    best = c12;
    best_norm2 = d12;
  }
  if (!(best_norm2 > Scalar(0))) {  // cannot happen for a simple eigenvalue; stay finite anyway
    out[0] = Scalar(1);
    out[1] = Scalar(0);
    out[2] = Scalar(0);
    return;
  }
  const Scalar inv = Scalar(1) / std::sqrt(best_norm2);
  out[0] = best[0] * inv;
  out[1] = best[1] * inv;
  out[2] = best[2] * inv;
}

/// Unit vectors u, v such that (w, u, v) is orthonormal; w must be unit length.
template <typename Scalar>
PCL_DISE_HOST_DEVICE void orthogonalComplement(const Scalar* w, Scalar* u, Scalar* v) {
  if (std::fabs(w[0]) > std::fabs(w[1])) {
    const Scalar inv = Scalar(1) / std::sqrt(w[0] * w[0] + w[2] * w[2]);
    u[0] = -w[2] * inv;
    u[1] = Scalar(0);
    u[2] = w[0] * inv;
  } else {
    const Scalar inv = Scalar(1) / std::sqrt(w[1] * w[1] + w[2] * w[2]);
    u[0] = Scalar(0);
    u[1] = w[2] * inv;
    u[2] = -w[1] * inv;
  }
  cross(w, u, v);
}

/// Eigenvector of `value` orthogonal to the known eigenvector w: a 2x2 problem in span(u, v),
/// well posed even when `value` is repeated.
template <typename Scalar>
PCL_DISE_HOST_DEVICE void eigenvectorInComplement(const SymMat3<Scalar>& a, const Scalar* w, Scalar value,
                                                  Scalar* out) {
  Scalar u[3], v[3];
  orthogonalComplement(w, u, v);
  const Scalar au[3] = {a.a00 * u[0] + a.a01 * u[1] + a.a02 * u[2], a.a01 * u[0] + a.a11 * u[1] + a.a12 * u[2],
                        a.a02 * u[0] + a.a12 * u[1] + a.a22 * u[2]};
  const Scalar av[3] = {a.a00 * v[0] + a.a01 * v[1] + a.a02 * v[2], a.a01 * v[0] + a.a11 * v[1] + a.a12 * v[2],
                        a.a02 * v[0] + a.a12 * v[1] + a.a22 * v[2]};
  Scalar m00 = dot(u, au) - value, m01 = dot(u, av), m11 = dot(v, av) - value;
  const Scalar abs00 = std::fabs(m00), abs01 = std::fabs(m01), abs11 = std::fabs(m11);
  Scalar cu = Scalar(1), cv = Scalar(0);  ///< out = cu*u + cv*v
  if (abs00 >= abs11) {
    if ((abs00 > abs01 ? abs00 : abs01) > Scalar(0)) {
      if (abs00 >= abs01) {
        m01 /= m00;
        m00 = Scalar(1) / std::sqrt(Scalar(1) + m01 * m01);
        m01 *= m00;
      } else {
        m00 /= m01;
        m01 = Scalar(1) / std::sqrt(Scalar(1) + m00 * m00);
        m00 *= m01;
      }
      cu = m01;
      cv = -m00;
    }
  } else {
    if ((abs11 > abs01 ? abs11 : abs01) > Scalar(0)) {
      if (abs11 >= abs01) {
        m01 /= m11;
        m11 = Scalar(1) / std::sqrt(Scalar(1) + m01 * m01);
        m01 *= m11;
      } else {
        m11 /= m01;
        m01 = Scalar(1) / std::sqrt(Scalar(1) + m11 * m11);
        m11 *= m01;
      }
      cu = m11;
      cv = -m01;
    }
  }
  for (int c = 0; c < 3; ++c) out[c] = cu * u[c] + cv * v[c];
}

template <typename Scalar>
PCL_DISE_HOST_DEVICE Scalar rayleighQuotient(const SymMat3<Scalar>& a, const Scalar* v) {
  return a.a00 * v[0] * v[0] + a.a11 * v[1] * v[1] + a.a22 * v[2] * v[2] +
         Scalar(2) * (a.a01 * v[0] * v[1] + a.a02 * v[0] * v[2] + a.a12 * v[1] * v[2]);
}

/// Sorts eigenpairs by value; each swap negates one vector so the basis stays right-handed.
template <typename Scalar>
PCL_DISE_HOST_DEVICE void sortAscending(Scalar* values, Scalar (*vectors)[3]) {
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2 - i; ++j)
      if (values[j] > values[j + 1]) {
        const Scalar t = values[j];
        values[j] = values[j + 1];
        values[j + 1] = t;
        for (int c = 0; c < 3; ++c) {
          const Scalar v = vectors[j][c];
          vectors[j][c] = vectors[j + 1][c];
          vectors[j + 1][c] = -v;
        }
      }
}

/// m divided by its largest entry (max_abs > 0), and that matrix's eigenvalues in closed form
/// (ascending) where it is not diagonal nor a multiple of the identity (`general`).
template <typename Scalar>
struct ScaledEigenvalues {
  SymMat3<Scalar> a;
  Scalar off_norm2, q, half_det, values[3];
  bool general;
};

template <typename Scalar>
PCL_DISE_HOST_DEVICE ScaledEigenvalues<Scalar> scaledEigenvalues(const SymMat3<Scalar>& m, Scalar max_abs) {
  ScaledEigenvalues<Scalar> s;
  const Scalar inv_max = Scalar(1) / max_abs;
  s.a = {m.a00 * inv_max, m.a01 * inv_max, m.a02 * inv_max, m.a11 * inv_max, m.a12 * inv_max, m.a22 * inv_max};
  const SymMat3<Scalar>& a = s.a;
  s.off_norm2 = a.a01 * a.a01 + a.a02 * a.a02 + a.a12 * a.a12;
  s.q = (a.a00 + a.a11 + a.a22) / Scalar(3);
  const Scalar b00 = a.a00 - s.q, b11 = a.a11 - s.q, b22 = a.a22 - s.q;
  const Scalar p = std::sqrt((b00 * b00 + b11 * b11 + b22 * b22 + Scalar(2) * s.off_norm2) / Scalar(6));
  s.general = s.off_norm2 > Scalar(0) && p > std::numeric_limits<Scalar>::epsilon();
  if (!s.general) return s;
  const Scalar c00 = b11 * b22 - a.a12 * a.a12;
  const Scalar c01 = a.a01 * b22 - a.a12 * a.a02;
  const Scalar c02 = a.a01 * a.a12 - b11 * a.a02;
  Scalar half_det = (b00 * c00 - a.a01 * c01 + a.a02 * c02) / (p * p * p) * Scalar(0.5);
  s.half_det = half_det < Scalar(-1) ? Scalar(-1) : (half_det > Scalar(1) ? Scalar(1) : half_det);
  const Scalar angle = std::acos(s.half_det) / Scalar(3);
  const Scalar two_thirds_pi = Scalar(2.09439510239319549);
  const Scalar beta2 = std::cos(angle) * Scalar(2);
  const Scalar beta0 = std::cos(angle + two_thirds_pi) * Scalar(2);
  const Scalar beta1 = -(beta0 + beta2);
  s.values[0] = s.q + p * beta0;
  s.values[1] = s.q + p * beta1;
  s.values[2] = s.q + p * beta2;
  return s;
}

/// The eigenvector of the simple eigenvalue `value` of a, refined once by its Rayleigh quotient
/// (near a double root the closed form loses half the digits).
template <typename Scalar>
PCL_DISE_HOST_DEVICE void refinedEigenvector(const SymMat3<Scalar>& a, Scalar value, Scalar* out) {
  eigenvectorOfSimpleValue(a, value, out);
  eigenvectorOfSimpleValue(a, rayleighQuotient(a, out), out);
}

/// Largest absolute entry of m.
template <typename Scalar>
PCL_DISE_HOST_DEVICE Scalar largestEntry(const SymMat3<Scalar>& m) {
  Scalar max_abs = std::fabs(m.a00);
  const Scalar others[5] = {m.a01, m.a02, m.a11, m.a12, m.a22};
  for (int i = 0; i < 5; ++i) max_abs = std::fabs(others[i]) > max_abs ? std::fabs(others[i]) : max_abs;
  return max_abs;
}

}  // namespace eigen3x3_detail

namespace eigen3x3_detail {

/// The zero matrix's decomposition: zero eigenvalues and the identity basis.
template <typename Scalar>
PCL_DISE_HOST_DEVICE Eigen3Result<Scalar> zeroDecomposition() {
  Eigen3Result<Scalar> r;
  for (int i = 0; i < 3; ++i) {
    r.values[i] = Scalar(0);
    for (int c = 0; c < 3; ++c) r.vectors[i][c] = (i == c) ? Scalar(1) : Scalar(0);
  }
  return r;
}

/// The decomposition of a nonzero matrix from its scaled closed form s (max_abs: its largest entry).
template <typename Scalar>
PCL_DISE_HOST_DEVICE Eigen3Result<Scalar> decomposeNonzero(const ScaledEigenvalues<Scalar>& s, Scalar max_abs) {
  Eigen3Result<Scalar> r = zeroDecomposition<Scalar>();
  const SymMat3<Scalar>& a = s.a;
  Scalar values[3];
  if (s.general) {
    /// Start from the eigenvalue farthest from the other two: it is simple. The other vectors
    /// follow from it.
    const int simple = s.half_det >= Scalar(0) ? 2 : 0;
    refinedEigenvector(a, s.values[simple], r.vectors[simple]);
    eigenvectorInComplement(a, r.vectors[simple], s.values[1], r.vectors[1]);
    if (simple == 2)
      cross(r.vectors[1], r.vectors[2], r.vectors[0]);
    else
      cross(r.vectors[0], r.vectors[1], r.vectors[2]);
    for (int i = 0; i < 3; ++i) values[i] = rayleighQuotient(a, r.vectors[i]);
    /// Rayleigh quotients of a (near-)double root may swap by rounding.
    sortAscending(values, r.vectors);
  } else if (s.off_norm2 > Scalar(0)) {  // a multiple of the identity up to rounding
    values[0] = values[1] = values[2] = s.q;
  } else {  // diagonal: sort the diagonal, keep the axes
    values[0] = a.a00;
    values[1] = a.a11;
    values[2] = a.a22;
    sortAscending(values, r.vectors);
  }
  for (int i = 0; i < 3; ++i) r.values[i] = values[i] * max_abs;
  return r;
}

/// clearlySmallestEigenpair (below) from the scaled closed form s of a nonzero matrix.
template <typename Scalar>
PCL_DISE_HOST_DEVICE bool clearlySmallestFromScaled(const ScaledEigenvalues<Scalar>& s, Scalar max_abs, Scalar* vector,
                                                    Scalar* value) {
  /// The scaled eigenvalues are at most 3 in size and the closed form's error is far below the
  /// margin, so decomposeNonzero would keep this eigenpair first, and it has the smallest magnitude.
  const Scalar margin = Scalar(1e-4);
  if (!s.general || !(s.half_det < Scalar(0)) || !(std::fabs(s.values[0]) + margin < s.values[1])) return false;
  refinedEigenvector(s.a, s.values[0], vector);
  *value = rayleighQuotient(s.a, vector) * max_abs;
  return true;
}

}  // namespace eigen3x3_detail

/** Eigendecomposition of the symmetric matrix m. Finite input gives finite output; a zero
 *  matrix gives zero eigenvalues and the identity basis. */
template <typename Scalar>
PCL_DISE_HOST_DEVICE Eigen3Result<Scalar> eigenSymmetric3(const SymMat3<Scalar>& m) {
  using namespace eigen3x3_detail;
  const Scalar max_abs = largestEntry(m);
  if (!(max_abs > Scalar(0))) return zeroDecomposition<Scalar>();
  return decomposeNonzero(scaledEigenvalues(m, max_abs), max_abs);
}

/** Index (0..2) of the eigenvalue of smallest absolute value: the plane normal's eigenvector. */
template <typename Scalar>
PCL_DISE_HOST_DEVICE int smallestMagnitudeIndex(const Eigen3Result<Scalar>& r) {
  int best = 0;
  for (int i = 1; i < 3; ++i)
    if (std::fabs(r.values[i]) < std::fabs(r.values[best])) best = i;
  return best;
}

/** docs/algorithm.md's sign rule as a factor: -1 where n . (1, 2, 3) < 0, else 1. */
template <typename Scalar>
PCL_DISE_HOST_DEVICE Scalar signRuleFactor(const Scalar* n) {
  return n[0] + Scalar(2) * n[1] + Scalar(3) * n[2] < Scalar(0) ? Scalar(-1) : Scalar(1);
}

/** docs/algorithm.md's sign rule: flip n in place so that n . (1, 2, 3) >= 0. */
template <typename Scalar>
PCL_DISE_HOST_DEVICE void applySignRule(Scalar* n) {
  if (signRuleFactor(n) < Scalar(0)) {
    n[0] = -n[0];
    n[1] = -n[1];
    n[2] = -n[2];
  }
}

/** The eigenpair of smallest absolute value of m where that eigenvalue lies clearly below the
 *  other two and farther from them than they lie from each other, as a plane's covariance has
 *  it: the vector and value eigenSymmetric3 gives there, by the same steps without the other two
 *  vectors. Returns false, writing nothing, elsewhere. */
template <typename Scalar>
PCL_DISE_HOST_DEVICE bool clearlySmallestEigenpair(const SymMat3<Scalar>& m, Scalar* vector, Scalar* value) {
  using namespace eigen3x3_detail;
  const Scalar max_abs = largestEntry(m);
  return max_abs > Scalar(0) && clearlySmallestFromScaled(scaledEigenvalues(m, max_abs), max_abs, vector, value);
}

/** The eigenpair of smallest absolute value of m, as eigenSymmetric3 and smallestMagnitudeIndex
 *  give it: taken alone where clearlySmallestEigenpair answers, else from the whole
 *  decomposition, the closed form computed once for both. */
template <typename Scalar>
PCL_DISE_HOST_DEVICE void smallestMagnitudeEigenpair(const SymMat3<Scalar>& m, Scalar* vector, Scalar* value) {
  using namespace eigen3x3_detail;
  const Scalar max_abs = largestEntry(m);
  Eigen3Result<Scalar> e = zeroDecomposition<Scalar>();
  if (max_abs > Scalar(0)) {
    const ScaledEigenvalues<Scalar> s = scaledEigenvalues(m, max_abs);
    if (clearlySmallestFromScaled(s, max_abs, vector, value)) return;
    e = decomposeNonzero(s, max_abs);
  }
  const int i = smallestMagnitudeIndex(e);
  for (int c = 0; c < 3; ++c) vector[c] = e.vectors[i][c];
  *value = e.values[i];
}

/** Plane fit of a covariance matrix: the unit normal (sign rule applied) and PCL's surface
 *  variation |lambda_min| / trace (0 where the trace is 0). */
template <typename Scalar>
PCL_DISE_HOST_DEVICE void planeFromCovariance(const SymMat3<Scalar>& c, Scalar* normal, Scalar* curvature) {
  Scalar lambda;
  smallestMagnitudeEigenpair(c, normal, &lambda);
  applySignRule(normal);
  const Scalar trace = c.a00 + c.a11 + c.a22;
  *curvature = trace != Scalar(0) ? std::fabs(lambda) / trace : Scalar(0);
}

}  // namespace pcl_dise
