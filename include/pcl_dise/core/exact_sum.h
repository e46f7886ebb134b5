#pragma once
// A sum of doubles that stays exact until it is read: its value does not depend on the order the
// terms came in, nor on how they were split between threads, tiles or processes. The edge scale
// (edge_scale.h) is such a sum over the whole cloud, so a tiled or distributed run adds each
// point's term where it has it and still gets the in-memory value bit for bit, holding no
// per-point terms.
#include <array>
#include <cstddef>
#include <cstdint>

namespace pcl_dise {

/** A sum of doubles kept exactly until it is read: the same value whatever the order of the
 *  terms and however they are split between threads, tiles or processes. */
class ExactSum {
 public:
  /// Every finite double is an integer multiple of 2^-1074 below 2^1024, so the sum of up to 2^64
  /// of them is one of 2,162 bits: held in 32-bit digits (int64, room for carries), followed by
  /// counts of +inf, -inf and NaN terms.
  static constexpr std::size_t kDigits = 70;
  static constexpr std::size_t kStateSize = kDigits + 3;  ///< integers in a State
  using State = std::array<std::int64_t, kStateSize>;     ///< see state()

  /** \brief Adds one term (any double, infinities and NaN counted). */
  void add(double term);
  /** \brief Adds every term of `other`. */
  void add(const ExactSum& other);
  /** The exact sum rounded to a double (within a few units in the last place, the same for
   *  every order of the same terms); +-inf where it overflows or an infinite term came in, NaN
   *  after a NaN or both infinities. */
  double value() const;

  /** The state as integers that add up under MPI_SUM (MPI_INT64_T): the sum of several
   *  processes' states is the state of the sum of their terms. */
  State state() const;
  /** \brief The sum whose state() is `state`. */
  static ExactSum fromState(const State& state);

 private:
  void carry();
  State state_{};
  std::uint32_t since_carry_ = 0;
};

}  // namespace pcl_dise
