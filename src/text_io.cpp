#include "pcl_dise/text_io.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace pcl_dise {

std::vector<std::array<float, 3>> readTextTriples(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("'" + path + "': cannot be opened");
  auto fail = [&](std::size_t line, const std::string& problem) {
    throw std::runtime_error("'" + path + "': line " + std::to_string(line) + ": " + problem);
  };
  std::vector<std::array<float, 3>> rows;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    std::array<float, 3> row{};
    std::string token;
    int count = 0;
    while (fields >> token) {
      if (count == 3) fail(number, "more than 3 values");
      char* end = nullptr;
      row[count++] = std::strtof(token.c_str(), &end);
      if (end == token.c_str() || *end != '\0') fail(number, "'" + token + "' is not a number");
    }
    if (count != 3) fail(number, std::to_string(count) + " values, expected 3");
    rows.push_back(row);
  }
  return rows;
}

}  // namespace pcl_dise
