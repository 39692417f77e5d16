// Reading safetensors headers from disk: one file, an index with its shards, or a folder.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include <vramscope/core/io.hpp>
#include <vramscope/model/safetensors.hpp>

#include "model/config_fields.hpp"

namespace vramscope::model {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* index_name = "model.safetensors.index.json";

std::uint64_t prefix_length(std::string_view b) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | static_cast<unsigned char>(b[static_cast<std::size_t>(i)]);
  return n;
}

bool plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of("/\\") == std::string::npos;
}

status add_file(safetensors_checkpoint& out, const std::string& path,
                std::map<std::string, std::string>& owner) {
  auto header = read_safetensors_header(path);
  if (!header) return header.error();
  for (auto& e : header->entries) {
    if (auto [it, fresh] = owner.emplace(e.name, path); !fresh)
      return error_at(path,
                      fmt::format("tensor {} is also in {}", json(e.name).dump(), it->second));
    out.tensors.push_back(checkpoint_entry{std::move(e), path});
  }
  for (auto& n : header->notes) out.notes.push_back(std::move(n));
  return ok();
}

result<json> read_index_json(const std::string& path) {
  auto text = read_file(path, 64_MiB);
  if (!text) return text.error();
  try {
    return json::parse(*text);
  } catch (const json::parse_error& e) {
    const detail::config_source src{path, *text};
    return detail::diagnostic_at(src, e.byte > 0 ? e.byte - 1 : 0,
                                 std::string("invalid JSON: ") + e.what());
  } catch (const json::exception& e) {
    return error_at(path, std::string("invalid JSON: ") + e.what());
  }
}

// Reads each shard named by the index once, keyed by shard file name.
result<std::map<std::string, safetensors_header>> read_shards(const std::string& index,
                                                              const json& weight_map) {
  std::map<std::string, safetensors_header> shards;
  const fs::path folder = fs::path(index).parent_path();
  for (const auto& [tensor, shard] : weight_map.items()) {
    if (!shard.is_string() || !plain_file_name(shard.get<std::string>()))
      return error_at(index, fmt::format("weight_map: shard {} of tensor {} must be a file name "
                                         "in the index's folder",
                                         shard.dump(), json(tensor).dump()));
    const std::string name = shard.get<std::string>();
    if (shards.count(name)) continue;
    auto header = read_safetensors_header((folder / name).string());
    if (!header) return header.error();
    shards.emplace(name, std::move(*header));
  }
  return shards;
}

result<safetensors_checkpoint> read_index(const std::string& index) {
  auto root = read_index_json(index);
  if (!root) return root.error();
  if (!root->is_object() || !root->contains("weight_map") || !(*root)["weight_map"].is_object())
    return error_at(index, "missing object \"weight_map\" (tensor name -> shard file)");
  const json& weight_map = (*root)["weight_map"];
  auto shards = read_shards(index, weight_map);
  if (!shards) return shards.error();
  const fs::path folder = fs::path(index).parent_path();
  safetensors_checkpoint out{index, {}, {}};
  std::uint64_t total = 0;
  std::map<std::string, std::unordered_map<std::string, const safetensors_entry*>> by_name;
  for (const auto& [name, header] : *shards)
    for (const auto& e : header.entries) by_name[name].emplace(e.name, &e);
  for (const auto& [tensor, shard] : weight_map.items()) {
    const std::string file = shard.get<std::string>();
    const auto it = by_name[file].find(tensor);
    if (it == by_name[file].end())
      return error_at(index, fmt::format("tensor {} is mapped to \"{}\", which does not hold it",
                                         json(tensor).dump(), file));
    total += it->second->end - it->second->begin;
    out.tensors.push_back(checkpoint_entry{*it->second, (folder / file).string()});
  }
  for (const auto& [name, header] : *shards) {
    for (const auto& e : header.entries)
      if (!weight_map.contains(e.name))
        out.notes.push_back(
            error_at((folder / name).string(),
                     fmt::format("tensor {} is not listed in {}", json(e.name).dump(), index)));
    for (const auto& n : header.notes) out.notes.push_back(n);
  }
  const json* metadata = root->contains("metadata") ? &(*root)["metadata"] : nullptr;
  if (metadata && metadata->is_object() && metadata->contains("total_size") &&
      (*metadata)["total_size"].is_number_unsigned() &&
      (*metadata)["total_size"].get<std::uint64_t>() != total)
    out.notes.push_back(error_at(index, fmt::format("metadata.total_size is {}, but the mapped "
                                                    "tensors hold {} bytes",
                                                    (*metadata)["total_size"].dump(), total)));
  return out;
}

result<safetensors_checkpoint> read_folder(const std::string& folder) {
  const fs::path index = fs::path(folder) / index_name;
  std::error_code ec;
  if (fs::is_regular_file(index, ec)) return read_index(index.string());
  std::vector<std::string> files;
  for (const auto& item : fs::directory_iterator(folder, ec))
    if (item.path().extension() == ".safetensors" && item.is_regular_file(ec))
      files.push_back(item.path().string());
  if (ec) return error_at(folder, "cannot list the folder: " + ec.message());
  if (files.empty()) return error_at(folder, "no safetensors files");
  std::sort(files.begin(), files.end());
  safetensors_checkpoint out{files.size() == 1 ? files.front() : folder, {}, {}};
  std::map<std::string, std::string> owner;
  for (const auto& f : files)
    if (auto added = add_file(out, f, owner); !added) return added.error();
  return out;
}

}  // namespace

result<safetensors_header> read_safetensors_header(const std::string& path) {
  auto size = file_size(path);
  if (!size) return size.error();
  auto prefix = read_file_range(path, 0, std::min<std::uint64_t>(*size, 8));
  if (!prefix) return prefix.error();
  if (*size < 8) return parse_safetensors_header(*prefix, path, *size);
  const std::uint64_t n = prefix_length(*prefix);
  if (n > max_safetensors_header || n > *size - 8)
    return parse_safetensors_header(*prefix, path, *size);
  auto bytes = read_file_range(path, 0, 8 + n);
  if (!bytes) return bytes.error();
  return parse_safetensors_header(*bytes, path, *size);
}

result<safetensors_checkpoint> read_safetensors_checkpoint(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return read_folder(path);
  if (path.size() >= 11 && path.compare(path.size() - 11, 11, ".index.json") == 0)
    return read_index(path);
  safetensors_checkpoint out{path, {}, {}};
  std::map<std::string, std::string> owner;
  if (auto added = add_file(out, path, owner); !added) return added.error();
  return out;
}

}  // namespace vramscope::model
