#include "pcl_dise/core/safetensors.h"

#include <cstring>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "pcl_dise/core/errors.h"

namespace pcl_dise {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw FileError("safetensors file '" + path + "': " + problem);
}

// Stored tensors are little-endian; so is every platform this library targets.
static_assert(sizeof(float) == 4, "float32 expected");

}  // namespace

SafetensorsFile readSafetensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot be opened");
  in.seekg(0, std::ios::end);
  const std::streamoff file_size = in.tellg();
  in.seekg(0);
  if (file_size < 8) fail(path, "is truncated (shorter than its 8-byte header length)");
  unsigned char length_bytes[8];
  in.read(reinterpret_cast<char*>(length_bytes), 8);
  std::uint64_t header_length = 0;
  for (int b = 7; b >= 0; --b) header_length = (header_length << 8) | length_bytes[b];
  if (header_length > static_cast<std::uint64_t>(file_size - 8))
    fail(path, "is truncated or not a safetensors file (header length " + std::to_string(header_length) +
                   " exceeds the file size)");
  std::string header_text(header_length, '\0');
  in.read(&header_text[0], static_cast<std::streamsize>(header_length));
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(header_text);
  } catch (const std::exception& e) {
    fail(path, std::string("has a malformed JSON header: ") + e.what());
  }
  if (!header.is_object()) fail(path, "has a JSON header that is not an object");

  const std::uint64_t data_size = static_cast<std::uint64_t>(file_size) - 8 - header_length;
  std::vector<char> data(data_size);
  in.read(data.data(), static_cast<std::streamsize>(data_size));
  if (!in) fail(path, "could not be read completely");

  SafetensorsFile file;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& entry = it.value();
    if (name == "__metadata__") {
      if (!entry.is_object()) fail(path, "has a __metadata__ entry that is not an object");
      for (auto m = entry.begin(); m != entry.end(); ++m) {
        if (!m.value().is_string()) fail(path, "has a non-string __metadata__ value for '" + m.key() + "'");
        file.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets"))
      fail(path, "tensor '" + name + "' lacks dtype, shape or data_offsets");
    if (!entry["dtype"].is_string() || entry["dtype"].get<std::string>() != "F32")
      fail(path, "tensor '" + name + "' has dtype " + entry["dtype"].dump() + ", expected F32");
    Float32Tensor tensor;
    std::uint64_t count = 1;
    for (const auto& d : entry["shape"]) {
      if (!d.is_number_integer() || d.get<std::int64_t>() < 0) fail(path, "tensor '" + name + "' has a bad shape");
      tensor.shape.push_back(d.get<std::int64_t>());
      count *= static_cast<std::uint64_t>(tensor.shape.back());
    }
    const auto& offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
      fail(path, "tensor '" + name + "' has bad data_offsets");
    const std::uint64_t begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
    if (begin > end || end > data_size) fail(path, "tensor '" + name + "' lies outside the data (file truncated?)");
    if (end - begin != count * 4)
      fail(path, "tensor '" + name + "' has " + std::to_string(end - begin) + " bytes for " + std::to_string(count) +
                     " float32 values");
    tensor.values.resize(count);
    if (count > 0) std::memcpy(tensor.values.data(), data.data() + begin, count * 4);
    file.tensors.emplace(name, std::move(tensor));
  }
  return file;
}

void writeSafetensors(const std::string& path, const SafetensorsFile& file) {
  nlohmann::json header = nlohmann::json::object();
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : file.tensors) {
    const std::uint64_t bytes = tensor.values.size() * 4;
    header[name] = {{"dtype", "F32"}, {"shape", tensor.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string header_text = header.dump();
  while ((8 + header_text.size()) % 8 != 0) header_text.push_back(' ');  // aligned data, as the format suggests
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, "cannot be written");
  unsigned char length_bytes[8];
  std::uint64_t length = header_text.size();
  for (int b = 0; b < 8; ++b) length_bytes[b] = static_cast<unsigned char>((length >> (8 * b)) & 0xff);
  out.write(reinterpret_cast<const char*>(length_bytes), 8);
  out.write(header_text.data(), static_cast<std::streamsize>(header_text.size()));
  for (const auto& entry : file.tensors)
    out.write(reinterpret_cast<const char*>(entry.second.values.data()),
              static_cast<std::streamsize>(entry.second.values.size() * 4));
  if (!out) fail(path, "could not be written completely");
}

}  // namespace pcl_dise
