#pragma once
// What the format codecs share: a source of fixed-size binary records after a header, and an
// encoder that gathers records and writes them a megabyte at a time.
#include <array>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "pcl_dise/io/file_format.h"

namespace pcl_dise {
namespace io {
namespace formats {

/** The first bytes of a file (at most 64 KiB: headers longer than that are not streamed) and its size. */
struct FileHead {
  std::string bytes;
  std::uint64_t file_size = 0;
};

/** A table of points in no grid (its width their count) read as `format`. */
PointTable unorganizedTable(std::vector<std::array<double, 3>> xyz, std::vector<PointField> fields, const char* format);

/** Reads `path`'s head. Throws std::runtime_error where it cannot be opened or read. */
FileHead readHead(const std::string& path);

/** Where a binary file's records lie and how a record's coordinates are read. */
struct RecordLayout {
  std::uint64_t data_at = 0;                                 ///< the first record's byte
  std::uint64_t record_size = 0;                             ///< bytes per record
  std::uint64_t count = 0;                                   ///< records
  std::function<std::array<double, 3>(const char*)> decode;  ///< a record's x y z
  CloudLayout cloud;                                         ///< the header's layout
};

/** Fixed-size binary records after a header (binary PCD, binary PLY, LAS). */
class BinaryRecordSource : public PointSource {
 public:
  /** Throws std::runtime_error where the header promises more records than the file's
   *  `file_size` bytes hold. */
  BinaryRecordSource(const std::string& path, std::uint64_t file_size, RecordLayout records);
  std::size_t read(std::size_t max_points, std::vector<std::array<double, 3>>& xyz) override;
  void restart() override;
  std::uint64_t countPoints() override { return records_.count; }
  CloudLayout layout() const override { return records_.cloud; }

 private:
  std::string path_;
  std::ifstream in_;
  RecordLayout records_;
  std::uint64_t next_ = 0;
  std::string buffer_;
};

/** An encoder whose records gather in memory and reach the stream a megabyte at a time; a
 *  format's encoder appends its header and records to `pending_`. */
class BufferedEncoder : public NormalsEncoder {
 public:
  explicit BufferedEncoder(std::ostream& out) : out_(out) {}
  void finish() override { writePending(); }

 protected:
  /** Writes the pending records once they reach a megabyte. */
  void flushWhenFull() {
    if (pending_.size() >= kPendingBytes) writePending();
  }
  std::string pending_;

 private:
  static constexpr std::size_t kPendingBytes = 1 << 20;
  void writePending() {
    out_.write(pending_.data(), static_cast<std::streamsize>(pending_.size()));
    pending_.clear();
  }
  std::ostream& out_;
};

/** Binary records x y z (float, or double with NormalsFileLayout::double_coordinates), normal_x
 *  normal_y normal_z curvature (float) and the layout's values (float), after a header: binary PCD
 *  and PLY. */
class BinaryNormalsEncoder : public BufferedEncoder {
 public:
  BinaryNormalsEncoder(std::ostream& out, const std::string& header, const NormalsFileLayout& layout);
  void add(const std::array<double, 3>& xyz, const float* normal, float curvature, const float* values) override;

 private:
  bool double_coordinates_;
  std::size_t values_;
};

}  // namespace formats
}  // namespace io
}  // namespace pcl_dise
