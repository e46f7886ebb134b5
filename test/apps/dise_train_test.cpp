// dise_make_dataset + dise_train end to end on a tiny dataset: the same seed gives the same
// losses, a resumed run continues exactly where it stopped, the native and LibTorch engines agree
// and share checkpoints, bad input and non-finite losses give clear errors.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "pcl_dise/core/model.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::test;

int run(const std::string& command, std::string* output = nullptr) {
  const CommandResult result = runCommand(command);
  if (output) *output = result.output;
  return result.exit_code;
}

class DiseTrain : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(temporaryDir("dise_train"));
    std::ofstream(*dir_ + "/cube.off") << "OFF\n8 6 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n"
                                          "4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 2 3 7 6\n4 1 2 6 5\n4 0 4 7 3\n";
    ASSERT_EQ(run(binaryDir() + "/apps/dise_make_dataset " + *dir_ + "/cube.off --out " + *dir_ +
                  "/data --prefix train --points 1500 --pidx 100"),
              0);
  }
  static void TearDownTestSuite() { delete dir_; }

  // Trains into <dir>/<name>.safetensors (log <name>.csv, checkpoints ckpt_<first letter>); returns <dir>/<name>.
  // k is 12 unless `extra` names another.
  std::string train(const std::string& name, const std::string& extra, std::string* printed = nullptr) {
    const std::string out = *dir_ + "/" + name;
    const std::string k = extra.find("--k ") == std::string::npos ? "--k 12 " : "";
    std::string output;
    EXPECT_EQ(
        run(binaryDir() + "/apps/dise_train " + *dir_ + "/data/train_all.txt " + k + "--iterations 2 --patch 200 " +
                "--patches-per-cloud 1 --threads 1 --seed 5 --out " + out + ".safetensors --log " + out +
                ".csv --checkpoints " + *dir_ + "/ckpt_" + name.substr(0, 1) + " " + extra,
            &output),
        0)
        << output;
    if (printed) *printed = output;
    return out;
  }
  static std::string* dir_;
};
std::string* DiseTrain::dir_ = nullptr;

TEST_F(DiseTrain, SameSeedSameLosses) {
  const std::string a = train("a", "--epochs 1"), b = train("b", "--epochs 1");
  EXPECT_EQ(readFile(a + ".csv"), readFile(b + ".csv"));
  const std::string log = readFile(a + ".csv");
  EXPECT_GT(std::count(log.begin(), log.end(), '\n'), 6);
  EXPECT_EQ(pcl_dise::loadModel(a + ".safetensors").layer4.first.weight,
            pcl_dise::loadModel(b + ".safetensors").layer4.first.weight);
}

TEST_F(DiseTrain, ResumeContinuesWhereItStopped) {
  const std::string whole = train("whole", "--epochs 2");
  train("resumed", "--epochs 1");
  const std::string resumed = train("resumed", "--epochs 2 --resume");
  EXPECT_EQ(readFile(whole + ".csv"), readFile(resumed + ".csv"));
  const auto m = pcl_dise::loadModel(resumed + ".safetensors");
  EXPECT_EQ(m.layerg.first.weight, pcl_dise::loadModel(whole + ".safetensors").layerg.first.weight);
  EXPECT_EQ(m.metadata.at("k_train"), "12");
}

TEST_F(DiseTrain, SnapshotsKeepTheRawWeightsAtFixedPatches) {
  // How run P's checkpoints at patches 6,000, 10,000 and 14,000 are kept for its decision rule.
  train("usnap", "--epochs 2 --snapshot-every 4");  // 6 clouds: 12 patches, snapshots after 4, 8 and 12
  train("vstop", "--epochs 2 --stop-at 4");
  const auto at4 = pcl_dise::loadModel(*dir_ + "/ckpt_u/model_4.safetensors");
  EXPECT_EQ(at4.layer4.first.weight, pcl_dise::loadModel(*dir_ + "/ckpt_v/model.safetensors").layer4.first.weight);
  EXPECT_EQ(at4.metadata.at("patches"), "4");
  EXPECT_TRUE(std::filesystem::exists(*dir_ + "/ckpt_u/model_8.safetensors"));
  EXPECT_EQ(pcl_dise::loadModel(*dir_ + "/ckpt_u/model_12.safetensors").layer4.first.weight,
            pcl_dise::loadModel(*dir_ + "/ckpt_u/model.safetensors").layer4.first.weight);
  EXPECT_FALSE(std::filesystem::exists(*dir_ + "/ckpt_u/model_6.safetensors"));
}

TEST_F(DiseTrain, ResumingWithAnotherKFineTunesForIt) {
  // How the k = 32 and k = 128 models were made from the k = 64 one: the metadata names the new k
  // and keeps the earlier one in the history.
  train("kfine", "--epochs 1");
  const auto tuned = pcl_dise::loadModel(train("kfine", "--resume --k 8 --epochs 2") + ".safetensors");
  EXPECT_EQ(tuned.metadata.at("k_train"), "8");
  EXPECT_NE(tuned.metadata.at("recipe").find(", k = 8,"), std::string::npos) << tuned.metadata.at("recipe");
  EXPECT_NE(tuned.metadata.at("history").find(", k = 12,"), std::string::npos) << tuned.metadata.at("history");
}

TEST_F(DiseTrain, KMixDrawsEachPatchsKAndKeepsTheRest) {
  // --k-mix with one value is the run without it (its draw leaves the patch centres and dropout
  // masks as they were); with two values some patches train at the other k. The metadata says so.
  const std::string plain = train("gplain", "--epochs 1");
  const std::string single = train("hsingle", "--epochs 1 --k-mix 12");
  EXPECT_EQ(readFile(plain + ".csv"), readFile(single + ".csv"));
  const std::string mixed = train("imixed", "--epochs 1 --k-mix 6,12");
  EXPECT_NE(readFile(plain + ".csv"), readFile(mixed + ".csv"));
  const auto model = pcl_dise::loadModel(mixed + ".safetensors");
  EXPECT_EQ(model.metadata.at("k_train"), "12");
  EXPECT_EQ(model.metadata.at("k_mix"), "6,12");
  EXPECT_NE(model.metadata.at("recipe").find("k = 12 (each patch one of 6,12)"), std::string::npos)
      << model.metadata.at("recipe");
  std::string output;
  EXPECT_NE(run(binaryDir() + "/apps/dise_train " + *dir_ + "/data/train_all.txt --patch 100 --k-mix 12,200", &output),
            0);
  EXPECT_NE(output.find("a patch of at least k+1 points"), std::string::npos) << output;
}

TEST_F(DiseTrain, FreshNoiseRedrawsOnlyTheNoisyClouds) {
  // A clean list trains the same with and without --fresh-noise; on a noisy list the patches get
  // new noise, drawn per seed and patch, and a noisy cloud without its clean cloud is skipped.
  auto trainOn = [&](const std::string& list, const std::string& name, const std::string& extra) {
    const std::string out = *dir_ + "/" + name;
    std::string output;
    EXPECT_EQ(run(binaryDir() + "/apps/dise_train " + *dir_ + "/data/" + list + " --k 12 --iterations 2 " +
                      "--patch 200 --patches-per-cloud 2 --threads 1 --epochs 2 --out " + out + ".safetensors " +
                      "--log " + out + ".csv --checkpoints " + *dir_ + "/ckpt_" + name + " " + extra,
                  &output),
              0)
        << output;
    return readFile(out + ".csv");
  };
  EXPECT_EQ(trainOn("train_no_noise.txt", "clean", ""), trainOn("train_no_noise.txt", "clean_fresh", "--fresh-noise"));
  std::ofstream(*dir_ + "/data/noisy.txt") << "cube_noise_white_5.00e-02\ncube_noise_white_1.00e-01\n";
  const std::string on_disk = trainOn("noisy.txt", "ondisk", ""),
                    fresh = trainOn("noisy.txt", "fresh", "--fresh-noise");
  EXPECT_NE(on_disk, fresh);
  EXPECT_EQ(fresh, trainOn("noisy.txt", "fresh_again", "--fresh-noise"));
  const auto model = pcl_dise::loadModel(*dir_ + "/fresh.safetensors");
  EXPECT_NE(model.metadata.at("recipe").find("new noise for every noisy patch"), std::string::npos);

  std::ofstream(*dir_ + "/data/orphan_noise_white_1.00e-02.xyz") << "0 0 0\n1 0 0\n0 1 0\n";
  std::ofstream(*dir_ + "/data/orphan_noise_white_1.00e-02.normals") << "0 0 1\n0 0 1\n0 0 1\n";
  std::ofstream(*dir_ + "/data/noisy.txt", std::ios::app) << "orphan_noise_white_1.00e-02\n";
  std::string output;
  run(binaryDir() + "/apps/dise_train " + *dir_ + "/data/noisy.txt --k 12 --iterations 2 --patch 200 " +
          "--threads 1 --epochs 1 --fresh-noise --out " + *dir_ + "/orphan.safetensors --log " + *dir_ +
          "/orphan.csv --checkpoints " + *dir_ + "/ckpt_orphan",
      &output);
  EXPECT_NE(output.find("skipping"), std::string::npos) << output;
  EXPECT_NE(output.find("data/orphan"), std::string::npos) << output;
}

TEST_F(DiseTrain, DecayAndAverageResumeExactly) {
  // Six clouds, one patch each per epoch: decay and averaging both span the resume at patch 6.
  const std::string schedule = "--lr-final 1e-4 --decay-start 2 --decay-end 9 --average-from 3 ";
  const std::string whole = train("xwhole", schedule + "--epochs 2");
  train("yresumed", schedule + "--epochs 2 --stop-at 6");  // stops where epoch 1 ends
  const std::string resumed = train("yresumed", schedule + "--epochs 2 --resume");
  EXPECT_EQ(readFile(whole + ".csv"), readFile(resumed + ".csv"));
  const auto averaged = pcl_dise::loadModel(whole + ".safetensors");
  EXPECT_EQ(averaged.layer4.first.weight, pcl_dise::loadModel(resumed + ".safetensors").layer4.first.weight);
  // --out holds the average, which differs from the last weights kept in the checkpoint.
  EXPECT_NE(averaged.layer4.first.weight, pcl_dise::loadModel(*dir_ + "/ckpt_x/model.safetensors").layer4.first.weight);
  EXPECT_NE(averaged.metadata.at("recipe").find("averaged"), std::string::npos);
  // A schedule that ends before it starts is refused.
  std::string output;
  EXPECT_NE(
      run(binaryDir() + "/apps/dise_train " + *dir_ + "/data/train_all.txt --lr-final 1e-4 --decay-end 0", &output), 0);
  EXPECT_NE(output.find("--decay-end"), std::string::npos) << output;
}

TEST_F(DiseTrain, WarmRestartStartsAFreshAverage) {
  // Averaging from patch 3 until patch 6, then a new schedule that averages from patch 8 on: the
  // output is the average of patches 8..11 alone, not mixed with the checkpoint's.
  train("qrestart", "--lr-final 1e-4 --decay-start 2 --decay-end 6 --average-from 3 --epochs 2 --stop-at 6");
  std::string output;
  const std::string restarted = train("qrestart", "--resume --lr 3e-4 --average-from 8 --epochs 2", &output);
  EXPECT_NE(output.find("average of 3 patches is dropped"), std::string::npos) << output;
  const auto model = pcl_dise::loadModel(restarted + ".safetensors");
  EXPECT_EQ(model.metadata.at("averaged_patches"), "4");
  // The metadata keeps the first schedule, and the list it trained on, beside the new one.
  EXPECT_NE(model.metadata.at("recipe").find("lr 0.000300"), std::string::npos) << model.metadata.at("recipe");
  const std::string& history = model.metadata.at("history");
  EXPECT_NE(history.find("until patch 6: dise_train: RMSprop lr 0.000500 decaying linearly to 0.000100"),
            std::string::npos)
      << history;
  EXPECT_NE(history.find(", on " + *dir_ + "/data/train_all.txt"), std::string::npos) << history;
}

// Each patch's loss after its last iteration, from a training log (epoch,patch,cloud,iteration,loss).
std::vector<double> lastIterationLosses(const std::string& csv, int iterations) {
  std::vector<double> losses;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string f; std::getline(row, f, ',');) fields.push_back(f);
    if (fields.size() == 5 && std::stoi(fields[3]) == iterations) losses.push_back(std::stod(fields[4]));
  }
  return losses;
}

TEST_F(DiseTrain, NativeIsTheDefaultEngineAndRefusesAGpu) {
  std::string output;
  EXPECT_NE(
      run(binaryDir() + "/apps/dise_train " + *dir_ + "/data/train_all.txt --engine native --device cuda", &output), 0);
  EXPECT_NE(output.find("native engine runs on the CPU"), std::string::npos) << output;
  EXPECT_NE(run(binaryDir() + "/apps/dise_train " + *dir_ + "/data/train_all.txt --engine tensorflow", &output), 0);
  EXPECT_NE(output.find("unknown engine"), std::string::npos) << output;
}

#ifdef PCL_DISE_WITH_TORCH
TEST_F(DiseTrain, EnginesAgreeWithoutDropout) {
  // From the same seed, without dropout: each of the first 20 patches' losses within 1%.
  const std::string options = "--dropout 0 --epochs 4 --stop-at 20 ";
  const auto native = lastIterationLosses(readFile(train("native", options + "--engine native") + ".csv"), 2);
  const auto torch = lastIterationLosses(readFile(train("torch", options + "--engine torch") + ".csv"), 2);
  ASSERT_EQ(native.size(), 20u);
  ASSERT_EQ(torch.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_NEAR(native[i], torch[i], 0.01 * torch[i]) << "patch " << i;
}

TEST_F(DiseTrain, ARunSwitchesEnginesAtACheckpoint) {
  // Both engines read and write the same checkpoint (weights, average, RMSprop's state): a run
  // that switches engines half way follows the run that does not, with dropout on.
  const std::string options = "--epochs 2 --average-from 3 ";
  const auto whole = lastIterationLosses(readFile(train("mwhole", options + "--engine native") + ".csv"), 2);
  train("nswitch", options + "--engine torch --stop-at 6");
  const std::string switched = train("nswitch", options + "--engine native --resume");
  const auto losses = lastIterationLosses(readFile(switched + ".csv"), 2);
  ASSERT_EQ(losses.size(), whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) EXPECT_NEAR(losses[i], whole[i], 0.01 * whole[i]) << "patch " << i;
  std::ifstream optimizer(*dir_ + "/ckpt_n/optimizer.safetensors");
  EXPECT_TRUE(optimizer.good());
}
#endif

TEST_F(DiseTrain, NonFiniteLossStopsAndKeepsTheCheckpoint) {
  // A cloud whose true normals are NaN: the run stops at its first patch, names it, and leaves
  // the checkpoint of the patches before it as it was.
  train("finite", "--epochs 1");
  const std::string bad = *dir_ + "/data/bad";
  std::ofstream(bad + ".xyz") << readFile(*dir_ + "/data/cube.xyz");
  std::ofstream normals(bad + ".normals");
  for (int i = 0; i < 1500; ++i) normals << "nan nan nan\n";
  normals.close();
  std::ofstream(*dir_ + "/data/bad_list.txt") << "bad\n";
  const std::string model_before = readFile(*dir_ + "/ckpt_f/model.safetensors");
  std::string output;
  EXPECT_NE(run(binaryDir() + "/apps/dise_train " + *dir_ + "/data/bad_list.txt --k 12 --iterations 2 --patch 200 " +
                    "--patches-per-cloud 1 --threads 1 --epochs 10 --resume --checkpoints " + *dir_ + "/ckpt_f --out " +
                    *dir_ + "/f2.safetensors --log " + *dir_ + "/f2.csv",
                &output),
            0);
  EXPECT_NE(output.find("the loss is nan at patch 6, iteration 1 (cloud " + bad + ")"), std::string::npos) << output;
  EXPECT_NE(output.find("the last good checkpoint (patch 6) is kept"), std::string::npos) << output;
  EXPECT_TRUE(readFile(*dir_ + "/ckpt_f/model.safetensors") == model_before);
}

TEST_F(DiseTrain, ASignalStopsAfterThePatchWithACheckpoint) {
  // SIGTERM during a long run: it ends cleanly with a checkpoint after patch S, and resuming to
  // S + 20 gives the log of one run to S + 20 (S depends on the machine's speed, not the test).
  std::string output;
  const std::string base = binaryDir() + "/apps/dise_train " + *dir_ + "/data/train_all.txt --k 12 --iterations 2 " +
                           "--patch 200 --patches-per-cloud 1 --threads 1 --seed 5 --epochs 100000 --checkpoints " +
                           *dir_ + "/ckpt_t --out " + *dir_ + "/t.safetensors --log " + *dir_ + "/t.csv";
  // The signal goes once the first loss is logged: a loaded machine may take seconds to start the
  // trainer (LibTorch's libraries), and a signal before main() would only kill it.
  const std::string log = *dir_ + "/t.csv";
  std::remove(log.c_str());
  EXPECT_EQ(run("bash -c '" + base + " & pid=$!; until grep -q \"^0,\" " + log +
                    " 2> /dev/null || ! kill -0 $pid 2> /dev/null; do sleep 0.05; done; kill -TERM $pid; wait $pid'",
                &output),
            0)
      << output;
  const std::string marker = "stopped by a signal after patch ";
  const auto at = output.find(marker);
  ASSERT_NE(at, std::string::npos) << output;
  const long stopped = std::stol(output.substr(at + marker.size()));
  const std::string stop_at = " --stop-at " + std::to_string(stopped + 20);
  EXPECT_EQ(run(base + " --resume" + stop_at, &output), 0) << output;
  const std::string whole = train("swhole", "--epochs 100000" + stop_at);
  EXPECT_EQ(readFile(whole + ".csv"), readFile(*dir_ + "/t.csv"));
}

TEST_F(DiseTrain, BadInput) {
  std::ofstream(*dir_ + "/broken.txt") << "missing_cloud\n";
  std::string output;
  EXPECT_NE(run(binaryDir() + "/apps/dise_train " + *dir_ + "/broken.txt --out " + *dir_ +
                    "/x.safetensors --checkpoints " + *dir_ + "/ckpt_x",
                &output),
            0);
  EXPECT_NE(output.find("skipping"), std::string::npos) << output;
  EXPECT_NE(output.find("no usable cloud"), std::string::npos) << output;
}

}  // namespace
