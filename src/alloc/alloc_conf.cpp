// parse_alloc_conf: PYTORCH_CUDA_ALLOC_CONF, tokenised as upstream's lexArgs does (',' ':' '['
// ']' are tokens, spaces are dropped) and checked key by key with the limits upstream enforces
// (c10/core/AllocatorConfig.cpp, c10/cuda/CUDAAllocatorConfig.cpp), but with messages that name
// the key, the expectation and the column instead of upstream's exceptions.

#include <vramscope/alloc/caching_options.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <string>
#include <vector>

namespace vramscope::alloc {
namespace {

struct token {
  std::string text;
  int column;  // 1-based
};

std::vector<token> lex(std::string_view conf) {
  std::vector<token> tokens;
  std::string word;
  int word_column = 0;
  for (std::size_t i = 0; i < conf.size(); ++i) {
    const char c = conf[i];
    const int column = static_cast<int>(i) + 1;
    if (c == ',' || c == ':' || c == '[' || c == ']') {
      if (!word.empty()) tokens.push_back({std::move(word), word_column});
      word.clear();
      tokens.push_back({std::string(1, c), column});
    } else if (c != ' ') {
      if (word.empty()) word_column = column;
      word += c;
    }
  }
  if (!word.empty()) tokens.push_back({std::move(word), word_column});
  return tokens;
}

bool parse_whole(const std::string& text, std::uint64_t& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc{} && ptr == end;
}

bool parse_real(const std::string& text, double& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc{} && ptr == end;
}

bool is_power_of_two(std::uint64_t n) { return std::has_single_bit(n); }

class conf_parser {
 public:
  conf_parser(std::string_view conf, warnings* sink)
      : conf_(conf), tokens_(lex(conf)), warnings_(sink) {}

  result<caching_allocator_options> parse() {
    for (i_ = 0; i_ < tokens_.size(); ++i_) {
      if (auto st = parse_option(); !st) return st.error();
      if (i_ + 1 < tokens_.size() && tokens_[i_ + 1].text != ",")
        return fail(i_ + 1, fmt::format("expected \",\" after the value of \"{}\", got \"{}\"",
                                        key_, tokens_[i_ + 1].text));
      ++i_;  // the comma
    }
    if (options_.backend == alloc_backend::cuda_malloc_async && native_option_column_ > 0)
      warn(native_option_column_,
           "backend:cudaMallocAsync ignores max_split_size_mb, max_non_split_rounding_mb, "
           "roundup_power2_divisions, garbage_collection_threshold and expandable_segments");
    return options_;
  }

 private:
  using handler = status (conf_parser::*)();
  struct key_entry {
    std::string_view key;
    handler parse;
    bool native_only;  // ignored by backend:cudaMallocAsync
  };
  static const std::vector<key_entry>& keys();

  // --- one option: key ':' value ---
  status parse_option() {
    const token& key = tokens_[i_];
    if (key.text.size() == 1 && std::string_view(",:[]").find(key.text[0]) != std::string::npos)
      return fail(i_, fmt::format("expected an option name, got \"{}\"", key.text));
    key_ = key.text;
    key_index_ = i_;
    const auto& table = keys();
    auto entry =
        std::find_if(table.begin(), table.end(), [&](const key_entry& e) { return e.key == key_; });
    if (entry == table.end()) return unknown_key();
    if (i_ + 1 >= tokens_.size() || tokens_[i_ + 1].text != ":")
      return fail(i_ + 1, fmt::format("expected \":\" after \"{}\"", key_));
    i_ += 2;
    if (i_ >= tokens_.size() || tokens_[i_].text == ",")
      return fail(i_, fmt::format("{}: expected a value after \":\"", key_));
    if (entry->native_only && native_option_column_ == 0) native_option_column_ = key.column;
    return (this->*(entry->parse))();
  }

  status unknown_key() {
    std::vector<std::string> names;
    for (const auto& e : keys()) names.emplace_back(e.key);
    const std::string guess = did_you_mean(key_, names);
    if (!guess.empty())
      return fail(i_, fmt::format("unknown option \"{}\" (did you mean \"{}\"?)", key_, guess));
    return fail(i_, fmt::format("unknown option \"{}\" (not a PYTORCH_CUDA_ALLOC_CONF key)", key_));
  }

  // --- value parsers; i_ is on the value token ---
  status parse_megabytes(bytes& out, std::uint64_t minimum) {
    std::uint64_t mb = 0;
    if (!parse_whole(value(), mb))
      return fail(i_, fmt::format("{}: expected a whole number of MiB, got \"{}\"", key_, value()));
    if (mb < minimum)
      return fail(i_, fmt::format("{}: must be at least {} (MiB), got {}", key_, minimum, mb));
    out = mb > unlimited_split / MiB ? unlimited_split : mb * MiB;
    return ok();
  }
  status max_split_size() {
    return parse_megabytes(options_.max_split_size, large_segment_size / MiB);
  }
  status max_non_split_rounding() {
    return parse_megabytes(options_.max_non_split_rounding, large_segment_size / MiB);
  }

  status garbage_collection_threshold() {
    double v = 0;
    if (!parse_real(value(), v) || !(v > 0.0 && v < 1.0))
      return fail(i_, fmt::format("{}: expected a number strictly between 0.0 and 1.0, got \"{}\"",
                                  key_, value()));
    options_.garbage_collection_threshold = v;
    return ok();
  }

  status parse_bool(bool& out) {
    if (value() != "True" && value() != "False")
      return fail(i_, fmt::format("{}: expected True or False, got \"{}\"", key_, value()));
    out = value() == "True";
    return ok();
  }
  status expandable_segments() { return parse_bool(options_.expandable_segments); }
  status release_lock() { return parse_bool(options_.release_lock_on_cudamalloc); }

  status backend() {
    if (value() != "native" && value() != "cudaMallocAsync")
      return fail(i_,
                  fmt::format("{}: expected native or cudaMallocAsync, got \"{}\"", key_, value()));
    options_.backend =
        value() == "native" ? alloc_backend::native : alloc_backend::cuda_malloc_async;
    return ok();
  }

  status roundup_power2_divisions();
  status roundup_list();
  status roundup_list_entry(std::size_t& last_index, bool& first);

  // --- accepted, checked, ignored ---
  status ignored_bool() {
    bool unused = false;
    if (auto st = parse_bool(unused); !st) return st;
    return ignored();
  }
  status ignored_register_threads() {
    std::uint64_t n = 0;
    // pinned_max_register_threads() is 128 upstream.
    if (!parse_whole(value(), n) || !is_power_of_two(n) || n > 128)
      return fail(i_,
                  fmt::format("{}: expected a power of 2 up to 128, got \"{}\"", key_, value()));
    return ignored();
  }
  status ignored_megabytes() {
    std::uint64_t n = 0;
    if (!parse_whole(value(), n) || n == 0)
      return fail(i_, fmt::format("{}: expected a whole number of MiB greater than 0, got \"{}\"",
                                  key_, value()));
    return ignored();
  }
  status ignored() {
    const bool graphs = key_ == "graph_capture_record_stream_reuse";
    warn(tokens_[key_index_].column,
         fmt::format("{} affects {} only; ignored", key_,
                     graphs ? "CUDA graph capture" : "pinned host memory"));
    return ok();
  }

  // --- helpers ---
  [[nodiscard]] const std::string& value() const { return tokens_[i_].text; }
  [[nodiscard]] int column_of(std::size_t index) const {
    if (index < tokens_.size()) return tokens_[index].column;
    return static_cast<int>(conf_.size()) + 1;  // just past the end
  }
  diagnostic fail(std::size_t index, std::string message) const {
    return diagnostic{"PYTORCH_CUDA_ALLOC_CONF", 1, column_of(index), std::move(message),
                      std::string(conf_)};
  }
  void warn(int column, std::string message) const {
    if (warnings_ != nullptr)
      warnings_->push_back(
          diagnostic{"PYTORCH_CUDA_ALLOC_CONF", 1, column, std::move(message), std::string(conf_)});
  }

  std::string_view conf_;
  std::vector<token> tokens_;
  warnings* warnings_;
  std::size_t i_ = 0;
  std::string key_;
  std::size_t key_index_ = 0;
  int native_option_column_ = 0;
  caching_allocator_options options_;
};

const std::vector<conf_parser::key_entry>& conf_parser::keys() {
  static const std::vector<key_entry> table = {
      {"max_split_size_mb", &conf_parser::max_split_size, true},
      {"max_non_split_rounding_mb", &conf_parser::max_non_split_rounding, true},
      {"roundup_power2_divisions", &conf_parser::roundup_power2_divisions, true},
      {"garbage_collection_threshold", &conf_parser::garbage_collection_threshold, true},
      {"expandable_segments", &conf_parser::expandable_segments, true},
      {"backend", &conf_parser::backend, false},
      {"release_lock_on_cudamalloc", &conf_parser::release_lock, true},
      {"release_lock_on_hipmalloc", &conf_parser::release_lock, true},
      {"pinned_use_cuda_host_register", &conf_parser::ignored_bool, true},
      {"pinned_use_hip_host_register", &conf_parser::ignored_bool, true},
      {"pinned_use_background_threads", &conf_parser::ignored_bool, true},
      {"pinned_num_register_threads", &conf_parser::ignored_register_threads, true},
      {"pinned_reserve_segment_size_mb", &conf_parser::ignored_megabytes, true},
      {"graph_capture_record_stream_reuse", &conf_parser::ignored_bool, true},
  };
  return table;
}

// roundup_power2_divisions:4 sets every interval; the list form [256:1,512:2,>:8] sets the
// interval of each key (MiB, a power of 2, interval index log2(key)), fills the intervals below
// the first key with its value, and `>` fills from the last key's interval upward. That last
// fill includes the last key's own interval, as upstream's std::fill from last_index does.
status conf_parser::roundup_power2_divisions() {
  if (value() == "[") return roundup_list();
  std::uint64_t divisions = 0;
  if (!parse_whole(value(), divisions))
    return fail(i_, fmt::format("{}: expected a power of 2 or a list such as [256:1,512:2,>:8], "
                                "got \"{}\"",
                                key_, value()));
  if (!is_power_of_two(divisions))
    return fail(i_, fmt::format("{}: divisions must be a power of 2, got {}", key_, divisions));
  options_.roundup_power2_divisions.fill(static_cast<std::uint32_t>(divisions));
  return ok();
}

status conf_parser::roundup_list() {
  std::size_t last_index = 0;
  bool first = true;
  ++i_;
  while (true) {
    if (i_ >= tokens_.size())
      return fail(i_, fmt::format("{}: missing \"]\" at the end of the list", key_));
    if (value() == "]") return ok();
    if (auto st = roundup_list_entry(last_index, first); !st) return st;
    ++i_;
    if (i_ < tokens_.size() && value() == ",")
      ++i_;
    else if (i_ < tokens_.size() && value() != "]")
      return fail(
          i_, fmt::format("{}: expected \",\" or \"]\" in the list, got \"{}\"", key_, value()));
  }
}

status conf_parser::roundup_list_entry(std::size_t& last_index, bool& first) {
  const std::string interval = value();
  const std::size_t interval_token = i_;
  if (i_ + 1 >= tokens_.size() || tokens_[i_ + 1].text != ":")
    return fail(i_ + 1, fmt::format("{}: expected \":\" after interval \"{}\"", key_, interval));
  i_ += 2;
  std::uint64_t divisions = 0;
  if (i_ >= tokens_.size() || !parse_whole(value(), divisions) ||
      (divisions != 0 && !is_power_of_two(divisions)))
    return fail(i_, fmt::format("{}: divisions must be a power of 2 or 0, got \"{}\"", key_,
                                i_ < tokens_.size() ? value() : ""));
  auto& table = options_.roundup_power2_divisions;
  const auto d = static_cast<std::uint32_t>(divisions);
  if (interval == ">") {
    std::fill(table.begin() + static_cast<std::ptrdiff_t>(last_index), table.end(), d);
    return ok();
  }
  std::uint64_t mb = 0;
  if (!parse_whole(interval, mb) || !is_power_of_two(mb))
    return fail(interval_token, fmt::format("{}: interval must be a power of 2 (MiB) or \">\", "
                                            "got \"{}\"",
                                            key_, interval));
  const std::size_t index =
      std::min<std::size_t>(static_cast<std::size_t>(std::countr_zero(mb)), roundup_intervals - 1);
  if (first) std::fill(table.begin(), table.begin() + static_cast<std::ptrdiff_t>(index), d);
  first = false;
  table[index] = d;
  last_index = index;
  return ok();
}

}  // namespace

result<caching_allocator_options> parse_alloc_conf(std::string_view conf, warnings* warnings_out) {
  return conf_parser(conf, warnings_out).parse();
}

}  // namespace vramscope::alloc
