#include "pcl_dise/jobs/out_of_core_normals.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "pcl_dise/core/centroid_frame.h"
#include "pcl_dise/core/errors.h"
#include "pcl_dise/core/viewpoint.h"
#include "pcl_dise/io/disk_tiled_cloud.h"
#include "pcl_dise/io/las_format.h"
#include "pcl_dise/io/local_frame.h"
#include "pcl_dise/io/normals_writer.h"
#include "pcl_dise/io/point_stream.h"

namespace pcl_dise {
namespace jobs {
using namespace io;
namespace {

constexpr std::size_t kChunk = 1 << 16;  // points read at a time
// What a run holds besides its tiles: the program, the model, read and write buffers, the density
// histogram (measured: about 40 MB; with room).
constexpr double kFixedBytes = 64e6;
// A tile loads its own points and a halo (at k = 64, L = 4 on a surface: 57% of a tile of 116,000
// points, 22% of one of 870,000): tiles get two thirds of the budget's loaded points, and a tile
// whose halo needs more runs in halves (runTiledForward).
constexpr double kHaloRoom = 1.5;

bool finite(const std::array<double, 3>& p) {
  return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]);
}

// Calls visit(index, xyz) for every point of the file, in order.
template <typename Visit>
void forEachPoint(PointStream& stream, Visit visit) {
  stream.restart();
  std::vector<std::array<double, 3>> chunk;
  std::uint64_t index = 0;
  for (;;) {
    chunk.clear();
    if (stream.read(kChunk, chunk) == 0) return;
    for (const auto& p : chunk) visit(index++, p);
  }
}

// Per finite point, its normal and curvature (4 floats), stored at its finite-point index in a
// scratch file that every rank writes its tiles' points into; a tile's points come in ascending
// order, runs of consecutive indices are written at once. Rank 0 makes it and removes it.
class ResultFile {
 public:
  ResultFile(const std::string& folder, Collective& processes) : owner_(processes.rank() == 0) {
    std::string path = folder + "/pcl_dise_results.XXXXXX";
    if (owner_) {
      const int fd = mkstemp(path.data());
      if (fd < 0) throw std::runtime_error("cannot make a scratch file in '" + folder + "': " + std::strerror(errno));
      close(fd);
    }
    path_ = processes.broadcast(path);
    fd_ = open(path_.c_str(), O_RDWR);
    if (fd_ < 0) throw std::runtime_error("cannot open the scratch file '" + path_ + "': " + std::strerror(errno));
  }
  ~ResultFile() {
    close(fd_);
    if (owner_) std::remove(path_.c_str());
  }
  void put(std::uint64_t index, const float* normal, float curvature) {
    if (!run_.empty() && index != first_ + run_.size() / 4) flush();
    if (run_.empty()) first_ = index;
    run_.insert(run_.end(), normal, normal + 3);
    run_.push_back(curvature);
    if (run_.size() >= 4 * kChunk) flush();
  }
  void flush() {
    const std::size_t bytes = run_.size() * sizeof(float);
    if (bytes && pwrite(fd_, run_.data(), bytes, static_cast<off_t>(first_ * 4 * sizeof(float))) != ssize_t(bytes))
      throw std::runtime_error("cannot write the scratch file '" + path_ + "' (is the disk full?)");
    run_.clear();
  }
  // Reads the results of finite points [first, first + count) into out (4 floats each).
  void get(std::uint64_t first, std::size_t count, std::vector<float>& out) const {
    out.resize(4 * count);
    const std::size_t bytes = out.size() * sizeof(float);
    if (pread(fd_, out.data(), bytes, static_cast<off_t>(first * 4 * sizeof(float))) != ssize_t(bytes))
      throw std::runtime_error("cannot read the scratch file '" + path_ + "'");
  }

 private:
  bool owner_;
  int fd_ = -1;
  std::string path_;
  std::uint64_t first_ = 0;
  std::vector<float> run_;
};

// The frame of the in-memory path: the offset (local_frame.h) and the centroid the feature
// centres on (centroid_frame.h).
struct Frame {
  std::uint64_t points = 0, finite_points = 0;
  FiniteBounds bounds;  // in the file's coordinates
  std::array<double, 3> offset{0, 0, 0}, centroid{0, 0, 0};
  Box centred_bounds;
  std::array<float, 3> local(const std::array<double, 3>& p) const { return localPoint(p, offset); }
  std::array<float, 3> centred(const std::array<float, 3>& local) const { return centredOn(local.data(), centroid); }
};

Frame measureFrame(PointStream& stream) {
  Frame frame;
  forEachPoint(stream, [&](std::uint64_t, const std::array<double, 3>& p) {
    ++frame.points;
    if (!finite(p)) return;
    frame.bounds.add(p);
    ++frame.finite_points;
  });
  frame.offset = localOffset(frame.bounds.lo, frame.bounds.hi);
  FloatCentroid centroid;
  std::array<float, 3> local_lo{}, local_hi{};
  forEachPoint(stream, [&](std::uint64_t, const std::array<double, 3>& p) {
    if (!finite(p)) return;
    const std::array<float, 3> q = frame.local(p);
    for (int c = 0; c < 3; ++c) {
      local_lo[c] = centroid.count() ? std::min(local_lo[c], q[c]) : q[c];
      local_hi[c] = centroid.count() ? std::max(local_hi[c], q[c]) : q[c];
    }
    centroid.add(q.data());
  });
  if (centroid.count() != frame.finite_points) throw std::runtime_error("the input changed while it was read");
  frame.centroid = centroid.centroid();
  // float(x - c) grows with x: the centred bounds are the bounds' images.
  const std::array<float, 3> lo = frame.centred(local_lo), hi = frame.centred(local_hi);
  for (int c = 0; c < 3; ++c) frame.centred_bounds.lo[c] = lo[c], frame.centred_bounds.hi[c] = hi[c];
  return frame;
}

}  // namespace

double bytesPerLoadedPoint(std::size_t neighbors) { return 200.0 + 12.0 * double(neighbors); }
double bytesPerPointInMemory(std::size_t neighbors) { return 400.0 + 12.0 * double(neighbors); }

std::string needsCloudInMemory(const NormalSettings& settings) {
  if (settings.settle_degrees > 0) return "settle (adaptive mode) needs the cloud in memory";
  if (orientsWholeCloud(settings.orientation))
    return std::string("orient ") + orientationName(settings.orientation) +
           " orients the whole cloud at once and needs it in memory";
  return {};
}

OutOfCoreOptions outOfCoreOptions(const NormalSettings& settings) {
  settings.validate(false);
  const std::string in_memory = needsCloudInMemory(settings);
  if (!in_memory.empty()) throw OptionsError(in_memory);
  OutOfCoreOptions options;
  TiledForwardOptions& f = options.forward;
  f.neighbors = static_cast<std::size_t>(settings.neighbors()) + 1;  // the point itself too
  f.radius = static_cast<float>(settings.radius);
  f.max_neighbors = static_cast<std::size_t>(settings.max_neighbors);
  f.iterations = settings.iterations;
  f.threads = static_cast<int>(settings.threads);
  f.precision = settings.precision;
  options.has_viewpoint = settings.viewpoint.has_value();
  if (settings.viewpoint) options.viewpoint = *settings.viewpoint;
  options.sign = normalSignOf(settings.orientation);
  options.backend = settings.backend;
  return options;
}

OutOfCoreReport estimateNormalsOutOfCore(const Model& model, const std::string& input, const std::string& output,
                                         const OutOfCoreOptions& options, Collective& processes) {
  // Before a byte is read: a backend this build or machine lacks would fail on the first tile.
  if (options.forward.iterations > 0) {
    const std::string unavailable = backendUnavailableMessage(options.backend);
    if (!unavailable.empty()) throw std::runtime_error(unavailable);
  }
  OutOfCoreReport report;
  auto tell = [&](double share, const char* stage, std::uint64_t step = 0, std::uint64_t steps = 0) {
    if (options.progress && !options.progress({share, stage, step, steps})) throw Cancelled();
  };
  tell(0.0, "reading");
  PointStream stream(input);
  const Frame frame = measureFrame(stream);
  tell(0.1, "reading");
  report.points = frame.points;
  report.offset = frame.offset;
  if (frame.points == 0) throw FileError("'" + input + "' holds no points");

  TiledForwardOptions forward = options.forward;
  const std::size_t neighbors =
      forward.radius > 0 ? std::max<std::size_t>(forward.max_neighbors, 64) : forward.neighbors;
  if (options.memory_budget_mb > 0) {
    const double for_tiles = options.memory_budget_mb * 1e6 - kFixedBytes;
    const double loaded = for_tiles / bytesPerLoadedPoint(neighbors);
    if (loaded < 1000)
      throw std::runtime_error("--max-memory " + std::to_string(options.memory_budget_mb) +
                               " MB is too small: the fixed part alone needs about " +
                               std::to_string(int(kFixedBytes / 1e6)) + " MB, and a tile with its halo more");
    forward.max_load = static_cast<std::size_t>(loaded);
    forward.tile_points = std::min(forward.tile_points, static_cast<std::size_t>(loaded / kHaloRoom));
  }
  report.tile_points = forward.tile_points;

  const std::string scratch = !options.scratch_folder.empty()
                                  ? options.scratch_folder
                                  : std::filesystem::absolute(std::filesystem::path(output)).parent_path().string();
  DensityHistogram histogram(frame.centred_bounds);
  forEachPoint(stream, [&](std::uint64_t, const std::array<double, 3>& p) {
    if (finite(p)) histogram.add(frame.centred(frame.local(p)).data());
  });
  tell(0.15, "tiling");
  TiledCloudOnDisk cloud(scratch, histogram.tiles(forward.tile_points));
  std::uint64_t finite_index = 0;
  forEachPoint(stream, [&](std::uint64_t, const std::array<double, 3>& p) {
    if (finite(p)) cloud.add(finite_index++, frame.centred(frame.local(p)).data());
  });
  cloud.finish();
  tell(0.2, "tiling");

  ResultFile results(scratch, processes);
  forward.part = processes.rank();
  forward.parts = processes.size();
  forward.share_terms = [&](ExactSum& terms) { processes.sum(terms); };
  forward.progress = progressPart(options.progress, 0.2, 0.9);
  report.tiles = runTiledForward(
      model, cloud, forward,
      [&](std::uint64_t global, const float* normal, float c) { results.put(global, normal, c); }, options.backend);
  results.flush();
  processes.barrier();  // every rank's results are in the file
  if (processes.rank() != 0) return report;

  // The viewpoint in the float frame, as the in-memory path flips towards it.
  std::array<double, 3> viewpoint = options.viewpoint;
  if (!options.has_viewpoint)
    for (int c = 0; c < 3; ++c) viewpoint[c] = stream.layout().viewpoint[c];
  const std::array<float, 3> vp = frame.local(viewpoint);

  NormalsFileLayout layout;
  layout.points = frame.points;
  layout.width = stream.layout().width;
  layout.height = stream.layout().height;
  layout.viewpoint = stream.layout().viewpoint;
  layout.double_coordinates = frame.offset[0] != 0 || frame.offset[1] != 0 || frame.offset[2] != 0;
  if (stream.traits().keeps_records)
    layout.las_source = input;  // a LAS output keeps its records, scale and offset
  else
    chooseQuantization(frame.bounds.lo.data(), frame.bounds.hi.data(), layout.las_scale, layout.las_offset);
  const bool bounded = !options.error_bound.empty();
  if (bounded) layout.values.push_back(PointValue::kErrorBound);
  NormalsWriter writer(output, layout);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float none[3] = {nan, nan, nan};
  std::vector<float> block;
  std::uint64_t block_first = 0, next_finite = 0;
  forEachPoint(stream, [&](std::uint64_t index, const std::array<double, 3>& p) {
    if (index % kChunk == 0) tell(0.9 + 0.1 * double(index) / double(frame.points), "writing", index, frame.points);
    if (!finite(p)) {
      ++report.missing;
      writer.add(p, none, nan);
      return;
    }
    if (next_finite >= block_first + block.size() / 4) {
      block_first = next_finite;
      results.get(block_first, std::min<std::uint64_t>(kChunk, frame.finite_points - block_first), block);
    }
    const float* r = block.data() + 4 * (next_finite++ - block_first);
    float normal[3] = {r[0], r[1], r[2]};
    if (!std::isfinite(normal[0])) {
      ++report.missing;
      writer.add(p, none, nan);
      return;
    }
    signNormal(options.sign, vp.data(), frame.local(p).data(), normal);
    const float bound = bounded ? normalErrorBound(options.error_bound, normal, r[3]) : 0.f;
    writer.add(p, normal, r[3], &bound);
  });
  writer.finish();
  tell(1.0, "writing", frame.points, frame.points);
  return report;
}

}  // namespace jobs
}  // namespace pcl_dise
