# Writes OUTPUT, a C++ file holding PRESET_DIR/catalog.json and every PRESET_DIR/<name>.json
# that catalog.json lists, as raw string literals. Run with cmake -P at build time.
set(delimiter "vramscope_data")
# -Wpedantic warns about string literals longer than ISO C++ promises to support (65536).
set(max_literal 60000)

function(literal path out_var)
  file(READ "${path}" content)
  string(LENGTH "${content}" length)
  if(length GREATER max_literal)
    message(FATAL_ERROR "${path}: ${length} bytes, more than the ${max_literal} a literal may hold")
  endif()
  string(FIND "${content}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${path} contains the raw-string delimiter )${delimiter}\"")
  endif()
  set(${out_var} "R\"${delimiter}(${content})${delimiter}\"" PARENT_SCOPE)
endfunction()

file(READ "${PRESET_DIR}/catalog.json" catalog)
string(JSON count LENGTH "${catalog}" presets)
literal("${PRESET_DIR}/catalog.json" catalog_literal)

set(entries "")
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${catalog}" presets ${i} name)
  literal("${PRESET_DIR}/${name}.json" text)
  string(APPEND entries "    {\"${name}\",\n     ${text}},\n")
endforeach()

file(WRITE "${OUTPUT}.tmp" "// Generated from data/models/ by src/model/embed_presets.cmake. Do not edit.
#include \"model/embedded_presets.hpp\"

#include <array>

namespace vramscope::model::detail {

namespace {

constexpr std::string_view catalog_text = ${catalog_literal};

constexpr std::array<embedded_file, ${count}> files{{
${entries}}};

}  // namespace

std::string_view embedded_catalog() { return catalog_text; }

std::span<const embedded_file> embedded_presets() { return files; }

}  // namespace vramscope::model::detail
")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
