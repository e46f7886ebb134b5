#include "progress_display.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

using pcl_dise::tools::ProgressDisplay;

TEST(ProgressDisplay, LineNamesStageStepsShareAndTimes) {
  EXPECT_EQ(ProgressDisplay::line("dise_normals", {0.64, "tiles", 4, 8}, 4.2),
            "dise_normals:  64% tiles 4/8, 0:04 elapsed, about 0:02 left");
  EXPECT_EQ(ProgressDisplay::line("dise_normals", {0.0, "reading", 0, 0}, 0.1),
            "dise_normals:   0% reading, 0:00 elapsed");
  EXPECT_EQ(ProgressDisplay::line("t", {0.5, "x", 0, 0}, 3725), "t:  50% x, 1:02:05 elapsed, about 1:02:05 left");
}

// `timeout -s INT` and process supervisors signal the process and then its group: one Ctrl-C
// that arrives twice. It stops the job; it must not end the process.
TEST(ProgressDisplay, ASignalTwiceInAMomentIsOneCtrlC) {
  ProgressDisplay display("test", true);
  const pcl_dise::ProgressCallback callback = display.callback();
  EXPECT_TRUE(callback({0.5, "estimation", 0, 0}));
  std::raise(SIGINT);
  std::raise(SIGINT);
  EXPECT_TRUE(ProgressDisplay::interrupted());
  EXPECT_FALSE(callback({0.6, "estimation", 0, 0})) << "the job is told to stop";
}

TEST(ProgressDisplay, ALaterSecondCtrlCEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: no Ctrl-C came yet
  EXPECT_EXIT(
      {
        ProgressDisplay display("test", true);
        std::raise(SIGINT);
        std::this_thread::sleep_for(std::chrono::milliseconds(700));
        std::raise(SIGINT);
        std::exit(0);
      },
      testing::KilledBySignal(SIGINT), "");
}
