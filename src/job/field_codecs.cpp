#include "job/field_codecs.hpp"

#include <vramscope/job/job_names.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace vramscope::job::detail {

namespace {

std::string got(const raw_value& v) {
  return v.is_list ? "a list" : fmt::format("\"{}\"", v.text);
}

std::string out_of_range(std::string_view text, std::string_view range) {
  return fmt::format("{} is out of range (expected {})", text, range);
}

// `text` as a finite number (the whole of it), or nullopt.
std::optional<double> finite_number(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double d = s.empty() ? std::nan("") : std::strtod(s.c_str(), &end);
  if (std::isnan(d) || end != s.c_str() + s.size() || std::isinf(d)) return std::nullopt;
  return d;
}

std::string invalid(std::string_view text, const std::vector<std::string>& allowed) {
  return fmt::format("invalid value \"{}\" (expected one of: {})", text, join(allowed));
}

// Wraps a scalar-only parser so that lists are rejected with the codec's description.
template <typename T, typename F>
codec<T> scalar(std::string expects, F parse_text, std::function<nlohmann::json(const T&)> show,
                std::vector<std::string> choices = {}, std::string allowed = "") {
  codec<T> c;
  c.expects = expects;
  c.allowed = allowed.empty() ? expects : std::move(allowed);
  c.choices = std::move(choices);
  c.parse = [expects, parse_text](const raw_value& v, T& out) -> std::string {
    if (v.is_list) return fmt::format("expected {}, got a list", expects);
    return parse_text(v.text, out);
  };
  c.show = std::move(show);
  return c;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::string dtype_names(const std::vector<dtype>& allowed, std::vector<std::string>& names) {
  for (dtype t : allowed) names.emplace_back(name_of(t));
  return "one of: " + join(names);
}

}  // namespace

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
  return out;
}

// core's parse_bytes hands its number to std::stod, which throws on "." or a 400-digit
// number; only let through a short number that has at least one digit.
bool parse_size_text(std::string_view text, bytes& out) {
  const auto end = std::find_if(text.begin(), text.end(), [](unsigned char c) {
    return std::isdigit(c) == 0 && c != '.' && std::isspace(c) == 0;
  });
  const std::string_view number = text.substr(0, static_cast<std::size_t>(end - text.begin()));
  if (number.size() > 24 || std::none_of(number.begin(), number.end(), [](unsigned char c) {
        return std::isdigit(c) != 0;
      }))
    return false;
  return parse_bytes(text, out);
}

std::string parse_bool_text(std::string_view text, bool& out) {
  const std::string t = lower_case(text);
  const bool yes = t == "true" || t == "yes" || t == "on" || t == "1";
  const bool no = t == "false" || t == "no" || t == "off" || t == "0";
  if (!yes && !no) return fmt::format("expected true or false, got \"{}\"", text);
  out = yes;
  return "";
}

// Integers may be written plainly or, as DeepSpeed configs do, in exponent form ("5e8").
std::string parse_count_text(std::string_view text, std::uint64_t min, std::uint64_t max,
                             std::uint64_t& out) {
  const std::string range = fmt::format("{} to {}", min, max);
  std::uint64_t value = 0;
  if (all_digits(text)) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) return out_of_range(text, range);
  } else {
    const std::string s(text);
    char* end = nullptr;
    const double d = s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))
                         ? std::nan("")
                         : std::strtod(s.c_str(), &end);
    if (std::isnan(d) || end != s.c_str() + s.size() || d != std::floor(d))
      return fmt::format("expected a whole number, got \"{}\"", text);
    if (d > 1.8e19) return out_of_range(text, range);
    value = static_cast<std::uint64_t>(d);
  }
  if (value < min || value > max) return out_of_range(text, range);
  out = value;
  return "";
}

codec<int> int_codec(int min, int max) {
  auto parse = [min, max](std::string_view text, int& out) -> std::string {
    std::string_view digits = text.substr(!text.empty() && text[0] == '-' ? 1 : 0);
    if (!all_digits(digits)) return fmt::format("expected an integer, got \"{}\"", text);
    long long value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || value < min || value > max)
      return out_of_range(text, fmt::format("{} to {}", min, max));
    out = static_cast<int>(value);
    return "";
  };
  return scalar<int>("an integer", parse, [](const int& v) { return nlohmann::json(v); }, {},
                     fmt::format("an integer, {} to {}", min, max));
}

codec<std::uint64_t> count_codec(std::uint64_t min, std::uint64_t max) {
  auto parse = [min, max](std::string_view text, std::uint64_t& out) {
    return parse_count_text(text, min, max, out);
  };
  return scalar<std::uint64_t>(
      "a whole number", parse, [](const std::uint64_t& v) { return nlohmann::json(v); }, {},
      fmt::format("a whole number, {} to {}", min, max));
}

codec<double> real_codec(double min_exclusive, double max) {
  auto parse = [min_exclusive, max](std::string_view text, double& out) -> std::string {
    const auto d = finite_number(text);
    if (!d) return fmt::format("expected a number, got \"{}\"", text);
    if (!(*d > min_exclusive) || *d > max)
      return out_of_range(text, fmt::format("more than {} and at most {}", min_exclusive, max));
    out = *d;
    return "";
  };
  return scalar<double>(
      "a number", parse, [](const double& v) { return nlohmann::json(v); }, {},
      fmt::format("a number, more than {} and at most {}", min_exclusive, max));
}

codec<std::optional<double>> optional_real_codec(double min_exclusive, double max,
                                                 std::string unset_word) {
  const auto number = real_codec(min_exclusive, max);
  auto parse = [min_exclusive, max, unset_word](std::string_view text,
                                                std::optional<double>& out) -> std::string {
    if (lower_case(text) == unset_word) {
      out = std::nullopt;
      return "";
    }
    const auto d = finite_number(text);
    if (!d) return fmt::format("expected a number or {}, got \"{}\"", unset_word, text);
    if (!(*d > min_exclusive) || *d > max)
      return out_of_range(
          text, fmt::format("more than {} and at most {}, or {}", min_exclusive, max, unset_word));
    out = *d;
    return "";
  };
  return scalar<std::optional<double>>(
      "a number or " + unset_word, parse,
      [unset_word](const std::optional<double>& v) {
        return v ? nlohmann::json(*v) : nlohmann::json(unset_word);
      },
      {}, number.allowed + ", or " + unset_word);
}

codec<double> probability_codec() {
  auto parse = [](std::string_view text, double& out) -> std::string {
    const auto d = finite_number(text);
    if (!d) return fmt::format("expected a number, got \"{}\"", text);
    if (*d < 0 || *d > 1) return out_of_range(text, "from 0 to 1");
    out = *d;
    return "";
  };
  return scalar<double>(
      "a number", parse, [](const double& v) { return nlohmann::json(v); }, {},
      "a probability from 0 to 1");
}

codec<bool> bool_codec() {
  return scalar<bool>(
      "true or false", parse_bool_text, [](const bool& v) { return nlohmann::json(v); },
      {"true", "false"});
}

codec<std::optional<bool>> optional_bool_codec() {
  auto parse = [](std::string_view text, std::optional<bool>& out) -> std::string {
    if (lower_case(text) == "default") {
      out = std::nullopt;
      return "";
    }
    bool value = false;
    if (!parse_bool_text(text, value).empty())
      return fmt::format("expected true, false or default, got \"{}\"", text);
    out = value;
    return "";
  };
  return scalar<std::optional<bool>>("true, false or default", parse,
                                     [](const std::optional<bool>& v) {
                                       return v ? nlohmann::json(*v) : nlohmann::json("default");
                                     },
                                     {"true", "false", "default"});
}

codec<std::string> string_codec(bool allow_empty) {
  auto parse = [allow_empty](std::string_view text, std::string& out) -> std::string {
    if (text.empty() && !allow_empty) return "expected a non-empty string";
    out = std::string(text);
    return "";
  };
  return scalar<std::string>("a string", parse,
                             [](const std::string& v) { return nlohmann::json(v); });
}

codec<std::string> choice_codec(std::vector<std::string> allowed) {
  auto parse = [allowed](std::string_view text, std::string& out) -> std::string {
    const std::string t = lower_case(text);
    if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) return invalid(text, allowed);
    out = t;
    return "";
  };
  return scalar<std::string>(
      "one of: " + join(allowed), parse, [](const std::string& v) { return nlohmann::json(v); },
      allowed);
}

// "2.6", "2.6.0", "0.4.35", "12.4", "2.6.0.dev20241112": at least MAJOR.MINOR in digits.
codec<std::string> version_codec(bool allow_empty) {
  auto parse = [allow_empty](std::string_view text, std::string& out) -> std::string {
    if (text.empty() && allow_empty) {
      out.clear();
      return "";
    }
    const auto dot = text.find('.');
    const std::string_view major = text.substr(0, dot);
    const std::string_view rest = dot == std::string_view::npos ? "" : text.substr(dot + 1);
    const std::string_view minor = rest.substr(0, std::min(rest.find('.'), rest.find('+')));
    if (!all_digits(major) || !all_digits(minor))
      return fmt::format("expected a version such as \"2.6\", got \"{}\"", text);
    out = std::string(text);
    return "";
  };
  return scalar<std::string>("a version such as \"2.6\"", parse,
                             [](const std::string& v) { return nlohmann::json(v); });
}

codec<bytes> size_codec(bytes min) {
  auto parse = [min](std::string_view text, bytes& out) -> std::string {
    bytes value = 0;
    if (!parse_size_text(text, value))
      return fmt::format("expected a size such as 80GiB or 512MiB, got \"{}\"", text);
    if (value < min) return out_of_range(text, "at least " + format_bytes(min));
    out = value;
    return "";
  };
  return scalar<bytes>("a size such as 80GiB", parse,
                       [](const bytes& v) { return nlohmann::json(v); });
}

codec<safety_margin> margin_codec() {
  auto parse = [](std::string_view text, safety_margin& out) -> std::string {
    if (lower_case(text) == "default") {
      out = safety_margin{};
      return "";
    }
    if (!text.empty() && text.back() == '%') {
      const auto d = finite_number(text.substr(0, text.size() - 1));
      if (!d)
        return fmt::format("expected default, a share such as 10% or a size, got \"{}\"", text);
      if (*d < 0 || *d > 50) return out_of_range(text, "from 0% to 50%");
      out = safety_margin{*d / 100, 0};
      return "";
    }
    bytes value = 0;
    if (!parse_size_text(text, value))
      return fmt::format("expected default, a share such as 10% or a size such as 2GiB, got \"{}\"",
                         text);
    out = safety_margin{0, value};
    return "";
  };
  auto show = [](const safety_margin& m) -> nlohmann::json {
    if (m == safety_margin{}) return "default";
    if (m.fraction > 0) return fmt::format("{:g}%", m.fraction * 100);
    return m.at_least;
  };
  return scalar<safety_margin>("default, a share such as 10% or a size such as 2GiB", parse, show,
                               {}, "default (5 %, at least 1 GiB), 0% to 50%, or a size");
}

codec<dtype> dtype_codec(std::vector<dtype> allowed) {
  std::vector<std::string> names;
  const std::string expects = dtype_names(allowed, names);
  auto parse = [allowed, names](std::string_view text, dtype& out) -> std::string {
    const auto t = parse_dtype(text);
    if (!t || std::find(allowed.begin(), allowed.end(), *t) == allowed.end())
      return invalid(text, names);
    out = *t;
    return "";
  };
  return scalar<dtype>(
      expects, parse, [](const dtype& v) { return nlohmann::json(std::string(name_of(v))); },
      names);
}

codec<std::optional<dtype>> optional_dtype_codec(std::vector<dtype> allowed) {
  std::vector<std::string> names{"none"};
  const std::string expects = dtype_names(allowed, names);
  auto parse = [allowed, names](std::string_view text, std::optional<dtype>& out) -> std::string {
    if (lower_case(text) == "none") {
      out = std::nullopt;
      return "";
    }
    const auto t = parse_dtype(text);
    if (!t || std::find(allowed.begin(), allowed.end(), *t) == allowed.end())
      return invalid(text, names);
    out = *t;
    return "";
  };
  return scalar<std::optional<dtype>>(
      expects, parse,
      [](const std::optional<dtype>& v) {
        return nlohmann::json(v ? std::string(name_of(*v)) : "none");
      },
      names);
}

// A YAML sequence, or one scalar holding a comma-separated list ("q_proj,v_proj").
codec<std::vector<std::string>> list_codec(bool allow_empty) {
  codec<std::vector<std::string>> c;
  c.expects = "a list of names";
  c.allowed = "a list of names, \"a,b\" or [a, b]";
  c.parse = [allow_empty](const raw_value& v, std::vector<std::string>& out) -> std::string {
    std::vector<std::string> items = v.items;
    if (!v.is_list && v.text.empty() && allow_empty) {
      out.clear();
      return "";
    }
    if (!v.is_list) {
      items.clear();
      std::string item;
      for (char ch : v.text + ",") {
        if (ch != ',') { item += ch; continue; }
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        items.push_back(item);
        item.clear();
      }
    }
    for (const auto& item : items)
      if (item.empty()) return fmt::format("expected a list of names, got an empty name in {}", got(v));
    out = items;
    return "";
  };
  c.show = [](const std::vector<std::string>& v) { return nlohmann::json(v); };
  return c;
}

codec<int> reshard_codec() {
  auto parse = [](std::string_view text, int& out) -> std::string {
    bool flag = false;
    if (!all_digits(text) && parse_bool_text(text, flag).empty()) {
      out = flag ? 1 : 0;
      return "";
    }
    std::uint64_t n = 0;
    if (!all_digits(text))
      return fmt::format("expected true, false or a group size N >= 2, got \"{}\"", text);
    if (!parse_count_text(text, 0, 1 << 20, n).empty())
      return out_of_range(text, "true, false or 2 to 1048576");
    out = static_cast<int>(n);
    return "";
  };
  return scalar<int>("true, false or a group size N >= 2", parse, [](const int& v) {
    return v == 1 ? nlohmann::json(true) : v == 0 ? nlohmann::json(false) : nlohmann::json(v);
  });
}

codec<int> compute_capability_codec() {
  auto parse = [](std::string_view text, int& out) -> std::string {
    std::string t = lower_case(text);
    if (t.rfind("sm_", 0) == 0) t = t.substr(3);
    else if (t.rfind("sm", 0) == 0) t = t.substr(2);
    const auto dot = t.find('.');
    const std::string major = t.substr(0, dot);
    const std::string minor = dot == std::string::npos ? "" : t.substr(dot + 1);
    const bool dotted = dot != std::string::npos && all_digits(major) && minor.size() == 1 &&
                        all_digits(minor) && major.size() <= 2;
    const bool packed = dot == std::string::npos && all_digits(t) && t.size() >= 2 && t.size() <= 3;
    if (!dotted && !packed)
      return fmt::format("expected a compute capability such as \"9.0\" or \"sm_90\", got \"{}\"",
                         text);
    const int value = dotted ? std::stoi(major) * 10 + std::stoi(minor) : std::stoi(t);
    if (value < 50 || value > 199) return out_of_range(text, "5.0 to 19.9");
    out = value;
    return "";
  };
  return scalar<int>("a compute capability such as \"9.0\"", parse, [](const int& v) {
    return nlohmann::json(fmt::format("{}.{}", v / 10, v % 10));
  });
}

template <typename Enum>
codec<Enum> enum_codec() {
  const std::vector<std::string> names = enum_names<Enum>();
  auto parse = [names](std::string_view text, Enum& out) -> std::string {
    const auto v = parse_enum<Enum>(text);
    if (!v) return invalid(text, names);
    out = *v;
    return "";
  };
  return scalar<Enum>(
      "one of: " + join(names), parse,
      [](const Enum& v) { return nlohmann::json(std::string(name_of(v))); }, names);
}

template codec<strategy> enum_codec<strategy>();
template codec<sharding> enum_codec<sharding>();
template codec<prefetch> enum_codec<prefetch>();
template codec<optimizer_kind> enum_codec<optimizer_kind>();
template codec<checkpointing> enum_codec<checkpointing>();
template codec<attention_impl> enum_codec<attention_impl>();
template codec<loss_impl> enum_codec<loss_impl>();
template codec<model_impl> enum_codec<model_impl>();
template codec<float8_recipe> enum_codec<float8_recipe>();
template codec<pp_schedule> enum_codec<pp_schedule>();
template codec<weight_load> enum_codec<weight_load>();
template codec<state_dict_kind> enum_codec<state_dict_kind>();

}  // namespace vramscope::job::detail
