#include "progress_display.h"

#include <csignal>
#include <cstdio>
#include <ctime>

#include <unistd.h>

namespace pcl_dise {
namespace tools {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
timespec g_first_interrupt{};  // written and read only by the handler

double secondsSince(const timespec& then) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  return double(now.tv_sec - then.tv_sec) + 1e-9 * double(now.tv_nsec - then.tv_nsec);
}

// A second Ctrl-C ends the process at once. One signal that comes twice is one Ctrl-C: `timeout`
// and process supervisors send it to the process and then to its group, microseconds apart.
void onInterrupt(int signal) {
  if (!g_interrupted) {
    clock_gettime(CLOCK_MONOTONIC, &g_first_interrupt);
    g_interrupted = 1;
  } else if (secondsSince(g_first_interrupt) > 0.5) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
}

std::string clock(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

}  // namespace

ProgressDisplay::ProgressDisplay(std::string tool, bool quiet, std::FILE* out)
    : tool_(std::move(tool)),
      quiet_(quiet),
      terminal_(isatty(fileno(out)) != 0),
      out_(out),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {
  previous_handler_ = std::signal(SIGINT, onInterrupt);
}

ProgressDisplay::~ProgressDisplay() {
  finish();
  std::signal(SIGINT, previous_handler_ == SIG_ERR ? SIG_DFL : previous_handler_);
}

bool ProgressDisplay::interrupted() { return g_interrupted != 0; }

ProgressCallback ProgressDisplay::callback() {
  return [this](const Progress& p) { return report(p); };
}

void ProgressDisplay::show(const char* stage, double done) { report({done, stage, 0, 0}); }

std::string ProgressDisplay::line(const std::string& tool, const Progress& p, double elapsed) {
  char share[16];
  std::snprintf(share, sizeof share, "%3.0f%%", 100 * p.done);
  std::string text = tool + ": " + share + " " + p.stage;
  if (p.steps > 0) text += " " + std::to_string(p.step) + "/" + std::to_string(p.steps);
  text += ", " + clock(elapsed) + " elapsed";
  if (p.done > 0.02 && p.done < 1 && elapsed > 2) text += ", about " + clock(elapsed * (1 - p.done) / p.done) + " left";
  return text;
}

bool ProgressDisplay::report(const Progress& p) {
  if (interrupted()) return false;
  if (quiet_) return true;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  const bool due = terminal_ ? since >= 0.2 : (since >= 5 || p.done >= last_done_ + 0.1);
  if (!due && p.done < 1) return true;
  if (!terminal_ && p.done == last_done_) return true;
  last_ = now;
  last_done_ = p.done;
  const std::string text = line(tool_, p, std::chrono::duration<double>(now - start_).count());
  if (terminal_) {
    std::fprintf(out_, "\r%-79s", text.c_str());
    drawn_ = true;
  } else {
    std::fprintf(out_, "%s\n", text.c_str());
  }
  std::fflush(out_);
  return true;
}

void ProgressDisplay::finish() {
  if (!drawn_) return;
  std::fprintf(out_, "\n");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace tools
}  // namespace pcl_dise
