#include <vramscope/watch/stats_folder.hpp>

#include <vramscope/core/io.hpp>
#include <vramscope/observe/torch_stats.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace vramscope::watch {

namespace fs = std::filesystem;

namespace {

double age_of(const fs::path& path) {
  std::error_code ec;
  const auto written = fs::last_write_time(path, ec);
  if (ec) return 0;
  const auto age = fs::file_time_type::clock::now() - written;
  return std::max(0.0, std::chrono::duration<double>(age).count());
}

}  // namespace

result<stats_folder> read_stats_folder(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return error_at(dir, "not a folder (expected a folder of torch.cuda.memory_stats() JSON files)");
  std::vector<fs::path> files, special;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    if (entry.is_regular_file(ec))
      files.push_back(entry.path());
    else if (!entry.is_directory(ec))  // a pipe or device: never opened (a FIFO would block)
      special.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::sort(special.begin(), special.end());
  stats_folder out;
  for (const auto& path : special) {
    ++out.skipped;
    out.problems.push_back(
        error_at(path.string(), "skipped: not a regular file (a pipe, device or socket)"));
  }
  for (const auto& path : files) {
    const std::string name = path.filename().string();
    auto text = read_file(path.string(), 64_MiB);
    if (!text) {
      ++out.skipped;
      out.problems.push_back(text.error());
      continue;
    }
    warnings ignored;  // unknown keys: newer torch versions add some
    auto parsed = observe::parse_memory_stats_json(*text, path.string(), ignored);
    if (!parsed) {
      ++out.skipped;
      out.problems.push_back(parsed.error());
      continue;
    }
    // JSON cut short is a file caught mid-write here, not a paste: skipped, read whole next
    // time. The reader flags every entry a cut reaches; its warning at the cut says where.
    const auto cut = std::find_if(parsed->begin(), parsed->end(), [](const observe::torch_stats& s) { return s.cut; });
    if (cut != parsed->end()) {
      ++out.skipped;
      const auto at = std::find_if(ignored.begin(), ignored.end(), [&](const diagnostic& d) {
        return cut->cut_at_line && d.line == *cut->cut_at_line;
      });
      out.problems.push_back(at != ignored.end() ? *at
                                                 : error_at(path.string(), "cut short: a file caught mid-write",
                                                            cut->cut_at_line.value_or(0)));
      continue;
    }
    const double age = age_of(path);
    for (auto& s : *parsed) out.ranks.push_back({std::move(s), name, age});
  }
  std::stable_sort(out.ranks.begin(), out.ranks.end(), [](const auto& a, const auto& b) {
    if (a.stats.rank.has_value() != b.stats.rank.has_value()) return a.stats.rank.has_value();
    return a.stats.rank < b.stats.rank;
  });
  return out;
}

}  // namespace vramscope::watch
