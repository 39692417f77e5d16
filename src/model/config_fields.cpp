#include "model/config_fields.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace vramscope::model::detail {

namespace {

constexpr std::size_t max_shown_value = 40;
constexpr std::size_t max_context = 200;

std::string shown(const json& value) {
  std::string text = value.dump();
  if (text.size() > max_shown_value) text = text.substr(0, max_shown_value) + "...";
  return text;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

diagnostic diagnostic_at(const config_source& source, std::size_t offset, std::string message) {
  const std::string_view text = source.text;
  offset = std::min(offset, text.size());
  const std::size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t begin =
      (line_start == std::string_view::npos || offset == 0) ? 0 : line_start + 1;
  std::size_t end = text.find('\n', begin);
  if (end == std::string_view::npos) end = text.size();
  std::string context(text.substr(begin, std::min(end - begin, max_context)));
  if (!context.empty() && context.back() == '\r') context.pop_back();
  const auto line =
      std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(begin), '\n') + 1;
  return diagnostic{source.name, static_cast<int>(line), static_cast<int>(offset - begin + 1),
                    std::move(message), std::move(context)};
}

field_reader::field_reader(const config_source& source, const json& object, std::string path,
                           bool strict, first_error& errors, std::size_t text_offset)
    : source_(&source),
      object_(&object),
      path_(std::move(path)),
      strict_(strict),
      errors_(&errors),
      text_offset_(text_offset) {}

std::string field_reader::path_of(std::string_view key) const { return path_ + std::string(key); }

bool field_reader::has(std::string_view key) const { return find(key) != nullptr; }

bool field_reader::is_null(std::string_view key) const {
  note_read(key);
  if (!object_->is_object()) return false;
  const auto it = object_->find(std::string(key));
  return it != object_->end() && it->is_null();
}

void field_reader::note_read(std::string_view key) const {
  if (!path_.empty()) return;
  auto& keys = errors_->read_keys;
  if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.emplace_back(key);
}

const json* field_reader::find(std::string_view key) const {
  note_read(key);
  if (!object_->is_object()) return nullptr;
  const auto it = object_->find(std::string(key));
  if (it == object_->end() || it->is_null()) return nullptr;
  return &*it;
}

// Scans the object's own members (depth 1 from its opening brace, skipping strings and nested
// values) for `"key":`. Best effort: a key written with escapes is not found.
std::size_t field_reader::locate(std::string_view key) const {
  if (!in_text_) return std::string_view::npos;
  const std::string_view text = source_->text;
  std::size_t at = text.find('{', text_offset_);
  int depth = 0;
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') {
      if (--depth == 0) break;
    }
    if (c != '"') continue;
    std::size_t end = at + 1;
    while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2u : 1u;
    if (end >= text.size()) break;
    std::size_t after = end + 1;
    while (after < text.size() && is_space(text[after])) ++after;
    if (depth == 1 && after < text.size() && text[after] == ':' &&
        text.substr(at + 1, end - at - 1) == key)
      return at;
    at = end;
  }
  return std::string_view::npos;
}

void field_reader::fail(std::string_view key, std::string message) {
  if (failed()) return;
  const std::size_t at = locate(key);
  if (at == std::string_view::npos) {
    errors_->set(error_at(source_->name, std::move(message)));
    return;
  }
  errors_->set(diagnostic_at(*source_, at, std::move(message)));
}

void field_reader::check(bool condition, std::string_view key, const std::string& message) {
  if (!condition) fail(key, message);
}

std::optional<std::uint64_t> field_reader::integer(std::string_view key, std::uint64_t max) {
  const json* value = find(key);
  if (!value) return std::nullopt;
  // Parsed JSON holds non-negative integers as unsigned; built-in defaults hold them signed.
  const bool positive = value->is_number_unsigned()
                            ? value->get<std::uint64_t>() > 0
                            : value->is_number_integer() && value->get<std::int64_t>() > 0;
  if (!positive) {
    fail(key, fmt::format("field \"{}\" must be a positive integer, got {}", path_of(key),
                          shown(*value)));
    return 0;
  }
  const auto n = value->get<std::uint64_t>();
  if (n > max) {
    fail(key, fmt::format("field \"{}\" is {}, above the limit of {}", path_of(key), n, max));
    return 0;
  }
  return n;
}

std::uint64_t field_reader::size(std::string_view key, std::uint64_t hf_default,
                                 std::uint64_t max) {
  if (strict_) return required(key, max);
  return count(key, hf_default, max);
}

std::uint64_t field_reader::required(std::string_view key, std::uint64_t max) {
  if (auto n = integer(key, max)) return *n;
  if (failed()) return 0;
  const std::string message =
      fmt::format("missing required field \"{}\" (a positive integer)", path_of(key));
  if (text_offset_ > 0 && in_text_)
    errors_->set(diagnostic_at(*source_, text_offset_, message));
  else
    errors_->set(error_at(source_->name, message));
  return 0;
}

std::uint64_t field_reader::count(std::string_view key, std::uint64_t fallback, std::uint64_t max) {
  return integer(key, max).value_or(fallback);
}

std::optional<std::uint64_t> field_reader::optional_count(std::string_view key, std::uint64_t max) {
  return integer(key, max);
}

std::uint64_t field_reader::at_most(std::string_view key, std::uint64_t fallback, std::uint64_t limit) {
  const json* value = find(key);
  if (!value) return fallback;
  const bool ok = value->is_number_unsigned() ||
                  (value->is_number_integer() && value->get<std::int64_t>() >= 0);
  if (!ok || value->get<std::uint64_t>() > limit) {
    fail(key, fmt::format("field \"{}\" must be an integer from 0 to {}, got {}", path_of(key),
                          limit, shown(*value)));
    return fallback;
  }
  return value->get<std::uint64_t>();
}

std::vector<std::uint64_t> field_reader::indices(std::string_view key, std::uint64_t limit) {
  std::vector<std::uint64_t> out;
  const json* value = find(key);
  if (!value) return out;
  if (!value->is_array()) {
    fail(key, fmt::format("field \"{}\" must be a list of layer indices, got {}", path_of(key),
                          shown(*value)));
    return out;
  }
  for (const auto& item : *value) {
    const bool index = item.is_number_unsigned() ||
                       (item.is_number_integer() && item.get<std::int64_t>() >= 0);
    if (!index || item.get<std::uint64_t>() >= limit) {
      fail(key, fmt::format("field \"{}\" must hold layer indices from 0 to {}, got {}",
                            path_of(key), limit - 1, shown(item)));
      return {};
    }
    out.push_back(item.get<std::uint64_t>());
  }
  return out;
}

bool field_reader::flag(std::string_view key, bool fallback) {
  const json* value = find(key);
  if (!value) return fallback;
  if (!value->is_boolean()) {
    fail(key,
         fmt::format("field \"{}\" must be true or false, got {}", path_of(key), shown(*value)));
    return fallback;
  }
  return value->get<bool>();
}

double field_reader::probability(std::string_view key, double fallback) {
  const json* value = find(key);
  if (!value) return fallback;
  if (!value->is_number() || !(value->get<double>() >= 0.0 && value->get<double>() <= 1.0)) {
    fail(key, fmt::format("field \"{}\" must be a probability from 0 to 1, got {}", path_of(key),
                          shown(*value)));
    return fallback;
  }
  return value->get<double>();
}

std::optional<double> field_reader::positive(std::string_view key) {
  const json* value = find(key);
  if (!value) return std::nullopt;
  if (!value->is_number() || !(value->get<double>() > 0.0)) {
    fail(key, fmt::format("field \"{}\" must be a positive number or null, got {}", path_of(key),
                          shown(*value)));
    return std::nullopt;
  }
  return value->get<double>();
}

std::string field_reader::text(std::string_view key, std::string fallback) {
  const json* value = find(key);
  if (!value) return fallback;
  if (!value->is_string()) {
    fail(key, fmt::format("field \"{}\" must be a string, got {}", path_of(key), shown(*value)));
    return fallback;
  }
  return value->get<std::string>();
}

std::vector<std::string> field_reader::texts(std::string_view key) {
  std::vector<std::string> out;
  const json* value = find(key);
  if (!value) return out;
  const bool strings =
      value->is_array() &&
      std::all_of(value->begin(), value->end(), [](const json& v) { return v.is_string(); });
  if (!strings) {
    fail(key, fmt::format("field \"{}\" must be a list of strings, got {}", path_of(key),
                          shown(*value)));
    return out;
  }
  for (const auto& item : *value) out.push_back(item.get<std::string>());
  return out;
}

field_reader field_reader::child(std::string_view key, const json& fallback, bool strict) {
  const json* value = find(key);
  const std::size_t at = locate(key);
  const std::size_t offset = at == std::string_view::npos ? text_offset_ : at;
  if (value && !value->is_object()) {
    fail(key, fmt::format("field \"{}\" must be an object, got {}", path_of(key), shown(*value)));
    value = nullptr;
  }
  field_reader child(*source_, value ? *value : fallback, path_of(key) + ".", strict, *errors_,
                     offset);
  child.in_text_ = value != nullptr;  // defaults have no place in the file
  return child;
}

// One fused op saves its input only; the Python-level ones of transformers' activations.py are
// chains of elementwise ops, each multiply of two tensors saving both:
//   gelu_new  0.5 x (1 + tanh(c (x + 0.044715 x^3))): x, tanh, 0.5 x, 1 + tanh
//   gelu_fast 0.5 x (1 + tanh(0.798 x (1 + 0.044715 x x))): x, 0.044715 x, 0.798 x, the
//             bracket, tanh, 0.5 x, 1 + tanh
//   quick_gelu x sigmoid(1.702 x): x, sigmoid
std::optional<std::uint32_t> activation_saved(std::string_view name) {
  static constexpr std::pair<std::string_view, std::uint32_t> known[] = {
      {"gelu", 1},  {"gelu_pytorch_tanh", 1}, {"relu", 1},      {"silu", 1},
      {"swish", 1}, {"gelu_new", 4},          {"gelu_fast", 7}, {"quick_gelu", 2},
  };
  for (const auto& [n, saved] : known)
    if (n == name) return saved;
  return std::nullopt;
}

std::uint32_t read_activation(field_reader& c, std::string_view key, std::string fallback) {
  const std::string name = c.text(key, std::move(fallback));
  if (auto saved = activation_saved(name)) return *saved;
  if (!c.failed())
    c.fail(key, fmt::format("unknown activation \"{}\": expected one of gelu, gelu_new, gelu_fast, "
                            "gelu_pytorch_tanh, quick_gelu, relu, silu",
                            name));
  return 1;
}

}  // namespace vramscope::model::detail
