// dise_normals end to end: parity through the command line, output formats, clear errors.
#include <sys/wait.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <pcl/common/point_tests.h>
#include <pcl/io/pcd_io.h>
#include <nlohmann/json.hpp>

#include "pcl_dise/core/forward.h"

#include "pcl_dise/io/las_format.h"
#include "pcl_dise/io/pcd_reader.h"
#include "pcl_dise/io/ply_reader.h"
#include "pcl_dise/io/text_io.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::test;

CommandResult runTool(const std::string& args) { return runCommand(binaryDir() + "/apps/dise_normals " + args); }

TEST(DiseNormals, ParityWithThePublishedWeights) {
  if (!sharedFileExists("reference/published_k64.safetensors"))
    GTEST_SKIP() << "no published weights in " << sharedDir();
  const std::string base = sharedDir() + "/reference/cases/cube_clean";
  const std::string out = temporaryDir("cli_parity") + "/cube.normals";
  const CommandResult r =
      runTool(base + ".xyz " + out + " --model " + sharedDir() + "/reference/published_k64.safetensors --k 64");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("6000 normals"), std::string::npos) << r.output;
  const auto actual = pcl_dise::io::readTextTriples(out);
  const auto expected = pcl_dise::io::readTextTriples(base + ".k64.iter4.normals");
  ASSERT_EQ(actual.size(), expected.size());
  std::vector<double> errors;
  for (std::size_t i = 0; i < actual.size(); ++i)
    errors.push_back(unorientedAngleDeg(actual[i].data(), expected[i].data()));
  EXPECT_LT(percentile(errors, 99), 0.2);
  EXPECT_GE(std::count_if(errors.begin(), errors.end(), [](double e) { return e <= 1; }), 0.995 * errors.size());
}

TEST(DiseNormals, WritesPcdPlyAndNormals) {
  const std::string dir = temporaryDir("cli_formats");
  {
    std::ofstream xyz(dir + "/in.xyz");
    const auto sphere = sphereCloud(300);
    for (const auto& p : *sphere) xyz << p.x << ' ' << p.y << ' ' << p.z << '\n';
    xyz << "nan nan nan\n";
  }
  const std::string model = randomModelFile(3);
  for (const std::string ext : {".pcd", ".ply", ".normals"}) {
    const CommandResult r =
        runTool(dir + "/in.xyz " + dir + "/out" + ext + " --model " + model + " --k 16 --iterations 2 --threads 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("1 points without a normal"), std::string::npos) << r.output;
    std::ifstream written(dir + "/out" + ext);
    EXPECT_TRUE(written.good());
  }
  const auto normals = pcl_dise::io::readTextTriples(dir + "/out.normals");
  ASSERT_EQ(normals.size(), 301u);
  EXPECT_TRUE(std::isnan(normals[300][0]));
  // Round trip: the .pcd output is a valid input.
  const CommandResult again = runTool(dir + "/out.pcd " + dir + "/again.normals --radius 0.3 --iterations 0");
  EXPECT_EQ(again.exit_code, 0) << again.output;
}

TEST(DiseNormals, GeoreferencedCoordinatesKeepTheirPrecision) {
  // UTM-sized coordinates give the same normals as the cloud at the origin, and the output holds
  // the input's coordinates unchanged (in double).
  const std::string dir = temporaryDir("cli_georeferenced");
  const std::string model = randomModelFile(4);
  const std::vector<std::array<double, 3>> local = terrainPoints({0, 0, 0}),
                                           far = terrainPoints({512345.0, 5412345.0, 312.0});
  writeXyzFile(dir + "/local.xyz", local);
  writeXyzFile(dir + "/far.xyz", far);
  for (const std::string name : {"local", "far"})
    for (const std::string ext : {".normals", ".ply", ".pcd", ".las"}) {
      const CommandResult r = runTool(dir + "/" + name + ".xyz " + dir + "/" + name + ext + " --k 16 --model " + model);
      ASSERT_EQ(r.exit_code, 0) << r.output;
      if (name == std::string("far") && ext == std::string(".normals")) {
        EXPECT_NE(r.output.find("coordinates relative to (512360, 5412360, 314)"), std::string::npos) << r.output;
      }
    }
  const auto at_origin = pcl_dise::io::readTextTriples(dir + "/local.normals");
  const auto georeferenced = pcl_dise::io::readTextTriples(dir + "/far.normals");
  ASSERT_EQ(at_origin.size(), georeferenced.size());
  std::vector<double> errors;
  for (std::size_t i = 0; i < at_origin.size(); ++i)
    errors.push_back(unorientedAngleDeg(at_origin[i].data(), georeferenced[i].data()));
  EXPECT_GE(std::count_if(errors.begin(), errors.end(), [](double e) { return e <= 1; }), 0.99 * errors.size());
  EXPECT_LT(percentile(errors, 50), 0.05);
  // Written back in double, unchanged: PLY `double` properties, PCD `F 8` fields.
  EXPECT_EQ(pcl_dise::io::readPly(dir + "/far.ply").vertices, far);
  EXPECT_EQ(pcl_dise::io::readPcd(dir + "/far.pcd").xyz, far);
  // LAS: stored to its scale (here 1e-8: the cloud's reach from the offset fits int32 at it), and
  // read back as input, a LAS file gives the same normals.
  const pcl_dise::io::LasCloud las = pcl_dise::io::readLas(dir + "/far.las");
  ASSERT_EQ(las.xyz.size(), far.size());
  for (std::size_t i = 0; i < far.size(); ++i)
    for (int c = 0; c < 3; ++c) ASSERT_NEAR(las.xyz[i][c], far[i][c], 1e-7);
  const CommandResult from_las = runTool(dir + "/far.las " + dir + "/from_las.normals --k 16 --model " + model);
  ASSERT_EQ(from_las.exit_code, 0) << from_las.output;
  const auto las_normals = pcl_dise::io::readTextTriples(dir + "/from_las.normals");
  ASSERT_EQ(las_normals.size(), georeferenced.size());
  std::size_t close = 0;
  for (std::size_t i = 0; i < las_normals.size(); ++i)
    close += unorientedAngleDeg(las_normals[i].data(), georeferenced[i].data()) <= 0.1;
  EXPECT_GE(close, 0.99 * las_normals.size());
  // Clouds near the origin are written as before, in float.
  std::ifstream ply(dir + "/local.ply");
  const std::string header((std::istreambuf_iterator<char>(ply)), std::istreambuf_iterator<char>());
  EXPECT_NE(header.find("property float x"), std::string::npos);
}

TEST(DiseNormals, ClearErrors) {
  const std::string dir = temporaryDir("cli_errors");
  std::ofstream(dir + "/in.xyz") << "0 0 0\n1 0 0\n0 1 0\n1 1 0.1\n";
  std::ofstream(dir + "/bad.xyz") << "0 0 0\n1 zero 0\n";
  std::ofstream(dir + "/in.txt") << "0 0 0\n";
  const std::string model = randomModelFile(4);
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {dir + "/missing.xyz " + dir + "/o.normals", "cannot be opened"},
      {dir + "/in.txt " + dir + "/o.normals", "unknown extension"},
      {dir + "/bad.xyz " + dir + "/o.normals", "is not a number"},
      {dir + "/in.xyz " + dir + "/o.normals --k 3 --radius 1", "set k or radius, not both"},
      {dir + "/in.xyz " + dir + "/o.normals --model " + dir + "/none.safetensors", "dise_train"},
      {dir + "/in.xyz " + dir + "/o.normals --model " + dir + "/in.xyz", "truncated or not a safetensors"},
      {dir + "/in.xyz " + dir + "/o.vtk --model " + model, "unknown output extension"},
      {dir + "/in.xyz " + dir + "/o.normals --model " + model + " --viewpoint 1,2",
       "viewpoint must be 3 numbers X,Y,Z"},
      {dir + "/in.xyz " + dir + "/o.normals --model " + model + " --backend opencl", "unknown backend"},
      {dir + "/in.xyz " + dir + "/o.normals --model " + model + " --precision fp16", "unknown precision"},
      {dir + "/in.xyz " + dir + "/o.normals --model " + model + " --precision bf16 --backend torch",
       "does not run on the torch backend"},
  };
  for (const auto& c : cases) {
    const CommandResult r = runTool(c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}

// --error: the shipped model's calibrated bound per normal, as a field; where it cannot be given, a
// clear error before anything is written.
TEST(DiseNormals, ErrorWritesEachNormalsBoundOrSaysWhyNot) {
  const std::string dir = temporaryDir("cli_error_bound");
  writeSphereXyzFile(dir + "/in.xyz", 400);
  const std::string shipped = sourceDir() + "/data/models/dise_k32.safetensors";
  const CommandResult r = runTool(dir + "/in.xyz " + dir + "/out.pcd --k 32 --error --threads 1 --model " + shipped +
                                  " --report " + dir + "/report.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const pcl_dise::io::PcdCloud pcd = pcl_dise::io::readPcd(dir + "/out.pcd", true);
  const auto bound =
      std::find_if(pcd.fields.begin(), pcd.fields.end(), [](const auto& f) { return f.name == "error_bound"; });
  ASSERT_NE(bound, pcd.fields.end());
  ASSERT_EQ(bound->values.size(), 400u);
  for (double degrees : bound->values) EXPECT_TRUE(degrees > 0 && degrees < 90) << degrees;
  std::ifstream report(dir + "/report.json");
  EXPECT_EQ(nlohmann::json::parse(report)["settings"]["error_bound"], true);

  const std::string args = dir + "/in.xyz " + dir + "/no";
  const std::pair<std::string, std::string> refusals[] = {
      {args + ".pcd --error --iterations 0", "it needs iterations above 0"},
      {args + ".xyz --error --k 32 --model " + shipped, "cannot hold the error bound"},
      {args + ".pcd --error --k 16 --iterations 2 --model " + randomModelFile(3), "carries no error calibration"},
  };
  for (const auto& [command, message] : refusals) {
    const CommandResult refused = runTool(command);
    EXPECT_NE(refused.exit_code, 0) << command;
    EXPECT_NE(refused.output.find(message), std::string::npos) << command << "\n" << refused.output;
  }
  EXPECT_FALSE(std::ifstream(dir + "/no.pcd").good());
  EXPECT_FALSE(std::ifstream(dir + "/no.xyz").good());
}

// --indices: the listed points get the normals of the whole run (their receptive field is
// estimated), the others none; the output keeps every point. Bad lists are clear errors.
TEST(DiseNormals, IndicesGiveTheWholeRunsNormalsThereAndNoneElsewhere) {
  const std::string dir = temporaryDir("cli_indices");
  writeXyzFile(dir + "/in.xyz", terrainPoints({0.0, 0.0, 0.0}));
  const std::string model = randomModelFile(8);
  const std::string args = " --k 16 --iterations 3 --model " + model;
  const std::vector<int> listed{5, 17, 400, 2, 399};
  {
    std::ofstream list(dir + "/some.txt");
    for (int i : listed) list << i << '\n';
  }
  const CommandResult whole = runTool(dir + "/in.xyz " + dir + "/whole.normals" + args);
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  const CommandResult some = runTool(dir + "/in.xyz " + dir + "/some.normals" + args + " --indices " + dir +
                                     "/some.txt --report " + dir + "/some.json");
  ASSERT_EQ(some.exit_code, 0) << some.output;
  const auto all = pcl_dise::io::readTextTriples(dir + "/whole.normals");
  const auto part = pcl_dise::io::readTextTriples(dir + "/some.normals");
  ASSERT_EQ(part.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (std::find(listed.begin(), listed.end(), int(i)) != listed.end()) {
      for (int a = 0; a < 3; ++a) EXPECT_EQ(part[i][a], all[i][a]) << "point " << i;
    } else {
      EXPECT_TRUE(std::isnan(part[i][0])) << "point " << i << " was not asked for";
    }
  }
  EXPECT_EQ(nlohmann::json::parse(readFile(dir + "/some.json"))["indices"], listed.size());
  std::ofstream(dir + "/beyond.txt") << "3\n" << all.size() << "\n";
  std::ofstream(dir + "/word.txt") << "3 x7\n";
  std::ofstream(dir + "/empty.txt") << "\n";
  const std::pair<std::string, std::string> errors[] = {
      {" --indices " + dir + "/beyond.txt", "index " + std::to_string(all.size()) + " is not a point of"},
      {" --indices " + dir + "/word.txt", "index 2 is 'x7', not a point index"},
      {" --indices " + dir + "/none.txt", "cannot read the indices file"},
      {" --indices " + dir + "/empty.txt", "holds no point index"},
      {" --indices " + dir + "/some.txt --tile-points 100", "indices need the cloud in memory"},
      {" --indices " + dir + "/some.txt --orient mst", "mst"},
  };
  for (const auto& [extra, message] : errors) {
    const CommandResult r = runTool(dir + "/in.xyz " + dir + "/bad.normals" + args + extra);
    EXPECT_NE(r.exit_code, 0) << extra;
    EXPECT_NE(r.output.find(message), std::string::npos) << extra << "\n" << r.output;
  }
}

// --backend cuda where no device is: a clear error and no output, in memory and in tiles.
TEST(DiseNormals, CudaWithoutADeviceIsAClearError) {
  std::string why;
  if (pcl_dise::backendAvailable(pcl_dise::Backend::Cuda, &why)) GTEST_SKIP() << "a CUDA device is present";
  // A machine with a GPU whose backend is not available is broken, not a machine without one.
  ASSERT_FALSE(nvidiaDevicePresent()) << "an NVIDIA device is present, yet the cuda backend is not available: " << why;
  const std::string dir = temporaryDir("cli_no_device");
  std::ofstream(dir + "/in.xyz") << "0 0 0\n1 0 0\n0 1 0\n1 1 0.1\n0.5 0.5 0\n";
  const std::string model = randomModelFile(4);
  for (const std::string tiles : {"", " --tile-points 2"}) {
    const CommandResult r =
        runTool(dir + "/in.xyz " + dir + "/o.normals --k 3 --backend cuda --model " + model + tiles);
    EXPECT_NE(r.exit_code, 0) << tiles;
    EXPECT_NE(r.output.find("backend 'cuda' is not available here: " + why), std::string::npos)
        << tiles << "\n"
        << r.output;  // with the reason
    EXPECT_FALSE(std::ifstream(dir + "/o.normals").good()) << tiles;
  }
}

TEST(DiseNormals, Bf16WithoutTheInstructionsRunsInFloatAndSaysSoOnce) {
  // PCL_DISE_SIMD=avx2 stands for a processor without AVX512_BF16.
  const std::string dir = temporaryDir("cli_bf16_capped");
  writeXyzFile(dir + "/in.xyz", terrainPoints({0.0, 0.0, 0.0}));
  const std::string model = randomModelFile(6);
  const std::string args = dir + "/in.xyz --k 16 --iterations 2 --model " + model;
  const CommandResult plain = runCommand("PCL_DISE_SIMD=avx2 " + binaryDir() + "/apps/dise_normals " + args + " " +
                                         dir + "/float.ply --tile-points 400");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const CommandResult capped = runCommand("PCL_DISE_SIMD=avx2 " + binaryDir() + "/apps/dise_normals " + args + " " +
                                          dir + "/bf16.ply --tile-points 400 --precision bf16");
  ASSERT_EQ(capped.exit_code, 0) << capped.output;
  const std::string said = "precision bf16 needs AVX512_BF16";
  const std::size_t first = capped.output.find(said);
  EXPECT_NE(first, std::string::npos) << capped.output;
  EXPECT_EQ(capped.output.find(said, first + 1), std::string::npos) << "said more than once:\n" << capped.output;
  EXPECT_EQ(readFile(dir + "/bf16.ply"), readFile(dir + "/float.ply"));
}

TEST(DiseNormals, TilesGiveTheInMemoryNormals) {
  // A georeferenced terrain with a NaN point, read as .xyz, binary .ply and .pcd (double
  // coordinates), .las and .laz: in tiles of 400 points (each with its halo read from scratch
  // files) the output is the in-memory output, byte for byte. Its coordinates are not floats after
  // the offset (centimetres), as in real surveys: the tiles must round them as the in-memory cloud does.
  const std::string dir = temporaryDir("cli_tiles");
  const std::string model = randomModelFile(5);
  std::vector<std::array<double, 3>> far = terrainPoints({512345.0, 5412345.0, 312.0});
  for (std::size_t i = 0; i < far.size(); ++i) far[i][0] += 0.01 * (i % 7), far[i][1] += 0.01 * (i % 5);
  far.insert(far.begin() + 100, {NAN, NAN, NAN});
  writeXyzFile(dir + "/in.xyz", far);
  ASSERT_EQ(runTool(dir + "/in.xyz " + dir + "/in.ply --k 8 --iterations 0").exit_code, 0);
  ASSERT_EQ(runTool(dir + "/in.xyz " + dir + "/in.pcd --k 8 --iterations 0").exit_code, 0);
  far.erase(far.begin() + 100);
  writeXyzFile(dir + "/finite.xyz", far);
  ASSERT_EQ(runTool(dir + "/finite.xyz " + dir + "/in.las --k 8 --iterations 0").exit_code, 0);
  ASSERT_EQ(runTool(dir + "/finite.xyz " + dir + "/in.laz --k 8 --iterations 0").exit_code, 0);
  for (const std::string input : {"in.xyz", "in.ply", "in.pcd", "in.las", "in.laz"})
    for (const std::string neighbourhood : {"--k 16", "--radius 1.3 --max-neighbors 20"}) {
      SCOPED_TRACE(input + " " + neighbourhood);
      const std::string args = dir + "/" + input + " " + neighbourhood + " --iterations 2 --model " + model;
      const CommandResult whole = runTool(args + " " + dir + "/whole.ply");
      ASSERT_EQ(whole.exit_code, 0) << whole.output;
      const CommandResult tiled = runTool(args + " " + dir + "/tiled.ply --tile-points 400");
      ASSERT_EQ(tiled.exit_code, 0) << tiled.output;
      EXPECT_NE(tiled.output.find("in tiles"), std::string::npos) << tiled.output;
      EXPECT_EQ(readFile(dir + "/tiled.ply"), readFile(dir + "/whole.ply"));
    }
  // LAS to LAS keeps the input's records (here an output of ours, whose normals are replaced), in
  // tiles as in memory.
  const std::string las_args = dir + "/in.las --k 16 --iterations 2 --model " + model;
  ASSERT_EQ(runTool(las_args + " " + dir + "/whole.las").exit_code, 0);
  ASSERT_EQ(runTool(las_args + " " + dir + "/tiled.las --tile-points 400").exit_code, 0);
  EXPECT_EQ(readFile(dir + "/tiled.las"), readFile(dir + "/whole.las"));
  const std::string las_in = readFile(dir + "/in.las"), las_out = readFile(dir + "/whole.las");
  ASSERT_EQ(las_out.size(), las_in.size());
  std::uint32_t points_at = 0;
  std::memcpy(&points_at, &las_in[96], sizeof points_at);
  for (std::size_t i = 0; i < far.size(); ++i)
    ASSERT_EQ(las_out.compare(points_at + 46 * i, 30, las_in, points_at + 46 * i, 30), 0) << i;
  EXPECT_NE(las_out.substr(points_at), las_in.substr(points_at));  // the normals are new
  // LAZ to LAZ likewise, its records those of LAS to LAS.
  const std::string laz_args = dir + "/in.laz --k 16 --iterations 2 --model " + model;
  ASSERT_EQ(runTool(laz_args + " " + dir + "/whole.laz").exit_code, 0);
  ASSERT_EQ(runTool(laz_args + " " + dir + "/tiled.laz --tile-points 400").exit_code, 0);
  EXPECT_EQ(readFile(dir + "/tiled.laz"), readFile(dir + "/whole.laz"));
  // --orient none: the plane fit's own sign, in tiles as in memory (not the viewpoint's).
  const std::string xyz = dir + "/in.xyz --k 16 --iterations 2 --model " + model;
  ASSERT_EQ(runTool(xyz + " --orient none " + dir + "/whole_none.ply").exit_code, 0);
  ASSERT_EQ(runTool(xyz + " --orient none " + dir + "/tiled_none.ply --tile-points 400").exit_code, 0);
  ASSERT_EQ(runTool(xyz + " " + dir + "/whole_viewpoint.ply").exit_code, 0);
  EXPECT_EQ(readFile(dir + "/tiled_none.ply"), readFile(dir + "/whole_none.ply"));
  EXPECT_NE(readFile(dir + "/whole_none.ply"), readFile(dir + "/whole_viewpoint.ply"));
  // --precision bf16: in tiles the bytes of bf16 in memory (not float's where the processor has bf16).
  ASSERT_EQ(runTool(xyz + " --precision bf16 " + dir + "/whole_bf16.ply").exit_code, 0);
  ASSERT_EQ(runTool(xyz + " --precision bf16 " + dir + "/tiled_bf16.ply --tile-points 400").exit_code, 0);
  EXPECT_EQ(readFile(dir + "/tiled_bf16.ply"), readFile(dir + "/whole_bf16.ply"));
  if (pcl_dise::bfloat16Available()) {
    EXPECT_NE(readFile(dir + "/whole_bf16.ply"), readFile(dir + "/whole_viewpoint.ply"));
  }
  // --max-memory tiles a cloud that does not fit, and keeps one that does in memory.
  const CommandResult small =
      runTool(dir + "/in.las " + dir + "/budget.normals --k 16 --model " + model + " --max-memory 1");
  EXPECT_NE(small.exit_code, 0);
  EXPECT_NE(small.output.find("too small"), std::string::npos) << small.output;
  const CommandResult fits =
      runTool(dir + "/in.las " + dir + "/budget.normals --k 16 --model " + model + " --max-memory 500");
  EXPECT_EQ(fits.exit_code, 0) << fits.output;
  EXPECT_EQ(fits.output.find("in tiles"), std::string::npos) << fits.output;
}

TEST(DiseNormals, TilesRefuseBrokenInputAndLeaveNoOutputBehind) {
  const std::string dir = temporaryDir("cli_tiles_errors");
  const std::string model = randomModelFile(5);
  writeXyzFile(dir + "/in.xyz", terrainPoints({0, 0, 0}));
  ASSERT_EQ(runTool(dir + "/in.xyz " + dir + "/in.ply --k 8 --iterations 0").exit_code, 0);
  ASSERT_EQ(runTool(dir + "/in.xyz " + dir + "/in.las --k 8 --iterations 0").exit_code, 0);
  const std::string ply = readFile(dir + "/in.ply"), las = readFile(dir + "/in.las");
  std::ofstream(dir + "/cut.ply", std::ios::binary) << ply.substr(0, ply.size() - 100);
  std::string lying = las;
  const std::uint64_t claimed = 1000000;
  std::memcpy(&lying[247], &claimed, sizeof claimed);  // LAS 1.4's point count
  std::ofstream(dir + "/lying.las", std::ios::binary) << lying;
  std::ofstream(dir + "/ascii.pcd") << "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\n"
                                    << "WIDTH 1\nHEIGHT 1\nPOINTS 1\nDATA ascii\n0 0 0\n";
  struct Case {
    std::string input, message;
  };
  for (const Case& c : {Case{"cut.ply", "more than the file holds"}, Case{"lying.las", "more than the file holds"},
                        Case{"ascii.pcd", "convert it to binary"}}) {
    const CommandResult r =
        runTool(dir + "/" + c.input + " " + dir + "/out.ply --k 8 --model " + model + " --tile-points 500");
    EXPECT_NE(r.exit_code, 0) << c.input;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.input << "\n" << r.output;
  }
  // A disk that fills up (here: a file-size limit of 64 kB): an error, and no output file.
  const std::string command = "ulimit -f 64; " + binaryDir() + "/apps/dise_normals " + dir + "/in.xyz " + dir +
                              "/full.ply --k 8 --model " + model + " --tile-points 500 > " + dir + "/full.txt 2>&1";
  const int status = std::system(("bash -c '" + command + "'").c_str());
  EXPECT_NE(WEXITSTATUS(status), 0);
  EXPECT_NE(readFile(dir + "/full.txt").find("could not be written completely"), std::string::npos)
      << readFile(dir + "/full.txt");
  EXPECT_FALSE(std::ifstream(dir + "/full.ply").good());
  EXPECT_FALSE(std::ifstream(dir + "/full.ply.partial").good());
}

TEST(DiseNormals, OrientsTowardsTheViewpointConsistentlyOrNotAtAll) {
  const std::string dir = temporaryDir("cli_orient");
  writeSphereXyzFile(dir + "/sphere.xyz", 3000);
  const auto sphere = pcl_dise::io::readTextTriplesInDouble(dir + "/sphere.xyz");
  const auto count = [&](const std::string& orient, auto facing) {
    const CommandResult run = runTool(dir + "/sphere.xyz " + dir + "/out.normals --k 16 --iterations 0" + orient);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    const auto normals = pcl_dise::io::readTextTriples(dir + "/out.normals");
    std::size_t n = 0;
    for (std::size_t i = 0; i < normals.size(); ++i) n += facing(sphere[i], normals[i]);
    return n;
  };
  const auto outward = [](const std::array<double, 3>& p, const std::array<float, 3>& n) {
    return p[0] * n[0] + p[1] * n[1] + p[2] * n[2] > 0;
  };
  EXPECT_EQ(count("", outward), 0u);  // towards the viewpoint, the origin: inward
  EXPECT_EQ(count(" --orient mst", outward), 3000u);
  EXPECT_EQ(count(" --orient closed", outward), 3000u);
  // The orientation's own time: on the summary's time line and in the report, within the estimation's.
  const CommandResult timed =
      runTool(dir + "/sphere.xyz " + dir + "/out.normals --k 16 --iterations 0 --orient closed --report " + dir +
              "/report.json");
  EXPECT_NE(timed.output.find(" s, orientation "), std::string::npos) << timed.output;
  const auto seconds = nlohmann::json::parse(std::ifstream(dir + "/report.json"))["seconds"];
  EXPECT_GT(seconds["orientation"].get<double>(), 0.0);
  EXPECT_LE(seconds["orientation"].get<double>(), seconds["estimation"].get<double>());
  const auto sign_rule = [](const std::array<double, 3>&, const std::array<float, 3>& n) {
    return n[0] + 2 * n[1] + 3 * n[2] >= 0;  // the plane fit's own sign (docs/algorithm.md)
  };
  EXPECT_EQ(count(" --orient none", sign_rule), 3000u);
  const auto up = [](const std::array<double, 3>&, const std::array<float, 3>& n) { return n[2] >= 0; };
  EXPECT_EQ(count(" --orient up", up), 3000u);

  const CommandResult tiled = runTool(dir + "/sphere.xyz " + dir + "/t.normals --k 16 --orient mst --tile-points 500");
  EXPECT_NE(tiled.exit_code, 0);
  EXPECT_NE(tiled.output.find("needs it in memory"), std::string::npos) << tiled.output;
  const CommandResult bad = runTool(dir + "/sphere.xyz " + dir + "/t.normals --orient outward");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("orient must be one of viewpoint, up, mst, closed or none, not"), std::string::npos)
      << bad.output;
}

TEST(DiseNormals, AerialLidarFacesUpByDefault) {
  // An airborne survey (Autzen) as LAS and as LAZ: with no option every normal that is not near
  // horizontal faces up, as PDAL's filters.normal makes them; --viewpoint or --orient still decide.
  if (!sharedFileExists("data/lidar/autzen_trim.laz")) GTEST_SKIP() << "no ../shared/data/lidar";
  const std::string dir = temporaryDir("cli_up");
  auto shareUp = [&](const std::string& input, const std::string& options) {
    const CommandResult run =
        runTool(sharedDir() + "/data/lidar/" + input + " " + dir + "/out.xyz --iterations 0 --k 16" + options);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    std::size_t steep = 0, up = 0;
    std::ifstream in(dir + "/out.xyz");
    double x, y, z, nx, ny, nz, c;
    while (in >> x >> y >> z >> nx >> ny >> nz >> c)
      if (std::abs(nz) > 0.3) ++steep, up += nz > 0;
    return steep ? double(up) / double(steep) : 0.0;
  };
  EXPECT_GE(shareUp("autzen_trim.las", ""), 0.99);
  EXPECT_GE(shareUp("autzen_trim.laz", ""), 0.99);
  EXPECT_GE(shareUp("autzen_trim.laz", " --tile-points 30000"), 0.99);
  EXPECT_LT(shareUp("autzen_trim.las", " --orient viewpoint"), 0.9);  // the origin: far below the survey
  EXPECT_LT(shareUp("autzen_trim.las", " --viewpoint 0,0,0"), 0.9);
}

TEST(DiseNormals, OrganizedRgbdScanEndToEnd) {
  // A Kinect frame (640 x 480, NaN where the sensor saw nothing), every 4th row and column: the
  // output keeps the grid, NaN normals where the points are NaN, normals facing the camera.
  if (!sharedFileExists("data/scans/table_scene_mug_stereo_textured.pcd")) GTEST_SKIP() << "scan not found";
  pcl::PointCloud<pcl::PointXYZ> full;
  ASSERT_EQ(pcl::io::loadPCDFile(sharedDir() + "/data/scans/table_scene_mug_stereo_textured.pcd", full), 0);
  pcl::PointCloud<pcl::PointXYZ> frame(full.width / 4, full.height / 4);
  for (std::uint32_t r = 0; r < frame.height; ++r)
    for (std::uint32_t c = 0; c < frame.width; ++c) frame.at(c, r) = full.at(4 * c, 4 * r);
  frame.is_dense = false;
  const std::string dir = temporaryDir("cli_rgbd");
  ASSERT_EQ(pcl::io::savePCDFileBinary(dir + "/frame.pcd", frame), 0);
  const CommandResult run =
      runTool(dir + "/frame.pcd " + dir + "/out.pcd --k 16 --iterations 2 --model " + randomModelFile(8));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  pcl::PointCloud<pcl::PointNormal> out;
  ASSERT_EQ(pcl::io::loadPCDFile(dir + "/out.pcd", out), 0);
  ASSERT_EQ(out.width, frame.width);
  ASSERT_EQ(out.height, frame.height);
  std::size_t nan_points = 0, facing = 0, finite = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!pcl::isFinite(frame[i])) {
      ++nan_points;
      EXPECT_TRUE(std::isnan(out[i].x) && std::isnan(out[i].normal_x)) << i;
      continue;
    }
    if (!std::isfinite(out[i].normal_x)) continue;
    ++finite;
    facing += out[i].getNormalVector3fMap().dot(-out[i].getVector3fMap()) >= 0.f;  // the camera sits at the origin
  }
  EXPECT_GT(nan_points, 1000u);
  EXPECT_GT(finite, frame.size() / 2);
  EXPECT_EQ(facing, finite);
}

TEST(DiseNormals, FlipsTowardsThePcdViewpoint) {
  // A plane at z = 0 seen from below (VIEWPOINT 0 0 -10) and from above: the normals face the
  // sensor, in memory and in tiles; --viewpoint overrides the file's.
  const std::string dir = temporaryDir("cli_viewpoint");
  for (const std::string z : {"-10", "10"}) {
    std::ofstream pcd(dir + "/plane" + z + ".pcd");
    pcd << "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 400\nHEIGHT 1\nVIEWPOINT 0 0 " << z
        << " 1 0 0 0\nPOINTS 400\nDATA ascii\n";
    for (int i = 0; i < 400; ++i) pcd << 0.05 * (i % 20) << ' ' << 0.05 * (i / 20) << " 0\n";
  }
  for (const std::string z : {"-10", "10"})
    for (const std::string mode : {"", " --tile-points 100"}) {
      if (!mode.empty()) {  // tiles read binary PCD: convert through a .pcd output first
        ASSERT_EQ(runTool(dir + "/plane" + z + ".pcd " + dir + "/binary" + z + ".pcd --k 8 --iterations 0").exit_code,
                  0);
      }
      const std::string input = dir + (mode.empty() ? "/plane" : "/binary") + z + ".pcd";
      const CommandResult r = runTool(input + " " + dir + "/n.normals --k 8 --iterations 0" + mode);
      ASSERT_EQ(r.exit_code, 0) << r.output;
      const auto normals = pcl_dise::io::readTextTriples(dir + "/n.normals");
      ASSERT_EQ(normals.size(), 400u);
      const float sign = z == "10" ? 1.f : -1.f;
      for (const auto& n : normals) ASSERT_GT(sign * n[2], 0.99f) << z << mode;
      const CommandResult over = runTool(input + " " + dir + "/o.normals --k 8 --iterations 0 --viewpoint 0,0," +
                                         (z == "10" ? "-5" : "5") + mode);
      ASSERT_EQ(over.exit_code, 0) << over.output;
      for (const auto& n : pcl_dise::io::readTextTriples(dir + "/o.normals"))
        ASSERT_LT(sign * n[2], -0.99f) << z << mode;
    }
}

}  // namespace

namespace {

// The progress lines of a run: what it wrote to stderr that starts with "dise_normals: " and a share.
std::vector<std::string> progressLines(const std::string& stderr_text) {
  std::vector<std::string> lines;
  std::istringstream in(stderr_text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("dise_normals: ", 0) == 0 && line.find("% ") != std::string::npos) lines.push_back(line);
  return lines;
}

}  // namespace

TEST(DiseNormals, PipedProgressIsPlainLinesAndQuietIsSilent) {
  const std::string dir = temporaryDir("cli_progress");
  writeXyzFile(dir + "/in.xyz", terrainPoints({0.0, 0.0, 0.0}));
  const std::string model = randomModelFile(7);
  for (const std::string tiles : {"", " --tile-points 400"}) {
    SCOPED_TRACE(tiles);
    const std::string args = dir + "/in.xyz " + dir + "/out.ply --k 16 --iterations 2 --model " + model + tiles;
    // stderr alone into a file: not a terminal.
    const int status = std::system((binaryDir() + "/apps/dise_normals " + args + " --report " + dir +
                                    "/report.json > /dev/null 2> " + dir + "/stderr.txt")
                                       .c_str());
    ASSERT_EQ(WEXITSTATUS(status), 0);
    const std::string err = readFile(dir + "/stderr.txt");
    EXPECT_EQ(err.find('\r'), std::string::npos) << "no redraws into a file";
    const std::vector<std::string> lines = progressLines(err);
    ASSERT_GE(lines.size(), 2u) << err;
    EXPECT_NE(lines.back().find("100%"), std::string::npos) << err;
    const std::string report = readFile(dir + "/report.json");
    for (const char* key : {"\"points\"", "\"peak_memory_mb\"", "\"seconds\"", "\"settings\"", "\"model\""})
      EXPECT_NE(report.find(key), std::string::npos) << key << " in " << report;
    const int quiet = std::system(
        (binaryDir() + "/apps/dise_normals " + args + " --quiet > /dev/null 2> " + dir + "/quiet.txt").c_str());
    ASSERT_EQ(WEXITSTATUS(quiet), 0);
    EXPECT_EQ(readFile(dir + "/quiet.txt"), "");
  }
}

TEST(DiseNormals, CtrlCStopsAndLeavesNoOutput) {
  const std::string dir = temporaryDir("cli_interrupt");
  std::vector<std::array<double, 3>> many;
  for (int i = 0; i < 400; ++i)
    for (int j = 0; j < 400; ++j) many.push_back({i * 0.01, j * 0.01, 0.1 * std::sin(i * 0.05) * std::cos(j * 0.05)});
  writeXyzFile(dir + "/in.xyz", many);
  for (const std::string tiles : {"", " --tile-points 20000"}) {
    SCOPED_TRACE(tiles);
    // SIGINT three seconds in (the process long started, even on a busy machine), as Ctrl-C
    // sends it; far more iterations than those seconds hold. timeout sends it twice, to the tool
    // and to its group, microseconds apart: that is still one Ctrl-C.
    const std::string command = "timeout --preserve-status -s INT 3 " + binaryDir() + "/apps/dise_normals " + dir +
                                "/in.xyz " + dir + "/out.las --iterations 200 --quiet" + tiles;
    const CommandResult r = runCommand(command);
    EXPECT_EQ(r.exit_code, 130) << r.output;
    EXPECT_NE(r.output.find("stopped"), std::string::npos) << r.output;
    EXPECT_FALSE(std::ifstream(dir + "/out.las").good());
    EXPECT_FALSE(std::ifstream(dir + "/out.las.partial").good());
  }
}
