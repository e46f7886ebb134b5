// libFuzzer target: the LAZ decoder (pcl_dise/io/laz_format.h). An input starting with "LASF" is
// a whole file (header, laszip VLR, chunk table pointing anywhere, counts that lie, chunks cut
// short); any other input is one chunk decoded directly: its first byte picks the point format
// (0-3, 6-8), its second the extra bytes (0-23) and its next two the points, so that the item
// decoders see arbitrary bytes without a valid file around them.
#include <stdexcept>
#include <string>
#include <vector>

#include "laz/laz_chunk.h"
#include "pcl_dise/io/las_format.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    if (bytes.compare(0, 4, "LASF") == 0) {
      pcl_dise::io::parseLas(bytes, "fuzz.laz", true);
    } else if (size >= 4) {
      static const int kFormats[] = {0, 1, 2, 3, 6, 7, 8};
      const auto schema = pcl_dise::io::laz::schemaFor(kFormats[data[0] % 7], data[1] % 24, 50000);
      const std::size_t count = (data[2] | data[3] << 8) % 2048;
      std::vector<char> out(count * schema.recordLength());
      pcl_dise::io::laz::decodeChunk(schema, data + 4, size - 4, count, out.data());
    }
  } catch (const std::runtime_error&) {}
  return 0;
}
