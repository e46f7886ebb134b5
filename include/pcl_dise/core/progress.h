#pragma once
// How long jobs report how far they are, and how a caller stops one: the library never prints;
// it calls the caller's function, which may answer "stop" (a tool's Ctrl-C, Python's KeyboardInterrupt).
#include <functional>
#include <stdexcept>

namespace pcl_dise {

/** Called with the share of a job done, in [0, 1], never decreasing, 1 last (where the job ends
 *  normally), from the thread that started the job: at stage ends, and within long stages up to
 *  about ten times a second (a display throttles further). Returns whether to go on: false stops
 *  the job, which then throws Cancelled. */
using ProgressCallback = std::function<bool(double done)>;

/** Thrown by a job whose ProgressCallback answered false; what the job wrote is removed. */
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

/** A ProgressCallback for a part of a larger job: its [0, 1] mapped to [from, to] of `whole`. */
inline ProgressCallback progressPart(const ProgressCallback& whole, double from, double to) {
  if (!whole) return {};
  return [whole, from, to](double done) { return whole(from + (to - from) * done); };
}

}  // namespace pcl_dise
