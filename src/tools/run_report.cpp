#include "run_report.h"
#include "pcl_dise/core/errors.h"

#include <fstream>
#include <stdexcept>

#include <sys/resource.h>

namespace pcl_dise {
namespace tools {

double peakMemoryMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // kilobytes on Linux
}

void writeRunReport(const std::string& path, const std::string& tool, nlohmann::json report) {
  if (path.empty()) return;
  report["tool"] = tool;
  report["version"] = PCL_DISE_VERSION;
  report["peak_memory_mb"] = peakMemoryMb();
  std::ofstream out(path);
  out << report.dump(2) << "\n";
  if (!out) throw FileError("'" + path + "': the report cannot be written");
}

}  // namespace tools
}  // namespace pcl_dise
