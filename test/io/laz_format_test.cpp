// Our LAZ reader and writer (pcl_dise/io/laz_format.h) against files compressed by other software
// (LASzip, laz-perf, libLAS: ../shared/data/lidar): each decodes to the records of its
// uncompressed twin, the COPC file to the same points; what we write reads back to the records
// written, in every point format LAZ covers, over several chunks and scanner channels; malformed
// LAZ gives clear errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include "pcl_dise/io/las_format.h"
#include "pcl_dise/io/laz_format.h"
#include "test_support.h"

namespace {

using namespace pcl_dise::io;
using namespace pcl_dise::test;

std::string lidar(const std::string& name) { return sharedDir() + "/data/lidar/" + name; }

// The point records of an uncompressed LAS file.
std::string lasRecords(const std::string& path, std::uint16_t* record_length = nullptr) {
  const std::string bytes = readFile(path);
  const LasHeader h = parseLasHeader(bytes, path, bytes.size());
  if (record_length) *record_length = h.record_length;
  return bytes.substr(h.point_data, h.count * h.record_length);
}

std::string lazRecords(const std::string& path, std::uint16_t* record_length = nullptr) {
  LazReader reader(path);
  if (record_length) *record_length = reader.header().record_length;
  std::string records;
  while (reader.read(1000, records) > 0) {}
  return records;
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(LazFormat, FilesOfOtherSoftwareDecodeToTheirTwins) {
  if (!sharedFileExists("data/lidar/autzen_trim.laz")) GTEST_SKIP() << "no ../shared/data/lidar";
  const std::pair<const char*, const char*> twins[] = {{"point10.las.laz", "point10.las"},
                                                       {"1815.laz", "1815.las"},
                                                       {"point-time.las.laz", "point-time.las"},
                                                       {"point-time-1.4.las.laz", "point-time.las"},
                                                       {"point-color-time.las.laz", "point-color-time.las"},
                                                       {"extrabytes.laz", "extrabytes.las"},
                                                       {"autzen_trim.laz", "autzen_trim.las"},
                                                       {"simple.laz", "simple.las"},
                                                       {"laszip-generated.laz", "simple.las"},
                                                       {"liblas-generated.laz", "simple.las"}};
  for (const auto& [laz, las] : twins) {
    std::uint16_t laz_length = 0, las_length = 0;
    const std::string decoded = lazRecords(lidar(laz), &laz_length);
    const std::string expected = lasRecords(lidar(las), &las_length);
    EXPECT_EQ(laz_length, las_length) << laz;
    EXPECT_EQ(decoded.size(), expected.size()) << laz;
    EXPECT_TRUE(decoded == expected) << laz << ": records differ from " << las;
  }
}

TEST(LazFormat, ReadsCopcAsLaz) {
  if (!sharedFileExists("data/lidar/1.2-with-color.copc.laz")) GTEST_SKIP() << "no ../shared/data/lidar";
  // The same survey as simple.las (format 3), reordered into an octree and stored as format 7:
  // the same coordinates, intensities, colours and times.
  const LasCloud copc = readLas(lidar("1.2-with-color.copc.laz"), true);
  const LasCloud simple = readLas(lidar("simple.las"), true);
  EXPECT_EQ(copc.point_format, 7);
  ASSERT_EQ(copc.xyz.size(), simple.xyz.size());
  auto rows = [](const LasCloud& cloud) {
    auto field = [&](const std::string& name) {
      for (const PointField& f : cloud.fields)
        if (f.name == name) return f.values;
      return std::vector<double>(cloud.xyz.size(), -1.0);
    };
    const auto intensity = field("Intensity"), red = field("Red"), time = field("GpsTime");
    std::vector<std::array<double, 6>> out;
    for (std::size_t i = 0; i < cloud.xyz.size(); ++i)
      out.push_back({cloud.xyz[i][0], cloud.xyz[i][1], cloud.xyz[i][2], intensity[i], red[i], time[i]});
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto a = rows(copc), b = rows(simple);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (int c = 0; c < 6; ++c) ASSERT_NEAR(a[i][c], b[i][c], c < 3 ? 1e-6 : 0.0) << "row " << i << " column " << c;
}

// Records of `format` with `extra` extra bytes, varied as real surveys are (and more): returns of
// several pulses, four scanner channels, interleaved GPS time sequences with jumps, colours that
// are sometimes grey, fields that change rarely.
std::string variedRecords(int format, std::size_t extra, std::size_t n, std::uint16_t& length) {
  static const std::uint16_t kLength[] = {20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67};
  length = static_cast<std::uint16_t>(kLength[format] + extra);
  std::mt19937 rng(format * 31 + 7);
  std::string records(n * length, '\0');
  double time = 1e8;
  for (std::size_t i = 0; i < n; ++i) {
    char* r = &records[i * length];
    const std::int32_t xyz[3] = {static_cast<std::int32_t>(i * 37 + rng() % 50),
                                 static_cast<std::int32_t>(rng() % 100000),
                                 static_cast<std::int32_t>(1000 + rng() % (i % 500 == 0 ? 2000000000u : 300u))};
    std::memcpy(r, xyz, 12);
    const std::uint16_t intensity = (i % 7 == 0) ? rng() % 65536 : 100;
    std::memcpy(r + 12, &intensity, 2);
    const unsigned returns = 1 + rng() % (format >= 6 ? 15 : 7), ret = 1 + rng() % returns;
    if (i % 1000 == 0) time += (rng() % 2 ? 1e6 : -3e5);  // a jump to another sequence
    time += (i % 3) * 1e-5;
    if (format <= 5) {
      r[14] = static_cast<char>(ret | returns << 3 | (rng() % 2) << 6 | (i % 500 == 0) << 7);
      r[15] = static_cast<char>(i % 100 < 90 ? 2 : rng() % 256);
      r[16] = static_cast<char>(static_cast<std::int8_t>(-20 + rng() % 41));
      r[17] = static_cast<char>(i % 50 == 0 ? rng() % 256 : 0);
      const std::uint16_t source = static_cast<std::uint16_t>(i / 20000);
      std::memcpy(r + 18, &source, 2);
      if (format == 1 || format == 3) std::memcpy(r + 20, &time, 8);
      const int rgb = format == 2 ? 20 : format == 3 ? 28 : -1;
      if (rgb > 0) {
        const std::uint16_t grey = rng() % 65536;
        const std::uint16_t colour[3] = {grey, static_cast<std::uint16_t>(i % 4 ? grey : rng()),
                                         static_cast<std::uint16_t>(rng() % 300)};
        std::memcpy(r + rgb, colour, 6);
      }
    } else {
      r[14] = static_cast<char>(ret | returns << 4);
      const unsigned channel = (i / 300) % 4 == 3 ? rng() % 4 : (i / 300) % 4;
      r[15] = static_cast<char>((rng() % 16) * (i % 40 == 0) | channel << 4 | (rng() % 2) << 6 | (i % 900 == 0) << 7);
      r[16] = static_cast<char>(i % 100 < 90 ? 2 : rng() % 256);
      r[17] = static_cast<char>(i % 50 == 0 ? rng() % 256 : 0);
      const std::int16_t angle = static_cast<std::int16_t>(-3000 + rng() % 6001);
      std::memcpy(r + 18, &angle, 2);
      const std::uint16_t source = static_cast<std::uint16_t>(i / 20000);
      std::memcpy(r + 20, &source, 2);
      const double t = time + channel * 100.0;
      std::memcpy(r + 22, &t, 8);
      if (format >= 7) {
        const std::uint16_t colour[4] = {static_cast<std::uint16_t>(rng()),
                                         static_cast<std::uint16_t>(i % 9 ? 5 : rng()), 7,
                                         static_cast<std::uint16_t>(rng() % 1000)};
        std::memcpy(r + 30, colour, format == 8 ? 8 : 6);
      }
    }
    for (std::size_t e = 0; e < extra; ++e) r[kLength[format] + e] = static_cast<char>(e == 0 ? rng() : i % 256);
  }
  return records;
}

// A LAZ file of `records` written by our chunk writer with `chunk` points per chunk.
std::string writeLaz(const std::string& path, int format, std::uint16_t length, const std::string& records,
                     std::uint32_t chunk) {
  std::ofstream out(path, std::ios::binary);
  LazChunkWriter writer(out, path, format, length, chunk);
  const std::string vlr = writer.vlr();
  std::string header(375, '\0');
  std::memcpy(&header[0], "LASF", 4);
  putAt<std::uint8_t>(header, 24, 1);
  putAt<std::uint8_t>(header, 25, 4);
  putAt<std::uint16_t>(header, 94, 375);
  putAt<std::uint32_t>(header, 96, static_cast<std::uint32_t>(375 + vlr.size()));
  putAt<std::uint32_t>(header, 100, 1);
  putAt<std::uint8_t>(header, 104, static_cast<std::uint8_t>(format | 0x80));
  putAt<std::uint16_t>(header, 105, length);
  for (int c = 0; c < 3; ++c) putAt<double>(header, 131 + 8 * c, 0.01);
  putAt<std::uint64_t>(header, 247, records.size() / length);
  if (format <= 5) putAt<std::uint32_t>(header, 107, static_cast<std::uint32_t>(records.size() / length));
  out.write(header.data(), header.size());
  out.write(vlr.data(), vlr.size());
  writer.begin();
  for (std::size_t i = 0; i < records.size() / length; ++i) writer.add(records.data() + i * length);
  writer.finish();
  return path;
}

TEST(LazFormat, WhatWeWriteReadsBackInEveryPointFormat) {
  for (int format : {0, 1, 2, 3, 6, 7, 8}) {
    for (std::size_t extra : {0, 5}) {
      std::uint16_t length = 0;
      const std::string records = variedRecords(format, extra, 12345, length);
      const std::string path =
          writeLaz(temporaryDir("laz") + "/f" + std::to_string(format) + ".laz", format, length, records, 5000);
      const std::string back = lazRecords(path);
      ASSERT_EQ(back.size(), records.size()) << "format " << format;
      std::size_t first_difference = 0;
      while (first_difference < back.size() && back[first_difference] == records[first_difference]) ++first_difference;
      EXPECT_EQ(first_difference, records.size()) << "format " << format << " extra " << extra << ": point "
                                                  << first_difference / length << " byte " << first_difference % length;
      // Compressed, and read piece by piece the same.
      EXPECT_LT(readFile(path).size(), records.size()) << "format " << format;
    }
  }
}

// laz-perf (the npm package: WebAssembly, decoding only) installed once into the build folder;
// "" with the reason in `why` where node or npm or the registry cannot be reached.
std::string lazPerfModules(std::string& why) {
  const std::string dir = binaryDir() + "/laz-perf";
  if (std::ifstream(dir + "/node_modules/laz-perf/package.json")) return dir + "/node_modules";
  const CommandResult r = runCommand("command -v node && command -v npm && mkdir -p " + dir + " && cd " + dir +
                                     " && timeout 300 npm install --silent --no-audit --no-fund laz-perf");
  if (r.exit_code != 0) {
    why =
        "laz-perf could not be installed with npm (node and npm missing or the npm registry unreachable): " + r.output;
    return "";
  }
  return dir + "/node_modules";
}

// The records laz-perf decodes from `laz`.
std::string lazPerfRecords(const std::string& modules, const std::string& laz) {
  const std::string out = temporaryDir("laz_perf") + "/records.bin";
  const CommandResult r =
      runCommand("LAZPERF_DIR=" + modules + " node " + sharedDir() + "/tools/laz_decode.mjs " + laz + " " + out);
  EXPECT_EQ(r.exit_code, 0) << r.output.substr(std::max<std::size_t>(r.output.size(), 2000) - 2000);
  return readFile(out);
}

TEST(LazFormat, LazPerfDecodesWhatWeWriteAndWeDecodeWhatItDoes) {
  if (!sharedFileExists("tools/laz_decode.mjs")) GTEST_SKIP() << "no ../shared/tools/laz_decode.mjs";
  std::string why;
  const std::string modules = lazPerfModules(why);
  if (modules.empty()) GTEST_SKIP() << why;
  for (int format : {0, 1, 2, 3, 6, 7, 8}) {
    std::uint16_t length = 0;
    const std::string records = variedRecords(format, 3, 12345, length);
    const std::string path = writeLaz(temporaryDir("laz_cross") + "/ours.laz", format, length, records, 5000);
    EXPECT_TRUE(lazPerfRecords(modules, path) == records) << "laz-perf reads our format " << format << " otherwise";
  }
  for (const char* name : {"autzen_trim.laz", "extrabytes.laz", "1.2-with-color.copc.laz", "point-time-1.4.las.laz"})
    EXPECT_TRUE(lazPerfRecords(modules, lidar(name)) == lazRecords(lidar(name))) << name;
}

TEST(LazFormat, LasWriterWritesLazFromALasSource) {
  if (!sharedFileExists("data/lidar/rand1_6.las")) GTEST_SKIP() << "no ../shared/data/lidar";
  for (const std::string source :
       {"autzen_trim.las", "rand1_6.las", "test1_4.las", "autzen_trim_7.las", "extrabytes.laz"}) {
    const std::string dir = temporaryDir("laz_writer");
    std::vector<std::string> outputs;
    for (const std::string ext : {".las", ".laz"}) {
      const std::string path = dir + "/out" + ext;
      std::ofstream out(path, std::ios::binary);
      LasWriter writer(out, path, lidar(source));
      const LasCloud cloud = readLas(lidar(source));
      for (std::size_t i = 0; i < cloud.xyz.size(); ++i) writer.add(cloud.xyz[i], {0.f, 0.f, 1.f, 0.5f * (i % 3)});
      writer.finish();
      out.close();
      outputs.push_back(path);
    }
    // The LAZ output holds the LAS output's records, and reads as the same cloud.
    EXPECT_TRUE(lasRecords(outputs[0]) == lazRecords(outputs[1])) << source;
    const LasCloud las = readLas(outputs[0], true), laz = readLas(outputs[1], true);
    EXPECT_EQ(las.xyz, laz.xyz) << source;
    ASSERT_EQ(las.fields.size(), laz.fields.size()) << source;
    for (std::size_t f = 0; f < las.fields.size(); ++f) EXPECT_EQ(las.fields[f].name, laz.fields[f].name) << source;
  }
}

TEST(LazFormat, MalformedLazGivesClearErrors) {
  if (!sharedFileExists("data/lidar/autzen_trim.laz")) GTEST_SKIP() << "no ../shared/data/lidar";
  const std::string good = readFile(lidar("autzen_trim.laz"));
  const LasHeader h = parseLasHeader(good, "f.laz", good.size());
  auto errorOfBytes = [](const std::string& bytes) {
    return errorOf([&] {
      const LasCloud cloud = parseLas(bytes, "f.laz");
      (void)cloud;
    });
  };
  EXPECT_EQ(errorOfBytes(good), "no error");
  // Truncated: the chunk table (at the end) is gone.
  EXPECT_NE(errorOfBytes(good.substr(0, good.size() / 2)).find("chunk table"), std::string::npos);
  // The chunk table's offset points anywhere.
  for (std::int64_t offset : {std::int64_t{0}, std::int64_t{1} << 40, static_cast<std::int64_t>(h.point_data)}) {
    std::string bad = good;
    putAt<std::int64_t>(bad, h.point_data, offset);
    EXPECT_NE(errorOfBytes(bad).find("chunk table"), std::string::npos) << offset;
  }
  // The header promises more points than the chunks hold.
  std::string more = good;
  putAt<std::uint32_t>(more, 107, static_cast<std::uint32_t>(h.count + 1));
  EXPECT_NE(errorOfBytes(more).find("chunk"), std::string::npos) << errorOfBytes(more);
  // Chunks overwritten with noise, pointwise (Autzen) and layered (COPC, format 7): decoded
  // garbage or a clear error, never a crash or a read outside the data (the sanitizer build).
  std::mt19937 rng(11);
  for (const char* name : {"autzen_trim.laz", "1.2-with-color.copc.laz"}) {
    const std::string file = readFile(lidar(name));
    const LasHeader fh = parseLasHeader(file, name, file.size());
    for (int trial = 0; trial < 40; ++trial) {
      std::string garbled = file;
      const std::size_t from = fh.point_data + 8 + rng() % 2000, to = std::min(garbled.size(), from + 1 + rng() % 3000);
      for (std::size_t i = from; i < to; ++i) garbled[i] = static_cast<char>(rng());
      const std::string error = errorOfBytes(garbled);
      EXPECT_TRUE(error == "no error" || error.find("f.laz") != std::string::npos) << error;
    }
  }
  // Waveform items and the old version-1 items are named.
  const std::size_t vlr = good.find("laszip encoded");
  ASSERT_NE(vlr, std::string::npos);
  const std::size_t payload = vlr - 2 + 54;
  std::string wave = good;
  putAt<std::uint16_t>(wave, payload + 34, 9);  // the first item: WAVEPACKET13
  EXPECT_NE(errorOfBytes(wave).find("waveform"), std::string::npos) << errorOfBytes(wave);
  std::string version1 = good;
  putAt<std::uint16_t>(version1, payload + 34 + 4, 1);
  EXPECT_NE(errorOfBytes(version1).find("version-1"), std::string::npos) << errorOfBytes(version1);
  // Our writer refuses waveform formats by name.
  std::ostringstream sink;
  EXPECT_NE(errorOf([&] { LazChunkWriter(sink, "w.laz", 4, 57); }).find("waveform"), std::string::npos);
}

}  // namespace
