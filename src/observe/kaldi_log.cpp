#include "observe/kaldi_log.hpp"

#include <cctype>
#include <map>

#include "observe/text_util.hpp"

namespace vramscope::observe::detail {

// Named so that the unity build keeps these apart from the other readers' helpers.
namespace kaldi {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A Kaldi log line's header, "SEVERITY (PROGRAM[VERSION]:FUNCTION():FILE:LINE) MESSAGE"
// (kaldi-error.cc, MessageLogger::LogMessage).
struct kaldi_line {
  bool error = false;  // ERROR or ASSERTION_FAILED
  bool warning = false;
  std::string_view file, message;
};

std::optional<kaldi_line> header_of(std::string_view t) {
  for (const std::string_view severity : {"LOG (", "WARNING (", "ERROR (", "ASSERTION_FAILED ("}) {
    const std::size_t at = t.find(severity);
    if (at == std::string_view::npos) continue;
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(t[at - 1])) != 0 || t[at - 1] == '_'))
      continue;
    const std::size_t open = at + severity.size();
    const std::size_t close = t.find(") ", open);
    if (close == std::string_view::npos) continue;
    const std::string_view header = t.substr(open, close - open);
    const std::size_t function_end = header.rfind("():");
    if (function_end == std::string_view::npos) continue;
    const std::string_view place = header.substr(function_end + 3);  // "cu-device.cc:228"
    const std::size_t colon = place.rfind(':');
    if (colon == std::string_view::npos || !is_digits(place.substr(colon + 1))) continue;
    kaldi_line k;
    k.error = severity == "ERROR (" || severity == "ASSERTION_FAILED (";
    k.warning = severity == "WARNING (";
    k.file = place.substr(0, colon);
    if (const std::size_t slash = k.file.rfind('/'); slash != std::string_view::npos)
      k.file.remove_prefix(slash + 1);
    k.message = trim(t.substr(close + 2));
    return k;
  }
  return std::nullopt;
}

// The whole number that `s` starts with at `at`, and where it ends.
std::optional<std::uint64_t> number_at(std::string_view s, std::size_t& at) {
  std::size_t end = at;
  while (end < s.size() && is_digit(s[end])) ++end;
  const auto v = parse_uint(s.substr(at, end - at));
  if (v) at = end;
  return v;
}

// The whole number after `label` in `s`, from `from`.
std::optional<std::uint64_t> number_after(std::string_view s, std::string_view label,
                                          std::size_t from = 0) {
  std::size_t at = s.find(label, from);
  if (at == std::string_view::npos) return std::nullopt;
  at += label.size();
  return number_at(s, at);
}

// GetFreeGpuMemory's text, "free:FM, used:UM, total:TM, free/total:R": MiB rounded down.
struct memory_info {
  bytes free = 0, used = 0, total = 0;
};

std::optional<memory_info> memory_info_in(std::string_view s) {
  const std::size_t at = s.find("free:");
  if (at == std::string_view::npos) return std::nullopt;
  const auto free = number_after(s, "free:", at);
  const auto used = number_after(s, "M, used:", at);
  const auto total = number_after(s, "M, total:", at);
  constexpr std::uint64_t most_mib = std::uint64_t{1} << 40;  // keeps the bytes below 2^60
  if (!free || !used || !total || *total == 0 || *total >= most_mib || *free > *total ||
      *used > *total)
    return std::nullopt;
  return memory_info{*free * MiB, *used * MiB, *total * MiB};
}

// "cudaSetDevice(N): NAME\tfree:..." or "The active GPU is [N]: NAME\tfree:...".
std::optional<gpu_observation> device_reading(std::string_view message, std::string_view prefix,
                                              std::string_view index_end) {
  if (!message.starts_with(prefix)) return std::nullopt;
  std::size_t at = prefix.size();
  const auto index = number_at(message, at);
  if (!index || *index >= 4096 || !message.substr(at).starts_with(index_end)) return std::nullopt;
  const auto info = memory_info_in(message);
  if (!info) return std::nullopt;
  gpu_observation g;
  g.index = static_cast<int>(*index);
  g.name = std::string(
      trim(message.substr(at + index_end.size(), message.find("free:") - at - index_end.size())));
  g.total = info->total;
  g.used = info->used;
  g.free = info->free;
  g.before_own_use = true;
  return g;
}

// PrintMemoryUsage's figures, kept for the failure that follows it.
struct pool_usage {
  std::optional<bytes> allocated, held, largest_free;
};

std::optional<pool_usage> pool_usage_in(std::string_view message) {
  if (!message.starts_with("Memory usage: ")) return std::nullopt;
  pool_usage p;
  std::size_t at = 14;
  p.allocated = number_at(message, at);
  if (p.allocated && message.substr(at).starts_with("/")) {
    ++at;
    p.held = number_at(message, at);
  }
  // "largest free/allocated block sizes are X/Y": X the largest allocated, Y the largest free
  // block (the order of the values in PrintMemoryUsage, not of its label).
  constexpr std::string_view largest = "block sizes are ";
  if (const std::size_t l = message.find(largest); l != std::string_view::npos) {
    std::size_t v = l + largest.size();
    if (number_at(message, v) && message.substr(v).starts_with("/")) {
      ++v;
      p.largest_free = number_at(message, v);
    }
  }
  if (!p.held) return std::nullopt;
  return p;
}

}  // namespace
}  // namespace kaldi

bool is_kaldi_cuda_line(std::string_view line) {
  const auto k = kaldi::header_of(line);
  return k && (k->file == "cu-device.cc" || k->file == "cu-allocator.cc");
}

kaldi_log find_kaldi_lines(std::string_view text, const std::string& source) {
  using namespace kaldi;
  kaldi_log out;
  const auto lines = split_lines(text);
  std::map<int, gpu_observation> selected;  // SelectGpuIdAuto's reading of each GPU, the latest
  std::map<int, gpu_observation> active;    // FinalizeActiveGpu's
  observation::figure_series growth;
  std::optional<pool_usage> usage;
  int usage_line = 0;
  const auto flush_growth = [&] {
    if (growth.points.size() >= 3) out.series.push_back(std::move(growth));
    growth = observation::figure_series{};
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!is_kaldi_cuda_line(lines[i].text)) continue;
    const auto k = header_of(lines[i].text);
    const std::string_view m = k->message;
    const int number = lines[i].number;
    if (k->file == "cu-device.cc") {
      if (auto g = device_reading(m, "cudaSetDevice(", "): ")) {
        selected[*g->index] = std::move(*g);
      } else if (auto a = device_reading(m, "The active GPU is [", "]: ")) {
        // A new program's choice: its allocator starts with no region.
        flush_growth();
        out.active_gpu = a->index;
        for (auto& c : out.compute_modes)
          if (!c.gpu) c.gpu = a->index;
        active[*a->index] = std::move(*a);
      } else if (m.starts_with("Not in compute-exclusive mode") ||
                 m.starts_with("CUDA setup operating under Compute Exclusive Mode")) {
        out.compute_modes.push_back({std::nullopt, m.starts_with("Not"), number, source});
      }
      continue;
    }
    if (m.starts_with("About to allocate new memory region of ")) {
      const auto info = memory_info_in(m);
      if (!info) continue;
      if (growth.points.empty()) {
        growth.label = "About to allocate new memory region: current memory info used";
        growth.source = source;
        growth.pool_growth = true;
      }
      growth.points.emplace_back(number, info->used);
      continue;
    }
    if (auto u = pool_usage_in(m)) {
      usage = u;
      usage_line = number;
      continue;
    }
    if (!k->error) continue;
    oom_report r;
    r.kind = oom_kind::cuda;
    r.origin = oom_origin::allocator;
    r.allocator = oom_allocator::kaldi;
    r.runtime = "kaldi";
    if (m.starts_with("Failed to allocate a memory region of ")) {
      r.requested = number_after(m, "region of ");
      if (const std::size_t info_at = m.find("Memory info: "); info_at != std::string_view::npos) {
        if (const auto info = memory_info_in(m.substr(info_at))) {
          r.capacity = info->total;
          r.free = info->free;
        }
      }
      if (!r.capacity) r.missing.push_back("Memory info");
      if (const std::size_t e = m.find("CUDA error: '"); e != std::string_view::npos) {
        const std::string_view rest = m.substr(e + 13);
        r.status = std::string(rest.substr(0, rest.find('\'')));
      }
    } else if (m.starts_with("Cannot allocate the requested memory (")) {
      if (const std::size_t eq = m.find("= "); eq != std::string_view::npos)
        r.requested = number_after(m, "= ", eq);
    } else if (m.starts_with("cudaError_t ") && names_memory_failure(to_lower(m))) {
      r.origin = oom_origin::outside_allocator;  // caching off: cudaMalloc called for each matrix
      const std::size_t q = m.find('"');
      if (q != std::string_view::npos)
        r.status = std::string(m.substr(q + 1, m.find('"', q + 1) - q - 1));
    } else {
      continue;
    }
    // PrintMemoryUsage runs right before the failure's ERROR (AllocateNewRegion); an older
    // Memory usage line belongs to another moment.
    if (usage && usage_line + 3 >= number) {
      r.pool_held = usage->held;
      r.in_use = usage->allocated;
      r.largest_free_block = usage->largest_free;
    }
    usage.reset();
    r.gpu = out.active_gpu;
    r.line = number;
    r.raw = std::string(m);
    for (std::size_t b = i > oom_context_lines ? i - oom_context_lines : 0; b < i; ++b)
      if (const auto c = trim(lines[b].text); !c.empty())
        r.context.push_back(std::to_string(lines[b].number) + ": " + std::string(c));
    out.ooms.push_back(std::move(r));
  }
  flush_growth();
  for (auto& [index, g] : selected) {
    g.selected = active.contains(index);
    out.gpus.push_back(std::move(g));
  }
  for (auto& [index, g] : active)
    if (!selected.contains(index)) {
      g.selected = true;
      out.gpus.push_back(std::move(g));
    }
  return out;
}

}  // namespace vramscope::observe::detail
