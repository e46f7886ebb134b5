#pragma once
// How long jobs report how far they are, and how a caller stops one: the library never prints;
// it calls the caller's function, which may answer "stop" (a tool's Ctrl-C, Python's KeyboardInterrupt).
#include <cstdint>
#include <functional>
#include <stdexcept>

namespace pcl_dise {

/** Where a job stands. */
struct Progress {
  double done = 0;         ///< share of the whole job, in [0, 1], never decreasing, 1 last
  const char* stage = "";  ///< what runs now: "reading", "tiling", "iterations", "tiles", "writing"
  /// Within the stage, where it counts whole steps: iteration `step` of `steps`, tile `step` of
  /// `steps` (steps 0: no count).
  std::uint64_t step = 0;
  std::uint64_t steps = 0;  ///< see step
};

/** Called with a Progress from the thread that started the job: at stage ends, and within long
 *  stages up to about ten times a second (a display throttles further). Returns whether to go on:
 *  false stops the job, which then throws Cancelled. */
using ProgressCallback = std::function<bool(const Progress&)>;

/** Thrown by a job whose ProgressCallback answered false; what the job wrote is removed. */
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

/** A ProgressCallback for a part of a larger job: its share done mapped to [from, to] of `whole`'s;
 *  its stage and steps passed on, unless `stage` names the part (then `step` of `steps` too). */
inline ProgressCallback progressPart(const ProgressCallback& whole, double from, double to, const char* stage = nullptr,
                                     std::uint64_t step = 0, std::uint64_t steps = 0) {
  if (!whole) return {};
  return [whole, from, to, stage, step, steps](const Progress& part) {
    Progress p = part;
    p.done = from + (to - from) * part.done;
    if (stage) p.stage = stage, p.step = step, p.steps = steps;
    return whole(p);
  };
}

}  // namespace pcl_dise
