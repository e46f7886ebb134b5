// PLY: read whole in ASCII and both binary byte orders (ply_reader.h), streamed where binary and
// the vertex element comes first, written binary little-endian.
#include <sstream>

#include "../file_access.h"
#include "codec_support.h"
#include "codecs.h"
#include "pcl_dise/io/ply_reader.h"

namespace pcl_dise {
namespace io {
namespace formats {
namespace {

std::string plyHeader(const NormalsFileLayout& layout) {
  const char* type = layout.double_coordinates ? "double" : "float";
  std::ostringstream h;
  h << "ply\nformat binary_little_endian 1.0\ncomment pcl_dise dise_normals\nelement vertex " << layout.points
    << "\nproperty " << type << " x\nproperty " << type << " y\nproperty " << type << " z\n"
    << "property float normal_x\nproperty float normal_y\nproperty float normal_z\nproperty float curvature\n";
  for (const PointValue value : layout.values) h << "property float " << namesOf(value).field << "\n";
  h << "end_header\n";
  return h.str();
}

class PlyCodec : public FormatCodec {
 public:
  FormatTraits traits() const override { return kPlyTraits; }

  PointTable read(const std::string& path, bool all_fields) const override {
    PlyData ply = readPly(path, all_fields);
    return unorganizedTable(std::move(ply.vertices), std::move(ply.vertex_fields), "ply");
  }

  std::unique_ptr<PointSource> openSource(const std::string& path) const override {
    const FileHead head = readHead(path);
    const PlyHeader h = parsePlyHeader(head.bytes, path);
    if (h.format == "ascii")
      detail::fail(path, "ASCII PLY cannot be read piece by piece; write it as binary or leave out --max-memory");
    if (h.elements.empty() || h.elements[0].name != "vertex")
      detail::fail(path, "its first element is not 'vertex'; such a PLY file cannot be read piece by piece");
    struct Coordinate {
      PlyScalar scalar;
      std::size_t at = 0;
    } xyz[3];
    int found = 0;
    RecordLayout records;
    for (const PlyProperty& p : h.elements[0].properties) {
      if (!p.count_type.empty())
        detail::fail(path, "its vertices have a list property ('" + p.name +
                               "'); such a PLY file cannot be read piece by piece");
      for (int c = 0; c < 3; ++c)
        if (p.name == std::string(1, "xyz"[c])) xyz[c] = {p.scalar, records.record_size}, ++found;
      records.record_size += p.scalar.size;
    }
    if (found < 3) detail::fail(path, "its vertices have no x, y and z");
    records.data_at = h.data_at;
    records.count = h.elements[0].count;
    const bool swap = h.format == "binary_big_endian";
    records.decode = [xyz, swap](const char* record) {
      return std::array<double, 3>{plyValue(xyz[0].scalar, record + xyz[0].at, swap),
                                   plyValue(xyz[1].scalar, record + xyz[1].at, swap),
                                   plyValue(xyz[2].scalar, record + xyz[2].at, swap)};
    };
    return std::make_unique<BinaryRecordSource>(path, head.file_size, std::move(records));
  }

  std::unique_ptr<NormalsEncoder> openEncoder(std::ostream& out, const std::string&,
                                              const NormalsFileLayout& layout) const override {
    return std::make_unique<BinaryNormalsEncoder>(out, plyHeader(layout), layout);
  }
};

}  // namespace

const FormatCodec& plyCodec() {
  static const PlyCodec codec;
  return codec;
}

}  // namespace formats
}  // namespace io
}  // namespace pcl_dise
