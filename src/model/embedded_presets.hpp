#pragma once
// The preset files of data/models/, compiled in (the .cpp is generated at build time by
// src/model/embed_presets.cmake from the files catalog.json lists).

#include <span>
#include <string_view>

namespace vramscope::model::detail {

struct embedded_file {
  std::string_view name;  // preset name: data/models/<name>.json
  std::string_view text;  // the file's bytes
};

/// data/models/catalog.json as it was at build time.
std::string_view embedded_catalog();

/// One entry per preset that catalog.json lists, in its order.
std::span<const embedded_file> embedded_presets();

}  // namespace vramscope::model::detail
