#pragma once
// A tool's summary as JSON (--report FILE.json): the facts it prints (inputs, settings, model,
// counts, timings, peak memory) for pipelines to read.
#include <string>

#include <nlohmann/json.hpp>

namespace pcl_dise {
namespace tools {

/** The process's peak resident memory so far, in MB (getrusage). */
double peakMemoryMb();

/** Fills `report` with "tool", "version" and "peak_memory_mb" and writes it to `path` (nothing
 *  where `path` is empty). Throws std::runtime_error where the file cannot be written. */
void writeRunReport(const std::string& path, const std::string& tool, nlohmann::json report);

}  // namespace tools
}  // namespace pcl_dise
