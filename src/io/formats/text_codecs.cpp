// Text: .xyz (points "x y z", more columns allowed; written "x y z nx ny nz curvature") and
// .normals (PCPNet's "nx ny nz", an output only), numbers written as the shortest text that reads
// back to the same double or float.
#include <cctype>
#include <charconv>
#include <cstdlib>

#include "../file_access.h"
#include "codec_support.h"
#include "codecs.h"
#include "pcl_dise/io/text_io.h"

namespace pcl_dise {
namespace io {
namespace formats {
namespace {

// Whitespace-separated numbers, the same count on every non-blank line ('#' starts a comment):
// x y z, then columns named nx ny nz and curvature where there are 6 or 7, column_3, ... otherwise.
PointTable readTextColumns(const std::string& path) {
  const std::string bytes = detail::readWholeFile(path);
  PointTable table;
  std::vector<double> row;
  std::size_t columns = 0, line = 1, at = 0;
  std::vector<std::vector<double>> extra;
  while (at < bytes.size()) {
    row.clear();
    while (at < bytes.size() && bytes[at] != '\n') {
      if (bytes[at] == '#') {
        while (at < bytes.size() && bytes[at] != '\n') ++at;
        break;
      }
      if (std::isspace(static_cast<unsigned char>(bytes[at]))) {
        ++at;
        continue;
      }
      const std::size_t start = at;
      while (at < bytes.size() && !std::isspace(static_cast<unsigned char>(bytes[at]))) ++at;
      const std::string token = bytes.substr(start, at - start);
      char* end = nullptr;
      const double v = std::strtod(token.c_str(), &end);
      if (end == token.c_str() || *end != '\0')
        detail::fail(path, "line " + std::to_string(line) + ": '" + token + "' is not a number");
      row.push_back(v);
    }
    ++at;
    if (!row.empty()) {
      if (columns == 0) {
        if (row.size() < 3) detail::fail(path, "line " + std::to_string(line) + ": fewer than 3 values");
        columns = row.size();
        extra.resize(columns - 3);
      }
      if (row.size() != columns)
        detail::fail(path, "line " + std::to_string(line) + ": " + std::to_string(row.size()) + " values, expected " +
                               std::to_string(columns));
      table.xyz.push_back({row[0], row[1], row[2]});
      for (std::size_t c = 3; c < columns; ++c) extra[c - 3].push_back(row[c]);
    }
    ++line;
  }
  static const char* const normal_names[] = {"nx", "ny", "nz", "curvature"};
  for (std::size_t c = 0; c < extra.size(); ++c) {
    const bool named = columns == 6 || columns == 7;
    table.fields.push_back({named ? normal_names[c] : "column_" + std::to_string(c + 3), "f8", std::move(extra[c])});
  }
  return table;
}

class TextSource : public PointSource {
 public:
  explicit TextSource(const std::string& path) : path_(path), rows_(std::make_unique<TextTripleStream>(path)) {}
  std::size_t read(std::size_t max_points, std::vector<std::array<double, 3>>& xyz) override {
    std::size_t got = 0;
    std::array<double, 3> row;
    while (got < max_points && rows_->next(row)) xyz.push_back(row), ++got;
    return got;
  }
  void restart() override { rows_ = std::make_unique<TextTripleStream>(path_); }
  std::uint64_t countPoints() override {
    restart();
    std::uint64_t count = 0;
    std::array<double, 3> row;
    while (rows_->next(row)) ++count;
    restart();
    return count;
  }
  CloudLayout layout() const override { return {}; }

 private:
  std::string path_;
  std::unique_ptr<TextTripleStream> rows_;
};

// Lines of numbers: with_points "x y z nx ny nz curvature", else "nx ny nz".
class TextEncoder : public BufferedEncoder {
 public:
  TextEncoder(std::ostream& out, bool with_points) : BufferedEncoder(out), with_points_(with_points) {}
  void add(const std::array<double, 3>& xyz, const float* normal, float curvature, const float*) override {
    char line[7 * 32];
    char* end = line;
    auto put = [&](auto value, char after) {
      end = std::to_chars(end, line + sizeof line, value).ptr;
      *end++ = after;
    };
    if (with_points_)
      for (int c = 0; c < 3; ++c) put(xyz[c], ' ');
    put(normal[0], ' ');
    put(normal[1], ' ');
    if (with_points_) {
      put(normal[2], ' ');
      put(curvature, '\n');
    } else {
      put(normal[2], '\n');
    }
    pending_.append(line, end - line);
    flushWhenFull();
  }

 private:
  bool with_points_;
};

class XyzCodec : public FormatCodec {
 public:
  FormatTraits traits() const override { return kXyzTraits; }
  PointTable read(const std::string& path, bool all_fields) const override {
    if (!all_fields) return unorganizedTable(readTextTriplesInDouble(path), {}, "xyz");
    PointTable columns = readTextColumns(path);
    return unorganizedTable(std::move(columns.xyz), std::move(columns.fields), "xyz");
  }
  std::unique_ptr<PointSource> openSource(const std::string& path) const override {
    return std::make_unique<TextSource>(path);
  }
  std::unique_ptr<NormalsEncoder> openEncoder(std::ostream& out, const std::string&,
                                              const NormalsFileLayout&) const override {
    return std::make_unique<TextEncoder>(out, true);
  }
};

class NormalsCodec : public FormatCodec {
 public:
  FormatTraits traits() const override { return kNormalsTraits; }
  PointTable read(const std::string& path, bool) const override { notPoints(path); }
  std::unique_ptr<PointSource> openSource(const std::string& path) const override { notPoints(path); }
  std::unique_ptr<NormalsEncoder> openEncoder(std::ostream& out, const std::string&,
                                              const NormalsFileLayout&) const override {
    return std::make_unique<TextEncoder>(out, false);
  }

 private:
  [[noreturn]] static void notPoints(const std::string& path) {
    detail::fail(path, "a .normals file holds normals, not points (readNormals reads it)");
  }
};

}  // namespace

const FormatCodec& xyzCodec() {
  static const XyzCodec codec;
  return codec;
}

const FormatCodec& normalsCodec() {
  static const NormalsCodec codec;
  return codec;
}

}  // namespace formats
}  // namespace io
}  // namespace pcl_dise
