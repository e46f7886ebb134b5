// PCD: PCL's format, read whole in every DATA kind and field type (pcd_reader.h), streamed where
// binary, written binary with the viewpoint and an organized layout kept.
#include <sstream>

#include "../file_access.h"
#include "codec_support.h"
#include "codecs.h"
#include "pcl_dise/io/pcd_reader.h"

namespace pcl_dise {
namespace io {
namespace formats {
namespace {

std::string pcdHeader(const NormalsFileLayout& layout) {
  const char* size = layout.double_coordinates ? "8" : "4";
  std::ostringstream h;
  h.precision(17);
  std::string names, sizes, types, counts;
  for (const PointValue value : layout.values) {
    names += std::string(" ") + namesOf(value).field;
    sizes += " 4", types += " F", counts += " 1";
  }
  h << "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\n"
    << "FIELDS x y z normal_x normal_y normal_z curvature" << names << "\nSIZE " << size << ' ' << size << ' ' << size
    << " 4 4 4 4" << sizes << "\nTYPE F F F F F F F" << types << "\nCOUNT 1 1 1 1 1 1 1" << counts << "\n"
    << "WIDTH " << (layout.width ? std::uint64_t(layout.width) : layout.points) << "\nHEIGHT "
    << (layout.width ? layout.height : 1) << "\nVIEWPOINT";
  for (double v : layout.viewpoint) h << ' ' << v;
  h << "\nPOINTS " << layout.points << "\nDATA binary\n";
  return h.str();
}

class PcdCodec : public FormatCodec {
 public:
  FormatTraits traits() const override { return kPcdTraits; }

  PointTable read(const std::string& path, bool all_fields) const override {
    PcdCloud pcd = readPcd(path, all_fields);
    PointTable table;
    table.xyz = std::move(pcd.xyz);
    table.fields = std::move(pcd.fields);
    table.width = pcd.width;
    table.height = pcd.height;
    table.viewpoint = pcd.viewpoint;
    table.format = "pcd";
    return table;
  }

  std::unique_ptr<PointSource> openSource(const std::string& path) const override {
    const FileHead head = readHead(path);
    const PcdHeader h = parsePcdHeader(head.bytes, path);
    if (h.data != "binary")
      detail::fail(path, "PCD data '" + h.data +
                             "' cannot be read piece by piece; convert it to binary (pcl_convert_pcd_ascii_binary "
                             "in.pcd out.pcd 1) or leave out --max-memory");
    RecordLayout records;
    records.cloud.width = h.height > 1 ? h.width : 0;
    records.cloud.height = h.height;
    records.cloud.viewpoint = h.viewpoint;
    records.data_at = h.data_at;
    records.record_size = h.point_size;
    records.count = h.points();
    const PcdField fields[3] = {h.fields[h.xyz[0]], h.fields[h.xyz[1]], h.fields[h.xyz[2]]};
    records.decode = [fields](const char* record) {
      return std::array<double, 3>{valueOf(fields[0], record + fields[0].offset),
                                   valueOf(fields[1], record + fields[1].offset),
                                   valueOf(fields[2], record + fields[2].offset)};
    };
    return std::make_unique<BinaryRecordSource>(path, head.file_size, std::move(records));
  }

  std::unique_ptr<NormalsEncoder> openEncoder(std::ostream& out, const std::string&,
                                              const NormalsFileLayout& layout) const override {
    return std::make_unique<BinaryNormalsEncoder>(out, pcdHeader(layout), layout);
  }
};

}  // namespace

const FormatCodec& pcdCodec() {
  static const PcdCodec codec;
  return codec;
}

}  // namespace formats
}  // namespace io
}  // namespace pcl_dise
