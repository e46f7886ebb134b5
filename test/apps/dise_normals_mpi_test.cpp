// dise_normals_mpi end to end: ranks share the tiles and give the one-process output.
// Its own program (label "mpi"): OpenMPI unloads its components at exit, so LeakSanitizer cannot
// name their allocations (scripts/run_sanitized_tests.sh).
#include <sys/wait.h>
#include <cmath>
#include <cstdlib>

#include <gtest/gtest.h>

#include "test_support.h"

namespace {

using namespace pcl_dise::test;

TEST(DiseNormalsMpi, TwoRanksGiveTheOneProcessOutput) {
#ifndef PCL_DISE_MPIEXEC
  GTEST_SKIP() << "built without MPI (Debian: libopenmpi-dev)";
#else
  const std::string dir = temporaryDir("cli_mpi");
  const std::string model = randomModelFile(5);
  std::vector<std::array<double, 3> > far = terrainPoints({512345.0, 5412345.0, 312.0});
  for (std::size_t i = 0; i < far.size(); ++i) far[i][0] += 0.01 * (i % 7), far[i][1] += 0.01 * (i % 5);
  writeXyzFile(dir + "/finite.xyz", far);
  far.insert(far.begin() + 7, {NAN, NAN, NAN});
  far.push_back({far[0][0] + 100.0, far[0][1], far[0][2]});  // alone: no normal by radius (PCL's rule)
  writeXyzFile(dir + "/in.xyz", far);
  const std::string tool = binaryDir() + "/apps/dise_normals ";
  ASSERT_EQ(runCommand(tool + dir + "/finite.xyz " + dir + "/in.laz --k 8 --iterations 0").exit_code, 0);
  // OpenMPI refuses root unless told; oversubscribe: CI machines may have fewer cores than ranks.
  const std::string mpirun = std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") +
                             PCL_DISE_MPIEXEC + " --oversubscribe -np 2 " + binaryDir() + "/apps/dise_normals_mpi ";
  const std::string log = dir + "/mpi.txt";
  // Text in, PLY out (in float and in bf16, by k and by radius); LAZ in, LAZ out (its records kept,
  // compressed in chunks).
  for (const std::string out : {".ply", "_bf16.ply", "_radius.ply", ".laz"}) {
    const std::string input = out == ".laz" ? "/in.laz" : "/in.xyz";
    const std::string precision = out == "_bf16.ply" ? " --precision bf16" : "";
    const std::string neighbourhood = out == "_radius.ply" ? " --radius 0.6" : " --k 16";
    const std::string args = dir + input + neighbourhood + " --iterations 2 --threads 1 --model " + model + precision;
    const CommandResult one = runCommand(tool + args + " " + dir + "/one" + out);
    ASSERT_EQ(one.exit_code, 0) << one.output;
    const int status =
        std::system((mpirun + args + " " + dir + "/two" + out + " --tile-points 700 > " + log + " 2>&1").c_str());
    ASSERT_EQ(WEXITSTATUS(status), 0) << readFile(log);
    EXPECT_NE(readFile(log).find("on 2 processes"), std::string::npos) << readFile(log);
    EXPECT_EQ(readFile(dir + "/two" + out), readFile(dir + "/one" + out)) << out;
    if (out == "_radius.ply") {  // the NaN row and the lone point, on one process and on two alike
      EXPECT_NE(readFile(log).find(" 2 points without a normal"), std::string::npos) << readFile(log);
    }
  }
  // An error on the ranks ends them all with a message, no hang.
  const int bad = std::system(
      (mpirun + dir + "/missing.xyz " + dir + "/bad.ply --k 16 --model " + model + " > " + log + " 2>&1").c_str());
  EXPECT_NE(WEXITSTATUS(bad), 0);
  EXPECT_NE(readFile(log).find("cannot be opened"), std::string::npos) << readFile(log);
#endif
}

}  // namespace
