#include <vramscope/core/dtype.hpp>

#include <vramscope/core/diagnostic.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace vramscope {

namespace {
struct dtype_row {
  dtype type;
  int bits;
  std::string_view name;
};
constexpr std::array<dtype_row, 14> dtype_table{{
    {dtype::f64, 64, "fp64"},          {dtype::f32, 32, "fp32"},
    {dtype::bf16, 16, "bf16"},         {dtype::f16, 16, "fp16"},
    {dtype::f8_e4m3, 8, "fp8_e4m3"},   {dtype::f8_e5m2, 8, "fp8_e5m2"},
    {dtype::i64, 64, "int64"},         {dtype::i32, 32, "int32"},
    {dtype::i16, 16, "int16"},         {dtype::i8, 8, "int8"},
    {dtype::u8, 8, "uint8"},           {dtype::boolean, 8, "bool"},
    {dtype::nf4, 4, "nf4"},            {dtype::int4, 4, "int4"},
}};

// Aliases seen in safetensors headers (upper-case), torch reprs and configs.
constexpr std::array<std::pair<std::string_view, dtype>, 22> aliases{{
    {"f64", dtype::f64},       {"float64", dtype::f64},    {"double", dtype::f64},
    {"f32", dtype::f32},       {"float32", dtype::f32},    {"float", dtype::f32},
    {"bfloat16", dtype::bf16}, {"f16", dtype::f16},        {"float16", dtype::f16},
    {"half", dtype::f16},      {"f8_e4m3", dtype::f8_e4m3}, {"float8_e4m3fn", dtype::f8_e4m3},
    {"f8_e5m2", dtype::f8_e5m2}, {"float8_e5m2", dtype::f8_e5m2}, {"i64", dtype::i64},
    {"i32", dtype::i32},       {"i16", dtype::i16},        {"i8", dtype::i8},
    {"u8", dtype::u8},         {"bool", dtype::boolean},   {"int", dtype::i64},
    {"fp8", dtype::f8_e4m3},
}};

// The table lists the types in the enum's order: a type's row is at its value.
constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < dtype_table.size(); ++i)
    if (static_cast<std::size_t>(dtype_table[i].type) != i) return false;
  return true;
}
static_assert(in_enum_order());

const dtype_row& row_of(dtype t) { return dtype_table[static_cast<std::size_t>(t)]; }
}  // namespace

int bits_of(dtype t) { return row_of(t).bits; }

bytes bytes_of(dtype t, std::uint64_t count) {
  return ceil_div(count * static_cast<std::uint64_t>(bits_of(t)), 8);
}

std::string_view name_of(dtype t) { return row_of(t).name; }

std::optional<dtype> parse_dtype(std::string_view text) {
  std::string s(text);
  if (s.rfind("torch.", 0) == 0) s = s.substr(6);
  s = lower_case(s);
  for (const auto& r : dtype_table)
    if (r.name == s) return r.type;
  for (const auto& [alias, type] : aliases)
    if (alias == s) return type;
  return std::nullopt;
}

}  // namespace vramscope
