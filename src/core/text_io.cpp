#include "pcl_dise/core/text_io.h"
#include "file_access.h"

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

// The values of one line [p, line_end): 0 for a blank line, else exactly 3 (or it throws).
template <typename Real>
int parseLine(const char* p, const char* line_end, std::array<Real, 3>& row, const std::string& path,
              std::size_t number) {
  auto fail = [&](const std::string& problem) {
    throw std::runtime_error("'" + path + "': line " + std::to_string(number) + ": " + problem);
  };
  int count = 0;
  while (true) {
    while (p < line_end && isBlank(*p)) ++p;
    if (p == line_end) break;
    const char* token_end = p;
    while (token_end < line_end && !isBlank(*token_end)) ++token_end;
    if (count == 3) fail("more than 3 values");
    if (!parseNumber(p, token_end, row[count++])) fail("'" + std::string(p, token_end) + "' is not a number");
    p = token_end;
  }
  if (count > 0 && count != 3) fail(std::to_string(count) + " values, expected 3");
  return count;
}

template <typename Real>
std::vector<std::array<Real, 3>> readTriples(const std::string& path) {
  const std::string text = detail::readWholeFile(path);
  std::vector<std::array<Real, 3>> rows;
  const char* p = text.data();
  const char* const end = p + text.size();
  for (std::size_t number = 1; p < end; ++number) {
    const char* line_end = p;
    while (line_end < end && *line_end != '\n') ++line_end;
    std::array<Real, 3> row{};
    if (parseLine(p, line_end, row, path, number) == 3) rows.push_back(row);
    p = line_end + 1;
  }
  return rows;
}

}  // namespace

std::vector<std::array<float, 3>> readTextTriples(const std::string& path) { return readTriples<float>(path); }

std::vector<std::array<double, 3>> readTextTriplesInDouble(const std::string& path) {
  return readTriples<double>(path);
}

TextTripleStream::TextTripleStream(const std::string& path) : in_(path, std::ios::binary), path_(path) {
  if (!in_) throw std::runtime_error("'" + path + "': cannot be opened");
}

bool TextTripleStream::next(std::array<double, 3>& row) {
  while (std::getline(in_, line_)) {
    if (parseLine(line_.data(), line_.data() + line_.size(), row, path_, ++line_number_) == 3) return true;
  }
  if (in_.bad()) throw std::runtime_error("'" + path_ + "': cannot be read");
  return false;
}

}  // namespace pcl_dise
