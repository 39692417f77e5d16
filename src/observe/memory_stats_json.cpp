// torch.cuda.memory_stats() saved as JSON. nlohmann's SAX interface builds the document while a
// counting iterator tells where each key sits, so a value of the wrong type is reported at its
// line and column (a DOM parse would lose positions).
#include <vramscope/observe/torch_stats.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

#include "observe/python_repr.hpp"
#include "observe/text_util.hpp"
#include "observe/torch_stats_keys.hpp"

namespace vramscope::observe {

namespace {

using json = nlohmann::json;
constexpr std::size_t max_json_depth = 32;

// A char iterator that publishes how far the parser has read.
struct counting_iterator {
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* at = nullptr;
  const char** furthest = nullptr;

  reference operator*() const { return *at; }
  counting_iterator& operator++() {
    ++at;
    if (at > *furthest) *furthest = at;
    return *this;
  }
  counting_iterator operator++(int) {
    auto copy = *this;
    ++*this;
    return copy;
  }
  bool operator==(const counting_iterator& o) const { return at == o.at; }
  bool operator!=(const counting_iterator& o) const { return at != o.at; }
};

class stats_sax {
 public:
  stats_sax(std::string_view text, const std::string& source, const char** read_to)
      : text_(text), source_(source), read_to_(read_to) {}

  std::optional<diagnostic> error;
  json root;

  bool null() { return scalar(json(nullptr), "null"); }
  bool boolean(bool b) { return scalar(json(b), "a boolean"); }
  bool number_integer(json::number_integer_t n) {
    // torch reports an unset PYTORCH_CUDA_ALLOC_CONF max_split_size_mb as -1 (the allocator's
    // SIZE_MAX limit cast to int64_t in c10/cuda/CUDACachingAllocator.cpp): "no limit", kept
    // out of the figures.
    if (n == -1 && key_ == "max_split_size" && checked_key()) return true;
    if (n < 0) return scalar(json(n), "a negative number");
    return scalar(json(static_cast<std::uint64_t>(n)), nullptr);
  }
  bool number_unsigned(json::number_unsigned_t n) { return scalar(json(n), nullptr); }
  bool number_float(json::number_float_t d, const std::string&) {
    if (d >= 0 && d < 1.8e19 && d == static_cast<double>(static_cast<std::uint64_t>(d)))
      return scalar(json(static_cast<std::uint64_t>(d)), nullptr);
    return scalar(json(d), "a fraction");
  }
  bool string(json::string_t& s) { return scalar(json(s), "a string"); }
  bool binary(json::binary_t&) { return scalar(json(nullptr), "binary data"); }

  bool start_object(std::size_t) { return open(json::object(), "an object"); }
  bool start_array(std::size_t) { return open(json::array(), "a list"); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(json::string_t& k) {
    number_last_ = false;
    key_ = k;
    key_end_ = static_cast<std::size_t>(*read_to_ - text_.data());
    return true;
  }

  /// The text ended inside the document (a paste cut short): the parse failed at its last
  /// non-blank character. `root` then holds every value read before the cut.
  bool cut_off = false;

  /// After a cut: drops the last value when the text ends right after it and it is a number,
  /// which the cut may have shortened ("12" of "1234"), then any containers left empty.
  void drop_what_the_cut_may_have_shortened() {
    const std::string_view kept = trimmed(text_);
    if (number_last_ && !kept.empty() && kept.back() >= '0' && kept.back() <= '9' && !stack_.empty()) {
      json& top = *stack_.back();
      if (top.is_object()) top.erase(key_);
      else if (top.is_array() && !top.empty()) top.erase(top.size() - 1);
    }
    drop_empty_tail(root);
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    cut_off = position >= trimmed(text_).size();
    std::string what = ex.what();
    const std::size_t column = what.find(", column ");
    const std::size_t colon = column == std::string::npos ? what.find("] ") : what.find(": ", column);
    if (colon != std::string::npos) what = what.substr(colon + 2);
    const std::size_t at = position > 0 ? position - 1 : 0;
    error = detail::error_at_offset(source_, text_, at, "invalid JSON: " + what);
    return false;
  }

 private:
  static std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t'))
      text.remove_suffix(1);
    return text;
  }

  // The last member of the last container, recursively, while it is an empty object or list.
  static void drop_empty_tail(json& j) {
    if (!j.is_structured() || j.empty()) return;
    json& last = j.is_array() ? j.back() : std::prev(j.end()).value();
    drop_empty_tail(last);
    if (last.is_structured() && last.empty()) {
      if (j.is_array()) j.erase(j.size() - 1);
      else j.erase(std::prev(j.end()).key());
    }
  }

  // Where the current key starts, for the caret.
  std::size_t key_offset() const {
    const std::string quoted_key = "\"" + key_ + "\"";
    const std::size_t at = text_.rfind(quoted_key, key_end_);
    return at == std::string_view::npos ? key_end_ : at;
  }

  // The memory_stats key the current value stands for: the key itself in the flat form, or
  // joined from the enclosing groups in the nested form ("peak" in {"allocated_bytes": {"all":
  // {...}}} is "allocated_bytes.all.peak").
  std::string full_key() const {
    std::size_t group = keys_.size();
    for (std::size_t i = keys_.size(); i-- > 0;)
      if (keys_[i].find('.') == std::string::npos && detail::is_memory_stats_group(keys_[i])) {
        group = i;
        break;
      }
    std::string full;
    for (std::size_t i = group; i < keys_.size(); ++i) full += keys_[i] + ".";
    return full + key_;
  }

  bool checked_key() const {
    if (stack_.empty() || !stack_.back()->is_object()) return false;
    const std::string full = full_key();
    return detail::is_memory_stats_key(full) || detail::is_meta_key(key_);
  }

  bool fail_type(const char* got) {
    error = detail::error_at_offset(source_, text_, key_offset(),
                                    fmt::format("\"{}\" must be a whole number of bytes or a count, got {}",
                                                full_key(), got));
    return false;
  }

  bool insert(json value) {
    if (stack_.empty()) {
      root = std::move(value);
      return true;
    }
    json& top = *stack_.back();
    if (top.is_object()) top[key_] = std::move(value);
    else top.push_back(std::move(value));
    return true;
  }

  json* inserted() {
    json& top = *stack_.back();
    return top.is_object() ? &top[key_] : &top.back();
  }

  // `bad`: why this value cannot be a memory_stats figure (nullptr when it can).
  bool scalar(json value, const char* bad) {
    number_last_ = value.is_number();
    if (bad && checked_key()) return fail_type(bad);
    return insert(std::move(value));
  }

  bool open(json value, const char* what) {
    number_last_ = false;
    if (checked_key() && !detail::is_memory_stats_group(full_key())) return fail_type(what);
    if (stack_.size() >= max_json_depth) {
      error = detail::error_at_offset(source_, text_, static_cast<std::size_t>(*read_to_ - text_.data()) - 1,
                                      fmt::format("JSON nested deeper than {} levels", max_json_depth));
      return false;
    }
    if (stack_.empty()) {
      root = std::move(value);
      stack_.push_back(&root);
      keys_.emplace_back();
    } else {
      keys_.push_back(stack_.back()->is_object() ? key_ : std::string());
      insert(std::move(value));
      stack_.push_back(inserted());
    }
    return true;
  }

  bool close() {
    number_last_ = false;
    stack_.pop_back();
    keys_.pop_back();
    return true;
  }

  std::string_view text_;
  const std::string& source_;
  const char** read_to_;
  std::vector<json*> stack_;
  std::vector<std::string> keys_;  // the key each open container was entered by ("" for none)
  std::string key_;
  std::size_t key_end_ = 0;
  bool number_last_ = false;  // the last event was a number (which a cut may have shortened)
};

struct interpreter {
  const std::string& source;
  warnings& warns;
  std::vector<torch_stats> out;

  static std::optional<int> small_int(const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_unsigned() || it->get<std::uint64_t>() > 1'000'000) return std::nullopt;
    return static_cast<int>(it->get<std::uint64_t>());
  }

  // torch.cuda.memory_stats_as_nested_dict(): {"allocated_bytes": {"all": {"peak": N}}}.
  void collect_nested(const std::string& prefix, const json& group, torch_stats& s, const std::string& where) {
    for (const auto& [key, value] : group.items()) {
      const std::string full = prefix + "." + key;
      if (value.is_object() && detail::is_memory_stats_group(full)) collect_nested(full, value, s, where);
      else if (detail::is_memory_stats_key(full) && value.is_number_unsigned()) s.raw[full] = value.get<std::uint64_t>();
      else warns.push_back(error_at(source, fmt::format("{}key \"{}\" is not a memory_stats key; skipped", where, full)));
    }
  }

  status entry(const json& obj, std::optional<int> rank_hint, const std::string& where) {
    const json* stats = &obj;
    for (const char* nested : {"stats", "memory_stats"})
      if (auto it = obj.find(nested); it != obj.end() && it->is_object()) stats = &*it;
    torch_stats s;
    s.source = source;
    s.rank = small_int(obj, "rank");
    if (!s.rank) s.rank = small_int(obj, "global_rank");
    if (!s.rank) s.rank = rank_hint;
    s.device = small_int(obj, "device");
    if (!s.device && stats != &obj) s.device = small_int(*stats, "device");
    for (const auto& [key, value] : stats->items()) {
      if (value.is_object() && detail::is_memory_stats_group(key)) collect_nested(key, value, s, where);
      else if (detail::is_memory_stats_key(key) && value.is_number_unsigned()) s.raw[key] = value.get<std::uint64_t>();
      else if (!detail::is_meta_key(key) && key != "stats" && key != "memory_stats")
        warns.push_back(error_at(source, fmt::format("{}key \"{}\" is not a memory_stats key; skipped", where, key)));
    }
    if (s.raw.empty())
      return error_at(source, fmt::format("{}no memory_stats keys found (expected keys such as "
                                          "\"allocated_bytes.all.peak\")", where));
    detail::fill_from_raw(s);
    out.push_back(std::move(s));
    return ok();
  }

  static bool keyed_by_rank(const json& obj) {
    if (obj.empty()) return false;
    for (const auto& [key, value] : obj.items())
      if (!detail::is_digits(key) || key.size() > 6 || !value.is_object()) return false;
    return true;
  }

  status top(const json& root) {
    if (root.is_array()) {
      for (std::size_t i = 0; i < root.size(); ++i) {
        const std::string where = fmt::format("element {} of the list: ", i);
        if (!root[i].is_object())
          return error_at(source, where + "expected an object of memory_stats keys");
        auto st = entry(root[i], static_cast<int>(i), where);
        if (!st) return st;
      }
      return ok();
    }
    if (!root.is_object())
      return error_at(source, "expected a JSON object of memory_stats keys, or a list of them");
    if (keyed_by_rank(root)) {
      for (const auto& [key, value] : root.items()) {
        auto st = entry(value, std::stoi(key), fmt::format("rank \"{}\": ", key));
        if (!st) return st;
      }
      return ok();
    }
    return entry(root, rank_from_file_name(source), "");
  }
};

// The figures torch_stats names (allocated, active, reserved, inactive_split: every release
// since torch 1.4 has them), as memory_stats keys.
constexpr std::string_view headline_keys[] = {
    "allocated_bytes.all.current", "allocated_bytes.all.peak", "active_bytes.all.current",
    "active_bytes.all.peak",       "reserved_bytes.all.current", "reserved_bytes.all.peak",
    "inactive_split_bytes.all.current",
};

// JSON cut short: each entry keeps what was read before the cut and names the headline figures
// it lacks; one warning at the cut says so.
void note_cut(const diagnostic& at, std::vector<torch_stats>& out, warnings& warns) {
  std::vector<std::string> lacking;
  for (auto& s : out) {
    s.cut = true;
    s.cut_at_line = at.line;
    for (const auto key : headline_keys)
      if (!s.raw.count(std::string(key))) s.missing.emplace_back(key);
    if (s.missing.empty()) continue;
    lacking.push_back(fmt::format("{}{}", s.rank ? fmt::format("rank {}: ", *s.rank) : "",
                                  fmt::join(s.missing, ", ")));
  }
  diagnostic d = at;
  d.message = "memory_stats JSON is cut off here: the figures before the cut are read, any after it are "
              "not in the paste (unknown, not 0)";
  if (!lacking.empty()) d.message += fmt::format("; missing {}", fmt::join(lacking, "; "));
  if (std::any_of(out.begin(), out.end(), [](const torch_stats& s) { return !s.reserved.peak; }))
    d.message += "; without reserved the cache (reserved - allocated) and fragmentation cannot be computed";
  warns.push_back(std::move(d));
}

}  // namespace

result<std::vector<torch_stats>> parse_memory_stats_json(std::string_view text,
                                                         const std::string& source,
                                                         warnings& found_warnings) {
  // print(torch.cuda.memory_stats()): Python's repr, rewritten as JSON line for line.
  // Its diagnostics quote the pasted line; their columns, counted in the JSON, are dropped.
  if (detail::looks_like_python_repr(text)) {
    auto converted = detail::python_repr_as_json(text, source);
    if (!converted) return converted.error();
    const auto lines = detail::split_lines(text);
    const auto quote_paste = [&](diagnostic& d) {
      if (d.line <= 0 || static_cast<std::size_t>(d.line) > lines.size()) return;
      d = detail::error_on_line(source, lines[static_cast<std::size_t>(d.line) - 1], 0, std::move(d.message));
    };
    const std::size_t before = found_warnings.size();
    auto stats = parse_memory_stats_json(*converted, source, found_warnings);
    for (std::size_t i = before; i < found_warnings.size(); ++i) quote_paste(found_warnings[i]);
    if (!stats) {
      diagnostic e = stats.error();
      quote_paste(e);
      return e;
    }
    return stats;
  }
  const char* read_to = text.data();
  stats_sax sax(text, source, &read_to);
  const counting_iterator first{text.data(), &read_to};
  const counting_iterator last{text.data() + text.size(), &read_to};
  const bool parsed = json::sax_parse(first, last, &sax);
  if ((!parsed || sax.error) && !sax.cut_off) {
    if (sax.error) return *sax.error;
    return error_at(source, "invalid JSON");
  }
  if (sax.cut_off) sax.drop_what_the_cut_may_have_shortened();
  interpreter in{source, found_warnings, {}};
  auto st = in.top(sax.root);
  if (!st) {
    if (!sax.cut_off) return st.error();
    diagnostic e = st.error();
    e.message += fmt::format(" (the text is cut off at line {})", sax.error->line);
    return e;
  }
  if (sax.cut_off) note_cut(*sax.error, in.out, found_warnings);
  return std::move(in.out);
}

}  // namespace vramscope::observe
