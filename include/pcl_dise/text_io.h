#pragma once
// Text files of three numbers per line: PCPNet's .xyz / .normals and our .normals output.
#include <array>
#include <string>
#include <vector>

namespace pcl_dise {

/** Reads rows of exactly three whitespace-separated numbers ("nan" allowed); blank lines are
 *  skipped. Throws std::runtime_error naming the file and line for anything else. */
std::vector<std::array<float, 3>> readTextTriples(const std::string& path);
/** The same in double: coordinates that must keep their precision (georeferenced clouds). */
std::vector<std::array<double, 3>> readTextTriplesInDouble(const std::string& path);

}  // namespace pcl_dise
