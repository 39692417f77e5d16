// Times `analyze_snapshot` on a snapshot file against Python's own `pickle.load` of the same
// file, and checks the analysis against the figures make_snapshot.py computed while writing it.
//
//   snapshot_bench FILE [--repeat N] [--no-python]
//
// Prints wall times (best of N), throughput, the ratio to Python and this process's peak
// resident memory; exits 1 when a figure differs from FILE.expected.json.
#include <vramscope/core/io.hpp>
#include <vramscope/observe/torch_snapshot.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

namespace {

using vramscope::observe::snapshot_summary;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// Best wall time of Python's pickle.load over `repeat` runs, timed inside Python so interpreter
// start-up is not counted; negative when python3 is not available.
double python_load_seconds(const std::string& path, int repeat) {
  const std::string command = fmt::format(
      "python3 -c \"import pickle,sys,time\n"
      "best=1e9\n"
      "for _ in range({}):\n"
      "  f=open(sys.argv[1],'rb'); t=time.perf_counter(); pickle.load(f); best=min(best,time.perf_counter()-t)\n"
      "print(best)\" '{}'",
      repeat, path);
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return -1;
  char line[64] = {};
  const bool got = std::fgets(line, sizeof line, pipe) != nullptr;
  const int status = ::pclose(pipe);
  return got && status == 0 ? std::stod(line) : -1;
}

int check_expected(const std::string& path, const snapshot_summary& s) {
  auto text = vramscope::read_file(path + ".expected.json");
  if (!text) {
    fmt::print("no {}.expected.json: figures not checked\n", path);
    return 0;
  }
  int mismatches = 0;
  const nlohmann::json expected = nlohmann::json::parse(*text);
  for (const auto& e : expected["devices"]) {
    const auto& d = s.devices.at(e["device"].get<std::size_t>());
    const auto check = [&](const char* level, const vramscope::observe::trace_peak& p) {
      const auto& want = e[level];
      const bool index_ok = want["trace_index"].is_null() ? !p.trace_index
                                                          : p.trace_index == want["trace_index"].get<std::uint64_t>();
      const bool ok = p.value == want["bytes"].get<std::uint64_t>() && index_ok;
      fmt::print("  device {} peak {:<9} {:>14} B at {:>9}  {}\n", d.device, level, p.value,
                 p.trace_index ? std::to_string(*p.trace_index) : "start", ok ? "matches" : "MISMATCH");
      mismatches += ok ? 0 : 1;
    };
    check("allocated", d.peak_allocated);
    check("active", d.peak_active);
    check("reserved", d.peak_reserved);
    if (d.trace_entries != e["trace_entries"].get<std::uint64_t>()) ++mismatches;
  }
  return mismatches == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: snapshot_bench FILE [--repeat N] [--no-python]\n");
    return 2;
  }
  const std::string path = argv[1];
  int repeat = 3;
  bool python = true;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::stoi(argv[++i]));
    if (a == "--no-python") python = false;
  }
  double best = 1e9;
  vramscope::result<snapshot_summary> summary = vramscope::error_at(path, "not run");
  for (int r = 0; r < repeat; ++r) {
    const auto start = clock_type::now();
    summary = vramscope::observe::analyze_snapshot(path);
    best = std::min(best, seconds_since(start));
    if (!summary) {
      fmt::print(stderr, "{}\n", summary.error().to_string());
      return 2;
    }
  }
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const double mib = static_cast<double>(summary->file_bytes) / (1024.0 * 1024.0);
  std::uint64_t entries = 0;
  for (const auto& d : summary->devices) entries += d.trace_entries;
  fmt::print("{}: {:.1f} MiB, {} trace entries\n", path, mib, entries);
  fmt::print("vramscope analyze_snapshot: {:.3f} s (best of {}), {:.0f} MiB/s, {:.1f} M entries/s, peak RSS {:.1f} MiB\n",
             best, repeat, mib / best, static_cast<double>(entries) / best / 1e6,
             static_cast<double>(usage.ru_maxrss) / 1024.0);
  if (python) {
    const double py = python_load_seconds(path, repeat);
    if (py > 0) fmt::print("python3 pickle.load:        {:.3f} s (best of {}); vramscope is {:.1f}x faster\n", py, repeat, py / best);
    else fmt::print("python3 pickle.load: not available\n");
  }
  return check_expected(path, *summary);
}
