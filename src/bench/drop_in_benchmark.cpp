#include "drop_in_benchmark.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <stdexcept>
#include <utility>

#include <pcl/features/normal_3d.h>
#include <pcl/io/pcd_io.h>

#include "measurement.h"
#include "pcl_dise/feature/deep_iterative_normal_estimation.h"

namespace pcl_dise {
namespace bench {
namespace {

using Cloud = pcl::PointCloud<pcl::PointXYZ>;
using Normals = pcl::PointCloud<pcl::Normal>;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double medianSeconds(int repeats, const std::function<void()>& run) {
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) times.push_back(secondsOf(run));
  return median(times);
}

// A depth image's surface behind the bunny (a gently curved wall), 640 x 480 pixels, with the
// bunny's points in its first pixels; `zeros`: every other pixel (0, 0, 0), as drivers write
// invalid pixels.
Cloud::Ptr organizedSurface(const Cloud& bunny, bool zeros) {
  auto surface = pcl::make_shared<Cloud>(640, 480);
  for (int v = 0; v < 480; ++v)
    for (int u = 0; u < 640; ++u) {
      const float x = (u - 320) / 1600.f, y = (v - 240) / 1600.f;
      (*surface)(u, v) = zeros ? pcl::PointXYZ(0.f, 0.f, 0.f)
                               : pcl::PointXYZ(x, y + 0.1f, -0.1f + 0.01f * std::sin(20 * x) * std::cos(15 * y));
    }
  for (std::size_t i = 0; i < bunny.size(); ++i) (*surface)[i] = bunny[i];
  return surface;
}

// n points on a few smooth surfaces (a sphere, a wavy sheet, a box's faces), seeded.
Cloud::Ptr largeCloud(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::normal_distribution<float> g;
  auto cloud = pcl::make_shared<Cloud>();
  cloud->reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 3 == 0) {
      float p[3] = {g(rng), g(rng), g(rng)};
      const float r = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) + 1e-12f;
      cloud->push_back(pcl::PointXYZ(p[0] / r, p[1] / r, p[2] / r));
    } else if (i % 3 == 1) {
      const float x = u(rng), y = u(rng);
      cloud->push_back(pcl::PointXYZ(3 + x, y, 0.2f * std::sin(3 * x) * std::cos(2 * y)));
    } else {
      float p[3] = {u(rng), u(rng), u(rng)};
      p[i % 7 % 3] = (i % 2) ? 1.f : -1.f;  // onto a face
      cloud->push_back(pcl::PointXYZ(p[0], p[1] + 3, p[2]));
    }
  }
  return cloud;
}

// The cloud with `share` of its points (spread through the order by a stride) moved onto one
// position, or within `jitter` of it (near-coincident), so that the count stays the same.
Cloud::Ptr withCoincident(const Cloud& cloud, double share, float jitter = 0.f) {
  auto out = pcl::make_shared<Cloud>(cloud);
  const std::size_t stacked = static_cast<std::size_t>(share * double(cloud.size()));
  if (stacked == 0) return out;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-jitter, jitter);
  const double stride = double(cloud.size()) / double(stacked);
  for (std::size_t s = 0; s < stacked; ++s) (*out)[std::size_t(s * stride)] = pcl::PointXYZ(u(rng), u(rng), u(rng));
  return out;
}

template <typename Configure>
double timeDise(int repeats, const Cloud::ConstPtr& input, Configure configure, Normals& out) {
  return medianSeconds(repeats, [&] {
    pcl::DeepIterativeNormalEstimation<pcl::PointXYZ, pcl::Normal> dise;
    dise.setKSearch(64);
    dise.setInputCloud(input);
    configure(dise);
    dise.compute(out);
  });
}

template <typename Configure>
void runPcl(const Cloud::ConstPtr& input, Configure configure) {
  pcl::NormalEstimation<pcl::PointXYZ, pcl::Normal> pca;
  pca.setKSearch(65);  // the same 65 points
  pca.setInputCloud(input);
  configure(pca);
  Normals out;
  pca.compute(out);
}

std::size_t finiteCount(const Normals& normals) {
  return static_cast<std::size_t>(
      std::count_if(normals.begin(), normals.end(), [](const pcl::Normal& n) { return std::isfinite(n.normal_x); }));
}

// One case timed side by side with PCL, the same configuration on both, against 3 times PCL. The
// two run in turns, so that a change in the machine's load falls on both alike.
template <typename Configure>
DropInRow sideBySide(const std::string& name, int repeats, const Cloud::ConstPtr& input, Configure configure) {
  Normals out;
  std::vector<double> pcl_seconds, dise_seconds;
  for (int r = 0; r < repeats; ++r) {
    pcl_seconds.push_back(secondsOf([&] { runPcl(input, configure); }));
    dise_seconds.push_back(timeDise(1, input, configure, out));
  }
  DropInRow row;
  row.name = name;
  row.pcl_seconds = median(pcl_seconds);
  row.dise_seconds = median(dise_seconds);
  row.reference_seconds = row.pcl_seconds;
  row.target = 3;
  row.with_normal = finiteCount(out);
  row.outputs = out.size();
  return row;
}

}  // namespace

std::vector<DropInRow> runDropInCases(const DropInOptions& options) {
  auto bunny = pcl::make_shared<Cloud>();
  if (pcl::io::loadPCDFile(options.bunny_path, *bunny) != 0)
    throw std::runtime_error("cannot read " + options.bunny_path);
  auto wanted = [&](const std::string& group) {
    return ("," + options.cases + ",").find("," + group + ",") != std::string::npos;
  };
  std::vector<DropInRow> rows;
  Normals out;
  for (bool zeros : {true, false}) {
    if (!wanted("surface")) break;
    const Cloud::ConstPtr surface = organizedSurface(*bunny, zeros);
    rows.push_back(sideBySide(std::string("397 points over 640x480 (") + (zeros ? "zeros padding" : "distinct") + ")",
                              options.repeats, bunny, [&](auto& e) { e.setSearchSurface(surface); }));
  }
  if (!wanted("indices") && !wanted("coincident")) return rows;
  const Cloud::ConstPtr cloud = largeCloud(options.large, 7);
  auto picked = pcl::make_shared<pcl::Indices>();
  for (std::size_t i = 0; i < 100; ++i) picked->push_back(static_cast<pcl::index_t>(i * (options.large / 100) + 13));
  if (wanted("indices"))
    rows.push_back(sideBySide("100 points of " + std::to_string(options.large) + " by setIndices", options.repeats,
                              cloud, [&](auto& e) { e.setIndices(picked); }));
  if (!wanted("coincident")) return rows;
  const double distinct = timeDise(
      1, cloud, [](auto&) {}, out);
  rows.push_back(DropInRow{std::to_string(options.large) + " distinct points", NAN, distinct, distinct, NAN,
                           finiteCount(out), out.size()});
  for (const auto& [share, jitter] :
       {std::pair<double, float>{0.01, 0.f}, {0.10, 0.f}, {0.90, 0.f}, {0.10, 1e-5f}, {0.90, 1e-5f}}) {
    const Cloud::ConstPtr stacked = withCoincident(*cloud, share, jitter);
    DropInRow row;
    row.name = std::to_string(options.large) + " points, " + std::to_string(int(std::lround(share * 100))) + "% " +
               (jitter > 0 ? "within 1e-5" : "coincident");
    row.dise_seconds = timeDise(
        1, stacked, [](auto&) {}, out);
    row.reference_seconds = distinct;
    row.target = share > 0.05 ? 1.5 : NAN;
    row.with_normal = finiteCount(out);
    row.outputs = out.size();
    rows.push_back(row);
  }

  return rows;
}

int reportDropIn(const std::vector<DropInRow>& rows, int repeats, const std::string& json_path) {
  std::cout << "bench_drop_in (" << repeats << " repeats, median; k = 64, 4 iterations, native backend)\n";
  bool all = true;
  std::string json = "[\n";
  for (const DropInRow& r : rows) {
    std::printf("  %-44s  PCL %7.3f s  DISE %7.3f s  ratio %6.2f  target %4s  %s  (%zu of %zu with a normal)\n",
                r.name.c_str(), r.pcl_seconds, r.dise_seconds, r.dise_seconds / r.reference_seconds,
                std::isnan(r.target) ? "-" : (std::to_string(r.target).substr(0, 3)).c_str(),
                std::isnan(r.target) ? "    " : (r.passed() ? "pass" : "FAIL"), r.with_normal, r.outputs);
    all = all && r.passed();
    auto number = [](double v) { return std::isnan(v) ? std::string("null") : std::to_string(v); };
    json += "  {\"case\": \"" + r.name + "\", \"pcl_seconds\": " + number(r.pcl_seconds) +
            ", \"dise_seconds\": " + number(r.dise_seconds) +
            ", \"ratio\": " + number(r.dise_seconds / r.reference_seconds) + ", \"target\": " + number(r.target) +
            ", \"with_normal\": " + std::to_string(r.with_normal) + ", \"outputs\": " + std::to_string(r.outputs) +
            "}" + (&r == &rows.back() ? "\n" : ",\n");
  }
  json += "]\n";
  if (!json_path.empty()) std::ofstream(json_path) << json;
  std::cout << "bench_drop_in: " << (all ? "every target met" : "a target missed") << "\n";
  return all ? 0 : 1;
}

}  // namespace bench
}  // namespace pcl_dise
