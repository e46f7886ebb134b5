// The native part of the Python module pcl_dise (_native): NumPy arrays in, the library's
// estimation, orientation and file functions, NumPy arrays out. The package (pcl_dise/__init__.py)
// checks arguments and shapes; this file releases the GIL while the library computes and turns
// Ctrl-C and the progress callback's exceptions into Cancelled (core/progress.h).
#include <cmath>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "pcl_dise/core/error_bound.h"
#include "pcl_dise/core/errors.h"
#include "pcl_dise/core/model.h"
#include "pcl_dise/core/normal_settings.h"
#include "pcl_dise/core/progress.h"
#include "pcl_dise/core/setting_declarations.h"
#include "pcl_dise/feature/consistent_normal_orientation.h"
#include "pcl_dise/feature/normal_pipeline.h"
#include "pcl_dise/io/file_format.h"
#include "pcl_dise/io/las_format.h"
#include "pcl_dise/io/local_frame.h"
#include "pcl_dise/io/normals_writer.h"
#include "pcl_dise/io/point_table.h"
#include "pcl_dise/jobs/normals_file.h"
#include "pcl_dise/jobs/out_of_core_normals.h"

namespace py = pybind11;

namespace {

template <typename T>
using Rows = py::array_t<T, py::array::c_style>;

// The library's progress callback for a call from Python: Ctrl-C (checked at every report) and
// an exception from the user's callback stop the job; the Python error is raised once the
// library has returned.
class PythonProgress {
 public:
  explicit PythonProgress(py::object callback) : callback_(std::move(callback)) {}

  pcl_dise::ProgressCallback function() {
    return [this](const pcl_dise::Progress& progress) {
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) {
        error_ = std::make_shared<py::error_already_set>();
        return false;
      }
      if (callback_.is_none()) return true;
      try {
        callback_(progress.done);
      } catch (py::error_already_set& e) {
        error_ = std::make_shared<py::error_already_set>(std::move(e));
        return false;
      }
      return true;
    };
  }

  /// Raises the stored Python error (the GIL held), or KeyboardInterrupt where none was stored.
  [[noreturn]] void raise() {
    if (error_) throw *error_;
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  bool failed() const { return error_ != nullptr; }

 private:
  py::object callback_;
  std::shared_ptr<py::error_already_set> error_;
};

template <typename T>
std::array<double, 3> offsetOf(const T* xyz, std::size_t n) {
  pcl_dise::io::FiniteBounds bounds;
  for (std::size_t i = 0; i < n; ++i) bounds.add({double(xyz[3 * i]), double(xyz[3 * i + 1]), double(xyz[3 * i + 2])});
  return pcl_dise::io::localOffset(bounds.lo, bounds.hi);
}

// A point as the library computes with it: float(p - offset), the offset by local_frame.h's rule
// (the rule dise_normals applies to a file's coordinates). p: 3 values; local: 3 floats.
template <typename T>
void toLocal(const T* p, const std::array<double, 3>& offset, float* local) {
  for (int c = 0; c < 3; ++c) local[c] = static_cast<float>(double(p[c]) - offset[c]);
}

// The points as the feature reads them (toLocal); `offset` is set.
template <typename T>
pcl::PointCloud<pcl::PointXYZ>::Ptr localCloud(const T* xyz, std::size_t n, std::array<double, 3>& offset) {
  offset = offsetOf(xyz, n);
  auto cloud = pcl::make_shared<pcl::PointCloud<pcl::PointXYZ>>();
  cloud->points.resize(n);
  bool dense = true;
#pragma omp parallel for reduction(&& : dense)
  for (std::size_t i = 0; i < n; ++i) {
    pcl::PointXYZ& p = cloud->points[i];
    toLocal(xyz + 3 * i, offset, p.data);
    dense = dense && std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
  }
  cloud->width = static_cast<std::uint32_t>(n);
  cloud->height = 1;
  cloud->is_dense = dense;
  return cloud;
}

py::array_t<float> rowsOf(const std::vector<float>& values, std::size_t columns) {
  py::array_t<float> out(columns == 1
                             ? std::vector<py::ssize_t>{py::ssize_t(values.size())}
                             : std::vector<py::ssize_t>{py::ssize_t(values.size() / columns), py::ssize_t(columns)});
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

// One estimation: the library's NormalPipeline (the settings validated and the model loaded
// once), with what Python asks for besides: every iteration's normals, kernel weights.
class Estimator {
 public:
  Estimator(const pcl_dise::NormalSettings& settings, bool store_iterations)
      : pipeline_(settings), store_iterations_(store_iterations) {}

  const std::string& modelPath() const { return pipeline_.modelPath(); }

  template <typename T>
  py::dict compute(Rows<T> points, py::object progress, std::optional<std::vector<std::int64_t>> weights_of,
                   std::optional<std::vector<std::int64_t>> indices) {
    const std::size_t cloud_size = static_cast<std::size_t>(points.shape(0));
    pcl::IndicesPtr wanted;
    if (indices) {
      wanted = pcl::make_shared<pcl::Indices>();
      for (const std::int64_t i : *indices) {
        if (i < 0 || static_cast<std::size_t>(i) >= cloud_size)
          throw py::value_error("indices must lie in [0, " + std::to_string(cloud_size) + ")");
        wanted->push_back(static_cast<pcl::index_t>(i));
      }
    }
    const std::size_t n = wanted ? wanted->size() : cloud_size;  // one row per point asked for
    PythonProgress python_progress(std::move(progress));
    pcl::PointCloud<pcl::Normal> normals;
    std::vector<std::vector<float>> iterations;
    std::vector<float> confidence, error_bound;
    std::array<double, 3> offset{};
    bool ok = true, cancelled = false, bounded = false;
    std::exception_ptr error;
    std::vector<std::pair<pcl::Indices, std::vector<float>>> kernel(weights_of ? weights_of->size() : 0);
    py::array_t<float> normals_out({py::ssize_t(n), py::ssize_t(3)});
    py::array_t<float> curvature_out{std::vector<py::ssize_t>{py::ssize_t(n)}};
    float* const normals_data = normals_out.mutable_data();
    float* const curvature_data = curvature_out.mutable_data();
    {
      py::gil_scoped_release release;
      try {
        const pcl_dise::NormalSettings& settings = pipeline_.settings();
        const auto cloud = localCloud(points.data(), cloud_size, offset);
        const std::array<double, 3> viewpoint = settings.viewpoint.value_or(std::array<double, 3>{0, 0, 0});
        cloud->sensor_origin_ =
            Eigen::Vector4f(static_cast<float>(viewpoint[0] - offset[0]), static_cast<float>(viewpoint[1] - offset[1]),
                            static_cast<float>(viewpoint[2] - offset[2]), 0.f);
        Feature& dise = pipeline_.estimator();
        dise.setStoreIterations(store_iterations_);
        dise.setStoreKernelWeights(weights_of.has_value());
        pipeline_.setProgressCallback(python_progress.function());
        const pcl_dise::NormalsOutcome outcome = pipeline_.compute(cloud, normals, offset, wanted);
        confidence = outcome.confidence;
        cancelled = outcome.cancelled;
        ok = !cancelled;
        if (ok && store_iterations_)
          for (int it = 0; it <= settings.iterations; ++it) {
            pcl::PointCloud<pcl::Normal> stored;
            dise.getIterationNormals(it, stored);
            std::vector<float> rows(3 * n);
            for (std::size_t i = 0; i < n; ++i)
              for (int c = 0; c < 3; ++c) rows[3 * i + c] = stored[i].normal[c];
            iterations.push_back(std::move(rows));
          }
        if (ok) bounded = dise.computeErrorBounds(normals, error_bound);
        if (ok && weights_of)
          for (std::size_t w = 0; w < weights_of->size(); ++w)
            dise.getKernelWeights(static_cast<std::size_t>((*weights_of)[w]), kernel[w].first, kernel[w].second);
        if (ok) {
#pragma omp parallel for
          for (std::size_t i = 0; i < n; ++i) {
            for (int c = 0; c < 3; ++c) normals_data[3 * i + c] = normals[i].normal[c];
            curvature_data[i] = normals[i].curvature;
          }
        }
      } catch (...) {  // rethrown with the GIL held, its type kept (FileError: OSError)
        ok = false;
        error = std::current_exception();
      }
    }
    if (cancelled || python_progress.failed()) python_progress.raise();
    if (error) std::rethrow_exception(error);
    if (!ok) throw std::runtime_error("normal estimation failed (see the message above)");
    py::dict result;
    result["normals"] = normals_out;
    result["curvature"] = curvature_out;
    result["offset"] = offset;
    py::list per_iteration;
    for (const auto& it : iterations) per_iteration.append(rowsOf(it, 3));
    result["iterations"] = per_iteration;
    py::list kernel_weights;
    for (auto& [indices, values] : kernel) {
      std::vector<std::int64_t> ids(indices.begin(), indices.end());
      kernel_weights.append(py::make_tuple(py::array_t<std::int64_t>(ids.size(), ids.data()), rowsOf(values, 1)));
    }
    result["kernel_weights"] = kernel_weights;
    result["confidence"] = confidence.empty() ? py::object(py::none()) : py::object(rowsOf(confidence, 1));
    result["error_bound"] = bounded ? py::object(rowsOf(error_bound, 1)) : py::object(py::none());
    return result;
  }

 private:
  using Feature = pcl_dise::NormalPipeline::Estimator;
  pcl_dise::NormalPipeline pipeline_;
  bool store_iterations_;
};

template <typename T>
py::dict orient(Rows<T> points, py::array_t<float, py::array::c_style> normals, int k,
                std::optional<std::array<double, 3>> viewpoint, std::int64_t seed, bool closed, int threads) {
  const std::size_t n = static_cast<std::size_t>(points.shape(0));
  std::vector<float> out(normals.data(), normals.data() + 3 * n), confidence(n);
  pcl_dise::OrientationReport report;
  {
    py::gil_scoped_release release;
    const std::array<double, 3> offset = offsetOf(points.data(), n);
    std::vector<float> xyz(3 * n);
#pragma omp parallel for
    for (std::size_t i = 0; i < n; ++i) toLocal(points.data() + 3 * i, offset, &xyz[3 * i]);
    pcl_dise::OrientationOptions options;
    options.neighbors = k;
    options.seed_index = seed;
    options.closed = closed;
    options.threads = threads;
    if (viewpoint) {
      options.has_viewpoint = true;
      for (int c = 0; c < 3; ++c) options.viewpoint[c] = static_cast<float>((*viewpoint)[c] - offset[c]);
    }
    report = pcl_dise::orientNormals(xyz.data(), out.data(), n, options, confidence.data());
  }
  py::dict result;
  result["normals"] = rowsOf(out, 3);
  result["confidence"] = rowsOf(confidence, 1);
  py::dict r;
  r["oriented"] = report.oriented;
  r["without_normal"] = report.without_normal;
  r["flipped"] = report.flipped;
  r["parts"] = report.parts;
  r["outside_grid"] = report.outside_grid;
  r["grid_cell"] = report.grid_cell;
  r["undecided"] = report.undecided;
  r["parity_checked"] = report.parity_checked;
  r["parity_flipped"] = report.parity_flipped;
  r["winding_flipped"] = report.winding_flipped;
  r["wall_middles"] = report.wall_middles;
  r["low_confidence"] = report.low_confidence;
  result["report"] = r;
  return result;
}

py::dict readCloud(const std::string& path) {
  pcl_dise::io::PointTable table;
  {
    py::gil_scoped_release release;
    table = pcl_dise::io::readPointTable(path);
  }
  py::array_t<double> xyz({py::ssize_t(table.xyz.size()), py::ssize_t(3)});
  if (!table.xyz.empty()) std::copy_n(&table.xyz[0][0], 3 * table.xyz.size(), xyz.mutable_data());
  py::dict fields;
  for (const auto& f : table.fields) {
    py::array_t<double> values(f.values.size(), f.values.data());
    fields[py::str(f.name)] = py::make_tuple(f.type, values);
  }
  py::dict result;
  result["points"] = xyz;
  result["fields"] = fields;
  result["width"] = table.width;
  result["height"] = table.height;
  result["viewpoint"] = table.viewpoint;
  result["format"] = table.format;
  return result;
}

// `layout`: what the source gave (the viewpoint, an organized layout, a LAS source); the count,
// the coordinates' type and a new LAS file's quantisation are the points'.
void writeCloud(const std::string& path, Rows<double> points, Rows<float> normals, Rows<float> curvature,
                pcl_dise::io::NormalsFileLayout layout) {
  py::gil_scoped_release release;
  const std::size_t n = static_cast<std::size_t>(points.shape(0));
  layout.points = n;
  if (layout.height <= 1) layout.width = 0, layout.height = 1;
  std::vector<std::array<double, 3>> xyz(n);
  if (n > 0) std::copy_n(points.data(), 3 * n, &xyz[0][0]);
  layout.double_coordinates = offsetOf(points.data(), n) != std::array<double, 3>{0, 0, 0};
  if (layout.las_source.empty()) pcl_dise::io::chooseQuantization(xyz, layout.las_scale, layout.las_offset);
  pcl_dise::io::NormalsWriter writer(path, layout);
  for (std::size_t i = 0; i < n; ++i) writer.add(xyz[i], normals.data() + 3 * i, curvature.data()[i]);
  writer.finish();
}

py::dict estimateFile(const std::string& input, const std::string& output, const pcl_dise::NormalSettings& settings,
                      double max_memory_mb, std::size_t tile_points, const std::string& scratch, py::object progress,
                      bool error_bound) {
  PythonProgress python_progress(std::move(progress));
  pcl_dise::jobs::NormalsFileReport report;
  std::exception_ptr error;
  {
    py::gil_scoped_release release;
    try {
      const pcl_dise::jobs::NormalsFileJob job{
          input,      output, settings, max_memory_mb, tile_points, false, scratch, {}, python_progress.function(),
          error_bound};
      pcl_dise::jobs::Collective one_process;
      report = pcl_dise::jobs::estimateNormalsFile(job, one_process);
    } catch (...) {  // rethrown with the GIL held, its type kept (FileError: OSError)
      error = std::current_exception();
    }
  }
  if (report.cancelled || python_progress.failed()) python_progress.raise();
  if (error) std::rethrow_exception(error);
  py::dict r;
  r["points"] = report.points;
  r["missing"] = report.without_normal;
  r["offset"] = report.offset;
  r["tiles"] = report.in_tiles ? report.tiles.tiles.tiles : 0;
  r["tile_points"] = report.tiles.tile_points;
  return r;
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "The native part of pcl_dise: use the functions of the package pcl_dise.";
  // A file's problem is an OSError in Python, whatever its message says.
  py::register_exception<pcl_dise::FileError>(m, "FileError", PyExc_OSError);
  // A bad setting is a ValueError, as Python's own argument checks raise.
  py::register_exception<pcl_dise::OptionsError>(m, "OptionsError", PyExc_ValueError);
  // pcl_dise::NormalSettings, set and read by the declared names (core/setting_declarations.h).
  py::class_<pcl_dise::NormalSettings>(m, "NormalSettings")
      .def(py::init<>())
      .def("set", [](pcl_dise::NormalSettings& s, const std::string& name,
                     const std::string& text) { pcl_dise::settingDeclaration(name).read(s, text); })
      .def("get", [](const pcl_dise::NormalSettings& s,
                     const std::string& name) { return pcl_dise::settingDeclaration(name).show(s); })
      .def("default_orientation_for",
           [](pcl_dise::NormalSettings& s, const std::string& path) {
             s.orientation = pcl_dise::jobs::defaultOrientationFor(path, s.viewpoint.has_value());
           })
      .def("validate", [](const pcl_dise::NormalSettings& s) { s.validate(false); });
  m.def("setting_declarations", [] {
    static const char* const kKinds[] = {"integer", "number", "path", "name", "point"};
    py::list declarations;
    for (const pcl_dise::SettingDeclaration& d : pcl_dise::settingDeclarations()) {
      py::dict entry;
      entry["name"] = d.name;
      entry["ros_name"] = d.ros_name;
      entry["cpp_setter"] = d.cpp_setter;
      entry["flag"] = pcl_dise::commandLineFlag(d);
      entry["kind"] = kKinds[static_cast<int>(d.kind)];
      entry["choices"] = d.choices;
      entry["help"] = d.help;
      entry["default"] = pcl_dise::defaultText(d);
      entry["unset_by_default"] = d.unset_by_default;
      entry["default_from_input"] = d.default_from_input;
      entry["in_memory"] = (d.surfaces & pcl_dise::kInMemorySurface) != 0;
      entry["file"] = (d.surfaces & pcl_dise::kFileSurface) != 0;
      entry["ros"] = (d.surfaces & pcl_dise::kRosSurface) != 0;
      declarations.append(entry);
    }
    return declarations;
  });
  py::class_<Estimator>(m, "Estimator")
      .def(py::init<const pcl_dise::NormalSettings&, bool>(), py::arg("settings"), py::arg("store_iterations"))
      .def_property_readonly("model_path", &Estimator::modelPath)
      .def("compute", &Estimator::compute<float>, py::arg("points"), py::arg("progress"), py::arg("weights_of"),
           py::arg("indices"))
      .def("compute", &Estimator::compute<double>, py::arg("points"), py::arg("progress"), py::arg("weights_of"),
           py::arg("indices"));
  m.def("orient", &orient<float>);
  m.def("orient", &orient<double>);
  m.def("read_cloud", &readCloud);
  py::class_<pcl_dise::io::NormalsFileLayout>(m, "NormalsFileLayout")
      .def(py::init<>())
      .def_readwrite("width", &pcl_dise::io::NormalsFileLayout::width)
      .def_readwrite("height", &pcl_dise::io::NormalsFileLayout::height)
      .def_readwrite("viewpoint", &pcl_dise::io::NormalsFileLayout::viewpoint)
      .def_readwrite("las_source", &pcl_dise::io::NormalsFileLayout::las_source);
  m.def("write_cloud", &writeCloud);
  m.def("estimate_file", &estimateFile);
  m.def("backend_available",
        [](const std::string& name) { return pcl_dise::backendAvailable(pcl_dise::backendFromString(name)); });
  m.def("backend_unavailable_message",
        [](const std::string& name) { return pcl_dise::backendUnavailableMessage(pcl_dise::backendFromString(name)); });
  m.def(
      "native_instruction_set",
      [](const std::string& precision) {
        return pcl_dise::nativeInstructionSet(pcl_dise::precisionFromString(precision));
      },
      py::arg("precision") = "float");
  m.def("bfloat16_available", &pcl_dise::bfloat16Available);
  m.def("keeps_records", [](const std::string& source, const std::string& output) {
    return pcl_dise::io::inputFormat(source).traits().keeps_records &&
           pcl_dise::io::outputFormat(output).traits().keeps_records;
  });
  m.def("default_model_path", [](int k) { return pcl_dise::defaultModelPath(k); });
  m.def(
      "calibrate_error_bound",
      [](const std::string& model_in, const std::string& model_out, const std::vector<double>& curvature,
         const std::vector<double>& errors, double level, std::size_t bins) {
        pcl_dise::Model model = pcl_dise::loadModel(model_in);
        const pcl_dise::ErrorCalibration calibration = pcl_dise::fitErrorCalibration(curvature, errors, level, bins);
        pcl_dise::setErrorCalibration(model, calibration);
        pcl_dise::saveModel(model, model_out);
        return calibration.toJson();
      },
      py::arg("model_in"), py::arg("model_out"), py::arg("curvature"), py::arg("errors"), py::arg("level") = 0.9,
      py::arg("bins") = 24);
}
