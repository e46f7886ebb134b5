#include "pcl_dise/text_io.h"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace pcl_dise {
namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// A number as strtof / strtod reads it. std::from_chars (no locale, several times faster) reads
// almost every token; the rest (a leading '+', hexadecimal, values beyond the type's range) go to
// strtof / strtod.
template <typename Real>
bool parseNumber(const char* first, const char* last, Real& value) {
  const auto [end, error] = std::from_chars(first, last, value);
  if (error == std::errc() && end == last) return true;
  const std::string token(first, last);
  char* token_end = nullptr;
  if constexpr (std::is_same_v<Real, float>)
    value = std::strtof(token.c_str(), &token_end);
  else
    value = std::strtod(token.c_str(), &token_end);
  return token_end != token.c_str() && *token_end == '\0';
}

template <typename Real>
std::vector<std::array<Real, 3>> readTriples(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("'" + path + "': cannot be opened");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  auto fail = [&](std::size_t line, const std::string& problem) {
    throw std::runtime_error("'" + path + "': line " + std::to_string(line) + ": " + problem);
  };
  std::vector<std::array<Real, 3>> rows;
  const char* p = text.data();
  const char* const end = p + text.size();
  for (std::size_t number = 1; p < end; ++number) {
    const char* line_end = p;
    while (line_end < end && *line_end != '\n') ++line_end;
    std::array<Real, 3> row{};
    int count = 0;
    while (true) {
      while (p < line_end && isBlank(*p)) ++p;
      if (p == line_end) break;
      const char* token_end = p;
      while (token_end < line_end && !isBlank(*token_end)) ++token_end;
      if (count == 3) fail(number, "more than 3 values");
      if (!parseNumber(p, token_end, row[count++])) fail(number, "'" + std::string(p, token_end) + "' is not a number");
      p = token_end;
    }
    if (count > 0 && count != 3) fail(number, std::to_string(count) + " values, expected 3");
    if (count == 3) rows.push_back(row);
    p = line_end + 1;
  }
  return rows;
}

}  // namespace

std::vector<std::array<float, 3>> readTextTriples(const std::string& path) { return readTriples<float>(path); }

std::vector<std::array<double, 3>> readTextTriplesInDouble(const std::string& path) {
  return readTriples<double>(path);
}

}  // namespace pcl_dise
