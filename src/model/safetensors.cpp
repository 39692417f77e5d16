#include <vramscope/model/safetensors.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

#include <vramscope/model/model_spec.hpp>

namespace vramscope::model {

namespace {

using json = nlohmann::json;  // std::map keys: ordered_json's linear lookups are too slow here

constexpr std::uint64_t length_prefix = 8;

struct safetensors_dtype {
  std::string_view name;
  dtype type;
  std::uint64_t size;  // bytes per element
};

// The dtype names of the safetensors format that vramscope models (sorted, as listed).
constexpr std::array<safetensors_dtype, 12> known_dtypes{{
    {"BF16", dtype::bf16, 2},
    {"BOOL", dtype::boolean, 1},
    {"F16", dtype::f16, 2},
    {"F32", dtype::f32, 4},
    {"F64", dtype::f64, 8},
    {"F8_E4M3", dtype::f8_e4m3, 1},
    {"F8_E5M2", dtype::f8_e5m2, 1},
    {"I16", dtype::i16, 2},
    {"I32", dtype::i32, 4},
    {"I64", dtype::i64, 8},
    {"I8", dtype::i8, 1},
    {"U8", dtype::u8, 1},
}};

const safetensors_dtype* find_dtype(std::string_view name) {
  for (const auto& d : known_dtypes)
    if (d.name == name) return &d;
  return nullptr;
}

std::uint64_t read_u64_le(std::string_view b) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | static_cast<unsigned char>(b[static_cast<std::size_t>(i)]);
  return n;
}

std::string offsets_text(const safetensors_entry& e) {
  return fmt::format("[{}, {}]", e.begin, e.end);
}

// Validates one header once its length prefix has been checked.
class header_parser {
 public:
  header_parser(std::string source, std::string_view header, std::uint64_t data_size)
      : source_(std::move(source)), header_(header), data_size_(data_size) {}

  result<safetensors_header> parse();

 private:
  diagnostic error(std::uint64_t offset, const std::string& message) const {
    return error_at(source_, fmt::format("byte {}: {}", offset, message));
  }
  std::uint64_t offset_of(const std::string& key) const;
  result<safetensors_entry> entry(const std::string& name, const json& value) const;
  status check_size(const safetensors_entry& e, const safetensors_dtype& d) const;
  status metadata(const json& value, safetensors_header& out) const;
  status layout(safetensors_header& out) const;

  std::string source_;
  std::string_view header_;
  std::uint64_t data_size_;
};

// File offset of `"key":` in the header; the header start when it cannot be found (a key
// written with escapes, for instance).
std::uint64_t header_parser::offset_of(const std::string& key) const {
  const std::string quoted = json(key).dump();
  for (std::size_t at = header_.find(quoted); at != std::string_view::npos;
       at = header_.find(quoted, at + 1)) {
    std::size_t after = at + quoted.size();
    while (after < header_.size() && (header_[after] == ' ' || header_[after] == '\n' ||
                                      header_[after] == '\t' || header_[after] == '\r'))
      ++after;
    if (after < header_.size() && header_[after] == ':') return length_prefix + at;
  }
  return length_prefix;
}

result<safetensors_entry> header_parser::entry(const std::string& name, const json& value) const {
  const auto fail = [&](const std::string& why) {
    return error(offset_of(name), fmt::format("tensor {}: {}", json(name).dump(), why));
  };
  if (!value.is_object())
    return fail(
        fmt::format("expected an object with \"dtype\", \"shape\" and \"data_offsets\", "
                    "got {}",
                    value.type_name()));
  const auto dt = value.find("dtype");
  if (dt == value.end() || !dt->is_string()) return fail("missing string field \"dtype\"");
  const safetensors_dtype* d = find_dtype(dt->get_ref<const std::string&>());
  if (!d) {
    std::vector<std::string_view> names;
    for (const auto& k : known_dtypes) names.push_back(k.name);
    return fail(
        fmt::format("unknown dtype {} (expected one of {})", dt->dump(), fmt::join(names, ", ")));
  }
  safetensors_entry e{name, d->type, {}, 0, 0};
  const auto shape = value.find("shape");
  if (shape == value.end() || !shape->is_array())
    return fail("\"shape\" must be a list of non-negative integers");
  for (const auto& dim : *shape) {
    if (!dim.is_number_unsigned()) return fail("\"shape\" must be a list of non-negative integers");
    e.shape.push_back(dim.get<std::uint64_t>());
  }
  const auto offsets = value.find("data_offsets");
  if (offsets == value.end() || !offsets->is_array() || offsets->size() != 2 ||
      !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned() ||
      (*offsets)[0].get<std::uint64_t>() > (*offsets)[1].get<std::uint64_t>())
    return fail("\"data_offsets\" must be [begin, end] with begin <= end");
  e.begin = (*offsets)[0].get<std::uint64_t>();
  e.end = (*offsets)[1].get<std::uint64_t>();
  if (auto sized = check_size(e, *d); !sized) return sized.error();
  return e;
}

status header_parser::check_size(const safetensors_entry& e, const safetensors_dtype& d) const {
  std::uint64_t need = d.size;
  for (std::uint64_t dim : e.shape)
    if (__builtin_mul_overflow(need, dim, &need))
      return error(offset_of(e.name), fmt::format("tensor {}: shape {} is too large to address",
                                                  json(e.name).dump(), format_shape(e.shape)));
  if (need != e.end - e.begin)
    return error(offset_of(e.name),
                 fmt::format("tensor {}: data_offsets {} span {} bytes, but shape {} of {} needs "
                             "{} bytes",
                             json(e.name).dump(), offsets_text(e), e.end - e.begin,
                             format_shape(e.shape), d.name, need));
  if (e.end > data_size_)
    return error(offset_of(e.name),
                 fmt::format("tensor {}: data_offsets {} run past the end of the file, which "
                             "holds {} data bytes after the header",
                             json(e.name).dump(), offsets_text(e), data_size_));
  return ok();
}

status header_parser::metadata(const json& value, safetensors_header& out) const {
  if (value.is_null()) return ok();
  if (!value.is_object())
    return error(offset_of("__metadata__"), "\"__metadata__\" must map names to strings");
  for (const auto& [key, text] : value.items()) {
    if (!text.is_string())
      return error(offset_of("__metadata__"), "\"__metadata__\" must map names to strings");
    out.metadata.emplace_back(key, text.get<std::string>());
  }
  return ok();
}

// Sorts by offset; overlaps are errors, holes and trailing bytes are notes.
status header_parser::layout(safetensors_header& out) const {
  auto& entries = out.entries;
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t covered = 0;
  const safetensors_entry* previous = nullptr;
  for (const auto& e : entries) {
    if (previous && e.begin < covered)
      return error(
          offset_of(e.name),
          fmt::format("tensor {}: data_offsets {} overlap tensor {} {}", json(e.name).dump(),
                      offsets_text(e), json(previous->name).dump(), offsets_text(*previous)));
    if (e.begin > covered)
      out.notes.push_back(error_at(
          source_, fmt::format("data bytes {} to {} belong to no tensor", covered, e.begin)));
    covered = e.end;
    previous = &e;
  }
  if (covered < data_size_)
    out.notes.push_back(error_at(
        source_,
        fmt::format("{} bytes after the last tensor belong to no tensor", data_size_ - covered)));
  return ok();
}

result<safetensors_header> header_parser::parse() {
  if (header_.empty() || header_.front() != '{')
    return error(length_prefix, "the header must be a JSON object starting with '{'");
  json root;
  try {
    root = json::parse(header_.begin(), header_.end());
  } catch (const json::exception& e) {
    const auto* parse = dynamic_cast<const json::parse_error*>(&e);
    const std::uint64_t at = parse && parse->byte > 0 ? parse->byte - 1 : 0;
    std::string what = e.what();
    if (const auto colon = what.find(": ", what.find("column ")); colon != std::string::npos)
      what = what.substr(colon + 2);
    return error(length_prefix + at, "invalid JSON in header: " + what);
  }
  safetensors_header out;
  out.header_length = header_.size();
  out.data_start = length_prefix + header_.size();
  for (const auto& [name, value] : root.items()) {
    if (name == "__metadata__") {
      if (auto m = metadata(value, out); !m) return m.error();
      continue;
    }
    auto e = entry(name, value);
    if (!e) return e.error();
    out.entries.push_back(std::move(*e));
  }
  if (auto l = layout(out); !l) return l.error();
  return out;
}

}  // namespace

result<safetensors_header> parse_safetensors_header(std::string_view bytes, std::string source,
                                                    std::optional<std::uint64_t> file_size) {
  const std::uint64_t size = file_size.value_or(bytes.size());
  if (size < length_prefix || bytes.size() < length_prefix)
    return error_at(source, fmt::format("byte 0: file is {} bytes, too short for the 8-byte "
                                        "header length",
                                        size));
  const std::uint64_t n = read_u64_le(bytes.substr(0, length_prefix));
  if (n > max_safetensors_header)
    return error_at(source, fmt::format("byte 0: header length {} exceeds the {} limit", n,
                                        format_bytes(max_safetensors_header)));
  if (n > size - length_prefix)
    return error_at(source, fmt::format("byte 0: header length {} runs past the end of the "
                                        "file ({} bytes; the header would end at byte {})",
                                        n, size, length_prefix + n));
  if (bytes.size() < length_prefix + n)
    return error_at(source, fmt::format("byte {}: only {} of the {} header bytes were read",
                                        bytes.size(), bytes.size() - length_prefix, n));
  header_parser parser(source, bytes.substr(length_prefix, n), size - length_prefix - n);
  return parser.parse();
}

}  // namespace vramscope::model
