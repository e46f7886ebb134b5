#include "pcl_dise/jobs/normals_file.h"

#include <chrono>
#include <cmath>
#include <limits>

#include "pcl_dise/core/model.h"
#include "pcl_dise/io/cloud_io.h"
#include "pcl_dise/io/file_format.h"
#include "pcl_dise/io/point_stream.h"

namespace pcl_dise {
namespace jobs {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// One normal per point of a cloud of `points`: those of `at_indices` (one per index) at their
// indices, none (NaN) elsewhere.
pcl::PointCloud<pcl::Normal> normalsAtIndices(const pcl::PointCloud<pcl::Normal>& at_indices,
                                              const pcl::Indices& indices, std::size_t points) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  pcl::PointCloud<pcl::Normal> all(static_cast<std::uint32_t>(points), 1, pcl::Normal(nan, nan, nan, nan));
  for (std::size_t r = 0; r < indices.size(); ++r) all[indices[r]] = at_indices[r];
  return all;
}

// The calibration the job's error bounds come from: empty where none are asked for.
ErrorCalibration errorCalibrationFor(const NormalsFileJob& job, const Model& model, const std::string& model_path) {
  if (!job.error_bound) return {};
  const std::string unavailable = errorBoundUnavailable(job.settings.iterations, &model, model_path);
  if (!unavailable.empty()) throw OptionsError(unavailable);
  return errorCalibrationOf(model);
}

// A backend this build or machine lacks, refused before a byte is read, in memory and in tiles alike
// (for a device, its context starts here).
void refuseUnavailableBackend(const NormalSettings& settings) {
  if (settings.iterations == 0) return;
  const std::string unavailable = backendUnavailableMessage(settings.backend);
  if (!unavailable.empty()) throw OptionsError(unavailable);
}

void tell(const ProgressCallback& progress, double done, const char* stage) {
  if (progress && !progress({done, stage, 0, 0})) throw Cancelled();
}

NormalsFileReport inMemory(const NormalsFileJob& job) {
  const auto start = Clock::now();
  NormalsFileReport report;
  NormalPipeline pipeline(job.settings);
  report.model_path = pipeline.modelPath();
  // A device's context starts here, before the timed estimation (cuda::deviceAvailable).
  refuseUnavailableBackend(job.settings);
  if (job.error_bound) {  // before reading: a model without a calibration is refused here
    const std::shared_ptr<const Model> model = pipeline.estimator().getModel();
    if (!model) throw std::runtime_error("cannot read the model '" + report.model_path + "' (see the message above)");
    errorCalibrationFor(job, *model, report.model_path);
  }
  report.startup_seconds = secondsSince(start);
  tell(job.progress, 0.0, "reading");
  const auto read_start = Clock::now();
  const io::LocalCloud local = io::readCloud(job.input);
  const auto& cloud = local.cloud;
  if (cloud->empty()) throw std::runtime_error("'" + job.input + "' holds no points");
  pcl::IndicesPtr indices;
  if (!job.indices.empty()) {
    for (std::int64_t i : job.indices)
      if (i < 0 || static_cast<std::uint64_t>(i) >= cloud->size())
        throw OptionsError("index " + std::to_string(i) + " is not a point of '" + job.input + "' (" +
                           std::to_string(cloud->size()) + " points)");
    indices.reset(new pcl::Indices(job.indices.begin(), job.indices.end()));
  }
  report.points = cloud->size();
  report.indices = job.indices.size();
  report.offset = local.offset;
  report.reading_seconds = secondsSince(read_start);

  pipeline.setProgressCallback(job.progress);
  pipeline.estimator().setStoreKernelWeights(false);  // not written: not kept (nor copied back from a GPU)
  pcl::PointCloud<pcl::Normal> normals;
  const auto compute_start = Clock::now();
  tell(job.progress, 0.0, "search");
  report.outcome = pipeline.compute(cloud, normals, local.offset, indices);
  if (report.outcome.cancelled) {
    report.cancelled = true;
    return report;
  }
  report.estimation_seconds = secondsSince(compute_start);
  tell(job.progress, 1.0, "writing");
  const auto write_start = Clock::now();
  if (indices) normals = normalsAtIndices(normals, *indices, cloud->size());
  report.without_normal =
      indices ? cloud->size() - indices->size() + report.outcome.without_normal : report.outcome.without_normal;
  std::vector<io::PointValueColumn> values;
  if (!indices) values.push_back({io::PointValue::kOrientationConfidence, report.outcome.confidence});
  if (job.error_bound) {
    io::PointValueColumn& bounds = values.emplace_back(io::PointValueColumn{io::PointValue::kErrorBound, {}});
    pipeline.estimator().computeErrorBounds(normals, bounds.data);
  }
  io::writeNormals(job.output, local, normals, values);
  report.writing_seconds = secondsSince(write_start);
  report.total_seconds = secondsSince(start);
  return report;
}

NormalsFileReport inTiles(const NormalsFileJob& job, Collective& processes) {
  const auto start = Clock::now();
  if (!job.indices.empty()) throw OptionsError("indices need the cloud in memory (it runs in tiles here)");
  OutOfCoreOptions options = outOfCoreOptions(job.settings);
  if (job.tile_points > 0) options.forward.tile_points = job.tile_points;
  options.memory_budget_mb = job.max_memory_mb;
  options.scratch_folder = job.scratch;
  options.progress = job.progress;
  NormalsFileReport report;
  report.in_tiles = true;
  refuseUnavailableBackend(job.settings);  // before reading, as in memory
  report.model_path = job.settings.iterations > 0 ? job.settings.modelPath() : "";
  const Model model = job.settings.iterations > 0 ? loadModel(report.model_path) : Model();
  options.error_bound = errorCalibrationFor(job, model, report.model_path);
  report.startup_seconds = secondsSince(start);
  try {
    report.tiles = estimateNormalsOutOfCore(model, job.input, job.output, options, processes);
  } catch (const Cancelled&) {
    report.cancelled = true;
    return report;
  }
  report.points = report.tiles.points;
  report.without_normal = report.tiles.missing;
  report.offset = report.tiles.offset;
  report.total_seconds = secondsSince(start);
  return report;
}

}  // namespace

Orientation defaultOrientationFor(const std::string& input, bool viewpoint_given) {
  if (viewpoint_given) return Orientation::kViewpoint;
  for (const io::FormatCodec* codec : io::fileFormats()) {
    const io::FormatTraits t = codec->traits();
    if (t.read && io::extension(input) == t.extension)
      return t.surveyed_from_above ? Orientation::kUp : Orientation::kViewpoint;
  }
  return Orientation::kViewpoint;
}

bool runsInTiles(const NormalsFileJob& job) {
  if (job.always_tiles || job.tile_points > 0) return true;
  if (job.max_memory_mb <= 0) return false;
  io::PointStream stream(job.input);
  const NormalSettings& s = job.settings;
  const std::size_t neighbors = s.radius > 0 ? std::max(s.max_neighbors, 64) : s.neighbors() + 1;
  return double(stream.countPoints()) * bytesPerPointInMemory(neighbors) >= job.max_memory_mb * 1e6;
}

void checkJob(const NormalsFileJob& job) {
  if (!(job.max_memory_mb >= 0) || !std::isfinite(job.max_memory_mb))
    throw OptionsError("max_memory must be a number of MB, 0 or more (0: in memory)");
  if (job.error_bound) {
    const std::string unavailable = errorBoundUnavailable(job.settings.iterations, nullptr, "");
    if (!unavailable.empty()) throw OptionsError(unavailable);
  }
  if (job.error_bound && !io::outputFormat(job.output).traits().point_values)
    throw OptionsError(
        "'" + job.output + "' cannot hold the error bound (write " +
        io::formatExtensionsWhere([](const io::FormatTraits& t) { return t.written && t.point_values; }) + ")");
  job.settings.validate();
}

NormalsFileReport estimateNormalsFile(const NormalsFileJob& job, Collective& processes) {
  checkJob(job);
  return runsInTiles(job) ? inTiles(job, processes) : inMemory(job);
}

}  // namespace jobs
}  // namespace pcl_dise
