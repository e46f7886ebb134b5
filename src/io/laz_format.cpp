#include "pcl_dise/io/laz_format.h"
#include "file_access.h"
#include "formats/codecs.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <limits>
#include <stdexcept>

#include <omp.h>

#include "laz/arithmetic_coder.h"
#include "laz/bytes.h"
#include "laz/laz_chunk.h"
#include "pcl_dise/io/file_format.h"

namespace pcl_dise {
namespace io {
namespace {

using detail::fail;

constexpr std::size_t kHeaderSizeAt = 94, kVlrCountAt = 100, kPointFormatAt = 104, kVlrHeaderSize = 54;
constexpr std::uint16_t kLaszipRecordId = 22204;
constexpr std::size_t kLaszipVlrFixedSize = 34, kLaszipItemSize = 6;

using laz::append;

// The T stored `at` bytes into `bytes`.
template <typename T>
T readAt(const char* bytes, std::size_t at) {
  return laz::load<T>(bytes + at);
}

/** The chunks of a LAZ file: where each starts, its bytes and its points. */
struct Chunk {
  std::uint64_t start = 0, bytes = 0, points = 0;
};

// Runs `body(i)` for i in [0, n) in OpenMP threads; rethrows the first exception.
void inParallel(std::size_t n, const std::function<void(std::size_t)>& body) {
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t i = 0; i < n; ++i) {
    try {
      body(i);
    } catch (...) {
#pragma omp critical
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace

// The extension the format table gives LAZ (formats/codecs.h), not a second spelling of it.
bool isLazPath(const std::string& path) { return extension(path) == formats::kLazTraits.extension; }

struct LazReader::State {
  std::string path;
  const std::string* bytes = nullptr;  // the whole file, or
  std::ifstream in;                    // the file, read chunk by chunk
  std::uint64_t file_size = 0;
  LasHeader header;
  laz::Schema schema;
  std::vector<Chunk> chunks;
  std::size_t next_chunk = 0;
  std::string decoded;  // records decoded and not yet handed out
  std::size_t decoded_at = 0;

  // `n` bytes from byte `at`; fails where they are not in the file.
  std::string readBytes(std::uint64_t at, std::uint64_t n, const char* what) {
    if (at > file_size || n > file_size - at) fail(path, std::string(what) + " lies beyond the end of the file");
    if (bytes) return bytes->substr(static_cast<std::size_t>(at), static_cast<std::size_t>(n));
    std::string out(static_cast<std::size_t>(n), '\0');
    in.clear();
    in.seekg(static_cast<std::streamoff>(at));
    if (!in.read(&out[0], static_cast<std::streamsize>(n))) fail(path, std::string(what) + " cannot be read");
    return out;
  }

  void open(const std::string& head) {
    header = parseLasHeader(head, path, file_size);
    if (!header.compressed) fail(path, "is not LAZ (its point format has no compression bit)");
    readSchema(head);
    if (schema.recordLength() != header.record_length)
      fail(path, "its laszip VLR describes records of " + std::to_string(schema.recordLength()) +
                     " bytes, its header " + std::to_string(header.record_length));
    readChunkTable();
  }

  void readSchema(const std::string& head) {
    const auto header_size = readAt<std::uint16_t>(head.data(), kHeaderSizeAt);
    const auto vlr_count = readAt<std::uint32_t>(head.data(), kVlrCountAt);
    std::size_t at = header_size;
    for (std::uint32_t v = 0; v < vlr_count && at + kVlrHeaderSize <= header.point_data; ++v) {
      const auto length = readAt<std::uint16_t>(head.data(), at + 20);
      if (at + kVlrHeaderSize + length > head.size()) break;
      const std::string user(head.data() + at + 2, strnlen(head.data() + at + 2, 16));
      if (user == "laszip encoded" && readAt<std::uint16_t>(head.data(), at + 18) == kLaszipRecordId) {
        const char* p = head.data() + at + kVlrHeaderSize;
        if (length < kLaszipVlrFixedSize) fail(path, "its laszip VLR is too short");
        schema.compressor = readAt<std::uint16_t>(p, 0);
        if (readAt<std::uint16_t>(p, 2) != 0) fail(path, "unsupported LAZ: a coder other than arithmetic coding");
        schema.chunk_size = readAt<std::uint32_t>(p, 12);
        const auto items = readAt<std::uint16_t>(p, 32);
        if (kLaszipVlrFixedSize + items * kLaszipItemSize > length)
          fail(path, "its laszip VLR is too short for its items");
        for (std::uint16_t i = 0; i < items; ++i) {
          const char* item = p + kLaszipVlrFixedSize + i * kLaszipItemSize;
          schema.items.push_back(
              {readAt<std::uint16_t>(item, 0), readAt<std::uint16_t>(item, 2), readAt<std::uint16_t>(item, 4)});
        }
        try {
          laz::checkSchema(schema);
        } catch (const std::exception& e) {
          fail(path, e.what());
        }
        return;
      }
      at += kVlrHeaderSize + length;
    }
    fail(path, "is compressed (LAZ) but has no laszip VLR");
  }

  void readChunkTable() {
    const std::uint64_t chunks_start = header.point_data + 8;
    auto table_at = readAt<std::int64_t>(readBytes(header.point_data, 8, "the chunk table offset").data(), 0);
    if (table_at == -1)  // written by a writer that could not seek back: the offset is at the end
      table_at = readAt<std::int64_t>(
          readBytes(file_size - std::min<std::uint64_t>(file_size, 8), 8, "the chunk table offset").data(), 0);
    if (header.count == 0) return;
    if (table_at < static_cast<std::int64_t>(chunks_start) || static_cast<std::uint64_t>(table_at) + 8 > file_size)
      fail(path, "its chunk table offset " + std::to_string(table_at) +
                     " points outside the file (was the writer interrupted?)");
    const std::string table_head = readBytes(static_cast<std::uint64_t>(table_at), 8, "the chunk table");
    if (readAt<std::uint32_t>(table_head.data(), 0) != 0) fail(path, "unknown chunk table version");
    const std::uint32_t count = readAt<std::uint32_t>(table_head.data(), 4);
    const bool variable = schema.chunk_size == laz::Schema::kVariableChunks;
    if (!variable && count != (header.count + schema.chunk_size - 1) / schema.chunk_size)
      fail(path, "its chunk table lists " + std::to_string(count) + " chunks for " + std::to_string(header.count) +
                     " points in chunks of " + std::to_string(schema.chunk_size));
    if (count == 0 || count > static_cast<std::uint64_t>(table_at) - chunks_start)
      fail(path, "its chunk table lists " + std::to_string(count) + " chunks, more than its points could fill");
    // The entries: arithmetic-coded, each predicted from the one before.
    const std::uint64_t entries_at = static_cast<std::uint64_t>(table_at) + 8;
    const std::string entries =
        readBytes(entries_at, std::min<std::uint64_t>(file_size - entries_at, 16ull * count + 64), "the chunk table");
    laz::ArithmeticDecoder decoder;
    decoder.start(reinterpret_cast<const std::uint8_t*>(entries.data()), entries.size());
    laz::IntegerCodec codec(32, 2, true);
    chunks.resize(count);
    std::uint64_t start = chunks_start, points = 0;
    std::uint32_t last_points = 0, last_bytes = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
      Chunk& c = chunks[i];
      if (variable)
        c.points = last_points =
            static_cast<std::uint32_t>(codec.code(decoder, static_cast<std::int32_t>(last_points), 0, 0));
      else
        c.points = std::min<std::uint64_t>(schema.chunk_size, header.count - points);
      c.bytes = last_bytes =
          static_cast<std::uint32_t>(codec.code(decoder, static_cast<std::int32_t>(last_bytes), 0, 1));
      c.start = start;
      start += c.bytes;
      points += c.points;
      if (decoder.overrun() > 4) fail(path, "its chunk table is truncated");
      if (start > static_cast<std::uint64_t>(table_at) || c.bytes == 0)
        fail(path, "its chunk " + std::to_string(i) + " lies outside the point data");
      // A point takes at least a few thousandths of a bit: a chunk claiming more is corrupt.
      if (c.points > c.bytes * 16384)
        fail(path, "its chunk " + std::to_string(i) + " claims more points than its bytes can hold");
    }
    if (points != header.count)
      fail(path, "its chunks hold " + std::to_string(points) + " points, its header promises " +
                     std::to_string(header.count));
  }

  // Decodes chunks [first, last) in threads, appended to `out`.
  void decode(std::size_t first, std::size_t last, std::string& out) {
    std::vector<std::string> data(last - first);
    std::vector<std::size_t> at(last - first + 1, out.size());
    for (std::size_t c = first; c < last; ++c) {
      if (!bytes) data[c - first] = readBytes(chunks[c].start, chunks[c].bytes, "a chunk");
      at[c - first + 1] = at[c - first] + static_cast<std::size_t>(chunks[c].points) * header.record_length;
    }
    out.resize(at.back());
    inParallel(last - first, [&](std::size_t i) {
      const Chunk& c = chunks[first + i];  // within the file: readChunkTable checked
      const char* p = bytes ? bytes->data() + c.start : data[i].data();
      try {
        laz::decodeChunk(schema, reinterpret_cast<const std::uint8_t*>(p), static_cast<std::size_t>(c.bytes),
                         static_cast<std::size_t>(c.points), &out[at[i]]);
      } catch (const std::exception& e) {
        fail(path, std::string(e.what()) + " (chunk " + std::to_string(first + i) + ")");
      }
    });
  }
};

LazReader::LazReader(const std::string& path) : state_(std::make_unique<State>()) {
  state_->path = path;
  state_->in.open(path, std::ios::binary | std::ios::ate);
  if (!state_->in) fail(path, "cannot be opened");
  state_->file_size = static_cast<std::uint64_t>(state_->in.tellg());
  std::string head = state_->readBytes(0, std::min<std::uint64_t>(state_->file_size, 375), "the header");
  if (head.size() > 100) {
    const auto point_data = readAt<std::uint32_t>(head.data(), 96);
    head = state_->readBytes(
        0, std::min<std::uint64_t>(state_->file_size, std::max<std::uint64_t>(point_data, head.size())), "the VLRs");
  }
  state_->open(head);
}

LazReader::LazReader(const std::string& bytes, const std::string& path) : state_(std::make_unique<State>()) {
  state_->path = path;
  state_->bytes = &bytes;
  state_->file_size = bytes.size();
  state_->open(bytes);
}

LazReader::~LazReader() = default;

const LasHeader& LazReader::header() const { return state_->header; }

std::size_t LazReader::read(std::size_t max_points, std::string& records) {
  State& s = *state_;
  const std::size_t length = s.header.record_length;
  // As many chunks at a time as there are threads (twice, to even out their sizes), or all asked for.
  const std::size_t batch = static_cast<std::size_t>(2 * omp_get_max_threads());
  std::size_t got = 0;
  while (got < max_points) {
    if (s.decoded_at < s.decoded.size()) {  // the rest of chunks decoded before
      const std::size_t n = std::min(max_points - got, (s.decoded.size() - s.decoded_at) / length);
      records.append(s.decoded, s.decoded_at, n * length);
      s.decoded_at += n * length;
      got += n;
      continue;
    }
    if (s.next_chunk == s.chunks.size()) break;
    // Whole chunks wanted go straight into `records`; a chunk wanted in part, into the buffer.
    std::size_t last = s.next_chunk, points = 0;
    while (last < s.chunks.size() && last - s.next_chunk < std::max(batch, max_points / s.schema.chunk_size + 1) &&
           points + s.chunks[last].points <= max_points - got)
      points += s.chunks[last++].points;
    if (last > s.next_chunk) {
      s.decode(s.next_chunk, last, records);
      got += points;
    } else {
      last = std::min(s.chunks.size(), s.next_chunk + batch);
      s.decoded.clear();
      s.decoded_at = 0;
      s.decode(s.next_chunk, last, s.decoded);
    }
    s.next_chunk = last;
  }
  return got;
}

void LazReader::restart() {
  state_->next_chunk = 0;
  state_->decoded.clear();
  state_->decoded_at = 0;
}

std::string decompressLaz(const std::string& bytes, const std::string& path) {
  LazReader reader(bytes, path);
  const LasHeader& header = reader.header();
  std::string las = bytes.substr(0, static_cast<std::size_t>(header.point_data));
  las[kPointFormatAt] = static_cast<char>(header.point_format);
  las.reserve(las.size() + static_cast<std::size_t>(header.count) * header.record_length);
  reader.read(static_cast<std::size_t>(header.count), las);
  return las;
}

// ---------------------------------------------------------------------------------------------

struct LazChunkWriter::Impl {
  laz::Schema schema;
  std::uint64_t table_offset_at = 0;
  std::string pending;  // records of chunks not yet compressed
  std::size_t pending_points = 0;
  std::vector<std::uint64_t> chunk_bytes;
};

LazChunkWriter::LazChunkWriter(std::ostream& out, const std::string& path, int point_format,
                               std::uint16_t record_length, std::uint32_t chunk_size)
    : out_(out), path_(path), impl_(std::make_unique<Impl>()) {
  static const std::uint16_t kFormatLength[] = {20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67};
  if (point_format < 0 || point_format > 10 || record_length < kFormatLength[point_format])
    fail(path, "LAZ output of point format " + std::to_string(point_format) + " with records of " +
                   std::to_string(record_length) + " bytes");
  try {
    impl_->schema = laz::schemaFor(point_format, record_length - kFormatLength[point_format], chunk_size);
  } catch (const std::exception& e) {
    fail(path, e.what());
  }
}

LazChunkWriter::~LazChunkWriter() = default;

std::string LazChunkWriter::vlr() const {
  const laz::Schema& schema = impl_->schema;
  std::string payload;
  append<std::uint16_t>(payload, schema.compressor);
  append<std::uint16_t>(payload, 0);      // arithmetic coder
  payload += std::string("\x03\x04", 2);  // as LASzip 3.4 writes
  append<std::uint16_t>(payload, 3);
  append<std::uint32_t>(payload, 0);  // options
  append<std::uint32_t>(payload, schema.chunk_size);
  append<std::int64_t>(payload, -1);  // no special EVLRs
  append<std::int64_t>(payload, -1);
  append<std::uint16_t>(payload, static_cast<std::uint16_t>(schema.items.size()));
  for (const laz::Item& item : schema.items) {
    append(payload, item.type);
    append(payload, item.size);
    append(payload, item.version);
  }
  std::string vlr(kVlrHeaderSize, '\0');
  std::memcpy(&vlr[2], "laszip encoded", 14);
  std::memcpy(&vlr[18], &kLaszipRecordId, 2);
  const auto length = static_cast<std::uint16_t>(payload.size());
  std::memcpy(&vlr[20], &length, 2);
  std::memcpy(&vlr[22], "by pcl_dise (LASzip format)", 27);
  return vlr + payload;
}

void LazChunkWriter::begin() {
  impl_->table_offset_at = static_cast<std::uint64_t>(out_.tellp());
  out_.write("\0\0\0\0\0\0\0\0", 8);
}

void LazChunkWriter::add(const char* record) {
  Impl& s = *impl_;
  s.pending.append(record, s.schema.recordLength());
  if (++s.pending_points == static_cast<std::size_t>(2 * omp_get_max_threads()) * s.schema.chunk_size) flush();
}

void LazChunkWriter::flush() {
  Impl& s = *impl_;
  const std::size_t length = s.schema.recordLength(), size = s.schema.chunk_size;
  const std::size_t chunks = (s.pending_points + size - 1) / size;
  std::vector<std::string> compressed(chunks);
  inParallel(chunks, [&](std::size_t c) {
    const std::size_t first = c * size, n = std::min(size, s.pending_points - first);
    compressed[c] = laz::encodeChunk(s.schema, s.pending.data() + first * length, n);
  });
  for (const std::string& chunk : compressed) {
    out_.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    s.chunk_bytes.push_back(chunk.size());
  }
  s.pending.clear();
  s.pending_points = 0;
}

void LazChunkWriter::finish() {
  Impl& s = *impl_;
  flush();
  const auto table_at = static_cast<std::int64_t>(out_.tellp());
  std::string table;
  append<std::uint32_t>(table, 0);  // version
  append<std::uint32_t>(table, static_cast<std::uint32_t>(s.chunk_bytes.size()));
  if (!s.chunk_bytes.empty()) {
    laz::ArithmeticEncoder encoder;
    laz::IntegerCodec codec(32, 2, false);
    std::int32_t last = 0;
    for (std::uint64_t bytes : s.chunk_bytes) {
      if (bytes > std::numeric_limits<std::uint32_t>::max()) fail(path_, "a LAZ chunk of 4 GB or more");
      last = codec.code(encoder, last, static_cast<std::int32_t>(static_cast<std::uint32_t>(bytes)), 1);
    }
    encoder.finish();
    table += encoder.bytes();
  }
  out_.write(table.data(), static_cast<std::streamsize>(table.size()));
  const auto end = out_.tellp();
  out_.seekp(static_cast<std::streamoff>(s.table_offset_at));
  out_.write(reinterpret_cast<const char*>(&table_at), 8);
  out_.seekp(end);
}

}  // namespace io
}  // namespace pcl_dise
