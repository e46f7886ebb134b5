#pragma once
// LAZ (LAS compressed by LASzip) of our own, written from the published LAZ format: Debian 12 has
// neither LASzip nor laz-perf. Reads point formats 0-3 (LASzip's pointwise items) and 6-8 (its
// layered items, scanner channels included), fixed and variable chunks through the chunk table,
// COPC files as the LAZ they are; writes the same formats in chunks of 50,000 points with a chunk
// table. Chunks are decoded and encoded in parallel threads. Waveform formats (4, 5, 9, 10) and
// LASzip's old version-1 items are refused with a message that names them. Plain C++, no PCL.
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "pcl_dise/io/las_format.h"

namespace pcl_dise {
namespace io {

/** Whether `path` names a LAZ file by its extension (.laz, any case). */
bool isLazPath(const std::string& path);

/** The points of a LAZ file as LAS point records, chunk by chunk, in file order. */
class LazReader {
 public:
  /** Opens the LAZ file `path` and reads its header, laszip VLR and chunk table; the chunks are
   *  read from the file as they are needed. Throws std::runtime_error naming `path` and what is
   *  wrong: not LAZ, an unsupported compressor or item, a chunk table missing or pointing outside
   *  the file, chunk counts that do not add up to the header's. */
  explicit LazReader(const std::string& path);
  /** The same over the whole file's `bytes`, held by the caller for the reader's lifetime. */
  LazReader(const std::string& bytes, const std::string& path);
  ~LazReader();

  /** The header as the uncompressed file has it (point format without the compression bits;
   *  `point_data`: where the chunks start). */
  const LasHeader& header() const;
  /** Decodes up to `max_points` further records (header().record_length bytes each), appended to
   *  `records`; returns how many (0: the end). Throws std::runtime_error naming the file where a
   *  chunk is truncated or corrupt. */
  std::size_t read(std::size_t max_points, std::string& records);
  /** Back to the first point. */
  void restart();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/** The LAS file `bytes` (LAZ) holds, uncompressed: the header and VLRs as they are (the point
 *  format without its compression bits), then every point record. EVLRs are not copied. */
std::string decompressLaz(const std::string& bytes, const std::string& path);

/** Compresses LAS point records into an output stream as LAZ chunks of `chunk_size` points,
 *  `threads` chunks at a time. The caller writes the header with `vlr()` among its VLRs. */
class LazChunkWriter {
 public:
  /** Records of `point_format` (0-3, 6-8) and `record_length` bytes. Throws std::runtime_error
   *  naming `path` for a format LAZ output does not support (waveforms). */
  LazChunkWriter(std::ostream& out, const std::string& path, int point_format, std::uint16_t record_length,
                 std::uint32_t chunk_size = 50000);
  ~LazChunkWriter();
  /** The laszip VLR (its 54-byte header and payload) that describes the chunks. */
  std::string vlr() const;
  /** Writes the chunk table's place at the stream's position: call where the point data start. */
  void begin();
  /** The next record (record_length bytes). */
  void add(const char* record);
  /** Writes the last chunk and the chunk table; the stream then stands after the table. */
  void finish();

 private:
  void flush();
  std::ostream& out_;
  std::string path_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace io
}  // namespace pcl_dise
