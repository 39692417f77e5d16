// The allocator event log: CSV writer, CSV reader with located diagnostics, and replay.

#include <vramscope/alloc/event_log.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <unordered_map>

#include <vramscope/core/io.hpp>

namespace vramscope::alloc {
namespace {

constexpr std::string_view header = "op,size,stream,handle";
constexpr std::array<std::string_view, 6> op_names = {
    "alloc", "free", "record_stream", "complete_stream", "empty_cache", "reset_peaks"};

struct field {
  std::string_view text;
  int column;  // 1-based
};

std::vector<field> split_fields(std::string_view line) {
  std::vector<field> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
    fields.push_back({line.substr(start, end - start), static_cast<int>(start) + 1});
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

template <typename Number>
bool parse_number(std::string_view text, Number& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return !text.empty() && ec == std::errc{} && ptr == end;
}

class csv_reader {
 public:
  explicit csv_reader(const std::string& source) : source_(source) {}

  result<std::vector<logged_event>> read(std::string_view text) {
    std::vector<logged_event> events;
    int line_number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      start = end + 1;
      ++line_number;
      if (line_number == 1) {
        if (line != header)
          return error(line_number, 1, line, fmt::format("expected the header \"{}\"", header));
        continue;
      }
      if (line.empty()) continue;
      auto row = parse_row(line_number, line);
      if (!row) return row.error();
      events.push_back(*row);
    }
    if (line_number == 0) return error(1, 1, "", fmt::format("expected the header \"{}\"", header));
    return events;
  }

 private:
  result<logged_event> parse_row(int line_number, std::string_view line) const {
    const std::vector<field> fields = split_fields(line);
    if (fields.size() != 4)
      return error(line_number, 1, line, fmt::format("expected 4 fields, got {}", fields.size()));
    logged_event e;
    const auto op = std::find(op_names.begin(), op_names.end(), fields[0].text);
    if (op == op_names.end()) {
      std::vector<std::string> names(op_names.begin(), op_names.end());
      const std::string guess = did_you_mean(std::string(fields[0].text), names);
      return error(line_number, 1, line,
                   fmt::format("unknown op \"{}\"{}", fields[0].text,
                               guess.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", guess)));
    }
    e.op = static_cast<event_op>(op - op_names.begin());
    constexpr std::array<std::string_view, 3> names = {"size", "stream", "handle"};
    const bool ok = parse_number(fields[1].text, e.size) &&
                    parse_number(fields[2].text, e.stream) && parse_number(fields[3].text, e.id);
    if (!ok) {
      for (std::size_t i = 1; i < 4; ++i) {
        bytes probe = 0;
        stream_id probe_stream = 0;
        const bool good = i == 2 ? parse_number(fields[i].text, probe_stream)
                                 : parse_number(fields[i].text, probe);
        if (!good)
          return error(line_number, fields[i].column, line,
                       fmt::format("{}: expected an unsigned number, got \"{}\"", names[i - 1],
                                   fields[i].text));
      }
    }
    return e;
  }

  diagnostic error(int line, int column, std::string_view context, std::string message) const {
    return diagnostic{source_, line, column, std::move(message), std::string(context)};
  }

  const std::string& source_;
};

}  // namespace

std::string_view name_of(event_op op) { return op_names[static_cast<std::size_t>(op)]; }

std::string to_event_csv(const std::vector<logged_event>& events) {
  std::string out;
  out.reserve(32 * (events.size() + 1));
  out += header;
  out += '\n';
  for (const logged_event& e : events)
    fmt::format_to(std::back_inserter(out), "{},{},{},{}\n", name_of(e.op), e.size, e.stream, e.id);
  return out;
}

result<std::vector<logged_event>> parse_event_csv(std::string_view text,
                                                  const std::string& source) {
  return csv_reader(source).read(text);
}

result<std::vector<logged_event>> read_event_log(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_event_csv(*text, path);
}

result<replay_summary> replay(const std::vector<logged_event>& events, allocator_model& model,
                              const std::string& source) {
  constexpr handle failed = 0;              // the recorded alloc failed in this replay
  std::unordered_map<handle, handle> live;  // recorded handle -> replayed handle
  replay_summary summary;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const logged_event& e = events[i];
    ++summary.events;
    const int line = static_cast<int>(i) + 2;
    if (e.op == event_op::alloc) {
      const allocation a = model.allocate(e.size, e.stream);
      ++(a.ok ? summary.allocations : summary.failed_allocations);
      if (e.id != 0) live[e.id] = a.ok ? a.id : failed;
      continue;
    }
    if (e.op == event_op::free || e.op == event_op::record_stream) {
      auto it = live.find(e.id);
      if (it == live.end())
        return diagnostic{source, line, 0,
                          fmt::format("{} of handle {}, which no earlier alloc returned or which "
                                      "was already freed",
                                      name_of(e.op), e.id),
                          ""};
      if (it->second == failed) {
        ++summary.skipped;
        if (e.op == event_op::free) live.erase(it);
        continue;
      }
      if (e.op == event_op::free) {
        model.free(it->second);
        live.erase(it);
      } else {
        model.record_stream(it->second, e.stream);
      }
      continue;
    }
    if (e.op == event_op::complete_stream) model.complete_stream(e.stream);
    if (e.op == event_op::empty_cache) model.empty_cache();
    if (e.op == event_op::reset_peaks) model.reset_peaks();
  }
  return summary;
}

}  // namespace vramscope::alloc
