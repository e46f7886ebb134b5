#pragma once
// What the tools show of a long job on stderr: on a terminal one line that redraws (at most five
// times a second); elsewhere (a log, a pipe) a plain line every five seconds or ten percent;
// nothing with --quiet. It also turns Ctrl-C into the library's "stop" (core/progress.h), so that
// a stopped job leaves no output file; a second Ctrl-C ends the process at once.
#include <chrono>
#include <cstdio>
#include <string>

#include "pcl_dise/core/progress.h"

namespace pcl_dise {
namespace tools {

class ProgressDisplay {
 public:
  /** tool: the name that starts each line; quiet: show nothing (Ctrl-C still stops cleanly). */
  ProgressDisplay(std::string tool, bool quiet, std::FILE* out = stderr);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  /** The library's callback: shows the job's progress, answers false once Ctrl-C came. The
   *  display must outlive every job it is handed to. */
  ProgressCallback callback();
  /** A job of its own (a stage the library does not report within): shows `stage` at `done`. */
  void show(const char* stage, double done);
  /** Ends the redrawn line (before the tool prints its summary). */
  void finish();
  /** Whether Ctrl-C came. */
  static bool interrupted();

  /** The line shown for `p` after `elapsed` seconds: stage, steps, share, elapsed, time left. */
  static std::string line(const std::string& tool, const Progress& p, double elapsed);

 private:
  bool report(const Progress& p);

  std::string tool_;
  bool quiet_, terminal_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_, last_;
  double last_done_ = -1;
  bool drawn_ = false;
  void (*previous_handler_)(int) = nullptr;
};

}  // namespace tools
}  // namespace pcl_dise
