#pragma once
// Builds safetensors files in memory for tests: an 8-byte little-endian length, the header
// JSON, then zero bytes for the data.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace vramscope::model::testing {

struct fake_tensor {
  std::string name;
  std::string dtype;
  std::vector<std::uint64_t> shape;
};

inline std::uint64_t element_size(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64") return 8;
  if (dtype == "F32" || dtype == "I32") return 4;
  if (dtype == "BF16" || dtype == "F16" || dtype == "I16") return 2;
  return 1;
}

inline std::string le64(std::uint64_t n) {
  std::string out(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out;
}

inline std::string shape_json(const std::vector<std::uint64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

/// Header JSON with contiguous data_offsets in the given order; `data_bytes` gets the total.
inline std::string header_of(const std::vector<fake_tensor>& tensors, std::uint64_t& data_bytes) {
  std::string out = "{";
  data_bytes = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    std::uint64_t size = element_size(t.dtype);
    for (auto d : t.shape) size *= d;
    out += (i ? "," : "") + std::string("\"") + t.name + "\":{\"dtype\":\"" + t.dtype +
           "\",\"shape\":" + shape_json(t.shape) + ",\"data_offsets\":[" +
           std::to_string(data_bytes) + "," + std::to_string(data_bytes + size) + "]}";
    data_bytes += size;
  }
  return out + "}";
}

/// A whole file from a header text and a data size.
inline std::string file_of(const std::string& header, std::uint64_t data_bytes) {
  return le64(header.size()) + header + std::string(data_bytes, '\0');
}

/// A whole, valid file holding `tensors`.
inline std::string file_of(const std::vector<fake_tensor>& tensors) {
  std::uint64_t data = 0;
  const std::string header = header_of(tensors, data);
  return file_of(header, data);
}

inline void write(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

/// A fresh, empty folder under the system temp folder.
inline std::filesystem::path fresh_folder(const std::string& name) {
  const auto path = std::filesystem::temp_directory_path() / ("vramscope_model_" + name);
  std::filesystem::remove_all(path);
  std::filesystem::create_directories(path);
  return path;
}

}  // namespace vramscope::model::testing
