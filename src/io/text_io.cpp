#include "pcl_dise/io/text_io.h"
#include "file_access.h"
#include "pcl_dise/core/errors.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include <omp.h>

namespace pcl_dise {
namespace io {
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

// The values of one line [p, line_end): 0 for a blank line, else the count (or it throws). The
// first three go to row. `columns`: what every line must hold; 0 to take the first non-blank
// line's count, which must be 3 or more (points: the columns after x y z are not read), -3 for
// exactly 3.
struct LineError {
  std::string problem;
};

template <typename Real>
int parseLine(const char* p, const char* line_end, std::array<Real, 3>& row, int& columns) {
  auto fail = [](const std::string& problem) { throw LineError{problem}; };
  const int expected = columns < 0 ? -columns : columns;
  int count = 0;
  while (true) {
    while (p < line_end && isBlank(*p)) ++p;
    if (p == line_end) break;
    const char* token_end = p;
    while (token_end < line_end && !isBlank(*token_end)) ++token_end;
    if (expected > 0 && count == expected) fail("more than " + std::to_string(expected) + " values");
    Real value;
    if (!parseNumber(p, token_end, value)) fail("'" + std::string(p, token_end) + "' is not a number");
    if (count < 3) row[count] = value;
    ++count;
    p = token_end;
  }
  if (count == 0) return 0;
  if (expected == 0) {
    if (count < 3) fail(std::to_string(count) + " values, expected 3 or more");
    columns = count;
  } else if (count != expected) {
    fail(std::to_string(count) + " values, expected " + std::to_string(expected));
  }
  return count;
}

// The rows of a whole file, parsed in OpenMP threads: the text is cut at line ends into one
// piece per thread; an error names the line it is on in the whole file.
template <typename Real>
std::vector<std::array<Real, 3>> readTriples(const std::string& path, bool exactly_three) {
  const std::string text = detail::readWholeFile(path);
  const int pieces = text.size() < (1u << 20) ? 1 : std::max(1, omp_get_max_threads());
  std::vector<std::size_t> starts(pieces + 1, text.size());
  starts[0] = 0;
  for (int i = 1; i < pieces; ++i) {
    std::size_t at = std::max(starts[i - 1], text.size() * i / pieces);
    while (at < text.size() && text[at - 1] != '\n') ++at;
    starts[i] = at;
  }
  std::vector<std::vector<std::array<Real, 3>>> rows(pieces);
  std::vector<int> columns(pieces, exactly_three ? -3 : 0);
  std::vector<std::size_t> failed_line(pieces, 0);     // within the piece, 1-based; 0: no error
  std::vector<std::size_t> first_row_line(pieces, 0);  // within the piece: the row that set its columns
  std::vector<std::string> problem(pieces);
#pragma omp parallel for num_threads(pieces) schedule(static, 1)
  for (int i = 0; i < pieces; ++i) {
    const char* p = text.data() + starts[i];
    const char* const end = text.data() + starts[i + 1];
    rows[i].reserve((end - p) / 24 + 1);
    for (std::size_t number = 1; p < end; ++number) {
      const char* line_end = static_cast<const char*>(std::memchr(p, '\n', end - p));
      if (!line_end) line_end = end;
      std::array<Real, 3> row{};
      try {
        if (parseLine(p, line_end, row, columns[i]) > 0) {
          if (rows[i].empty()) first_row_line[i] = number;
          rows[i].push_back(row);
        }
      } catch (const LineError& e) {
        failed_line[i] = number;
        problem[i] = e.problem;
        break;
      }
      p = line_end + 1;
    }
  }
  // Line numbers in the whole file: each piece's lines after the lines of the pieces before it.
  std::size_t lines_before = 0;
  int first_columns = 0;
  for (int i = 0; i < pieces; ++i) {
    if (failed_line[i] > 0)
      throw FileError("'" + path + "': line " + std::to_string(lines_before + failed_line[i]) + ": " + problem[i]);
    if (!rows[i].empty()) {
      if (first_columns == 0) first_columns = columns[i];
      if (columns[i] != first_columns)  // the piece's first row has another count
        throw FileError("'" + path + "': line " + std::to_string(lines_before + first_row_line[i]) + ": " +
                        std::to_string(std::abs(columns[i])) + " values, expected " +
                        std::to_string(std::abs(first_columns)));
    }
    lines_before += std::count(text.data() + starts[i], text.data() + starts[i + 1], '\n');
  }
  std::size_t total = 0;
  for (const auto& r : rows) total += r.size();
  std::vector<std::array<Real, 3>> all;
  all.reserve(total);
  for (auto& r : rows) all.insert(all.end(), r.begin(), r.end());
  return all;
}

}  // namespace

std::vector<std::array<float, 3>> readTextTriples(const std::string& path) { return readTriples<float>(path, true); }

std::vector<std::array<double, 3>> readTextTriplesInDouble(const std::string& path) {
  return readTriples<double>(path, false);
}

TextTripleStream::TextTripleStream(const std::string& path) : in_(path, std::ios::binary), path_(path) {
  if (!in_) throw FileError("'" + path + "': cannot be opened");
}

bool TextTripleStream::next(std::array<double, 3>& row) {
  while (std::getline(in_, line_)) {
    ++line_number_;
    try {
      if (parseLine(line_.data(), line_.data() + line_.size(), row, columns_) > 0) return true;
    } catch (const LineError& e) {
      throw FileError("'" + path_ + "': line " + std::to_string(line_number_) + ": " + e.problem);
    }
  }
  if (in_.bad()) throw FileError("'" + path_ + "': cannot be read");
  return false;
}

}  // namespace io
}  // namespace pcl_dise
