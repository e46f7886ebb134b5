// LAS and LAZ: read whole with every dimension (las_format.h, laz_format.h), streamed (LAZ a few
// chunks decoded at a time, in threads), written as LAS 1.4 with the normal as extra bytes, a LAS
// or LAZ input's records, header and VLRs kept.
#include <limits>

#include "../file_access.h"
#include "codec_support.h"
#include "codecs.h"
#include "pcl_dise/io/las_format.h"
#include "pcl_dise/io/laz_format.h"

namespace pcl_dise {
namespace io {
namespace formats {
namespace {

// LAZ records, decoded chunk by chunk.
class LazSource : public PointSource {
 public:
  explicit LazSource(const std::string& path) : path_(path), reader_(path), header_(reader_.header()) {}

  std::size_t read(std::size_t max_points, std::vector<std::array<double, 3>>& xyz) override {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(max_points, header_.count - next_));
    buffer_.clear();
    if (reader_.read(n, buffer_) != n)
      detail::fail(path_, "ends early, at point " + std::to_string(next_) + " of " + std::to_string(header_.count));
    for (std::size_t i = 0; i < n; ++i)
      xyz.push_back(lasCoordinates(header_, buffer_.data() + i * header_.record_length));
    next_ += n;
    return n;
  }
  void restart() override {
    reader_.restart();
    next_ = 0;
  }
  std::uint64_t countPoints() override { return header_.count; }
  CloudLayout layout() const override { return {}; }

 private:
  std::string path_;
  LazReader reader_;
  LasHeader header_;
  std::uint64_t next_ = 0;
  std::string buffer_;
};

class LasEncoder : public NormalsEncoder {
 public:
  LasEncoder(std::ostream& out, const std::string& path, const NormalsFileLayout& layout) {
    if (!layout.las_source.empty()) {
      writer_ = std::make_unique<LasWriter>(out, path, layout.las_source, layout.las_source_bytes, layout.values);
    } else {
      if (layout.las_scale[0] == 0) detail::fail(path, "LAS output needs a scale and offset");
      writer_ = std::make_unique<LasWriter>(out, path, layout.las_scale, layout.las_offset, layout.values);
    }
  }
  void add(const std::array<double, 3>& xyz, const float* normal, float curvature, const float* values) override {
    writer_->add(xyz, {normal[0], normal[1], normal[2], curvature}, values);
  }
  void finish() override { writer_->finish(); }

 private:
  std::unique_ptr<LasWriter> writer_;
};

// LAS (compressed: LAZ); the two differ in their extension and how their records are read.
class LasCodec : public FormatCodec {
 public:
  explicit LasCodec(bool compressed) : compressed_(compressed) {}

  FormatTraits traits() const override { return compressed_ ? kLazTraits : kLasTraits; }

  PointTable read(const std::string& path, bool all_fields) const override {
    LasCloud las = readLas(path, all_fields);
    PointTable table = unorganizedTable(std::move(las.xyz), std::move(las.fields), "las");
    table.decoded = std::move(las.decoded);
    return table;
  }

  std::unique_ptr<PointSource> openSource(const std::string& path) const override {
    if (compressed_) return std::make_unique<LazSource>(path);
    const FileHead head = readHead(path);
    const LasHeader h = parseLasHeader(head.bytes, path, head.file_size);
    RecordLayout records;
    records.data_at = h.point_data;
    records.record_size = h.record_length;
    records.count = h.count;
    records.decode = [h](const char* record) { return lasCoordinates(h, record); };
    return std::make_unique<BinaryRecordSource>(path, head.file_size, std::move(records));
  }

  std::unique_ptr<NormalsEncoder> openEncoder(std::ostream& out, const std::string& path,
                                              const NormalsFileLayout& layout) const override {
    return std::make_unique<LasEncoder>(out, path, layout);
  }

 private:
  bool compressed_;
};

}  // namespace

const FormatCodec& lasCodec() {
  static const LasCodec codec(false);
  return codec;
}

const FormatCodec& lazCodec() {
  static const LasCodec codec(true);
  return codec;
}

}  // namespace formats
}  // namespace io
}  // namespace pcl_dise
