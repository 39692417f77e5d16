#include <vramscope/watch/replay_source.hpp>

#include <vramscope/core/io.hpp>
#include <vramscope/watch/sample_json.hpp>

namespace vramscope::watch {

replay_source::replay_source(std::string source, std::vector<sample> samples,
                             vramscope::warnings skipped)
    : source_(std::move(source)), samples_(std::move(samples)), skipped_(std::move(skipped)) {}

result<std::unique_ptr<replay_source>> replay_source::open(const std::string& path) {
  auto text = read_file(path, 1_GiB);
  if (!text) return text.error();
  return from_text(*text, path);
}

result<std::unique_ptr<replay_source>> replay_source::from_text(std::string_view text,
                                                                const std::string& source) {
  std::vector<sample> samples;
  vramscope::warnings skipped;
  int line = 0;
  while (!text.empty()) {
    ++line;
    const auto end = text.find('\n');
    std::string_view row = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
    if (row.find_first_not_of(" \t") == std::string_view::npos) continue;
    auto s = sample_from_json_line(row, source, line);
    if (!s) {
      skipped.push_back(s.error());
      continue;
    }
    samples.push_back(std::move(*s));
  }
  if (samples.empty()) {
    if (!skipped.empty()) {
      diagnostic first = skipped.front();
      first.message = "no valid sample in the recording; first problem: " + first.message;
      return first;
    }
    return error_at(source, "no sample in the recording (empty file)");
  }
  samples.front().warnings.insert(samples.front().warnings.begin(), skipped.begin(), skipped.end());
  return std::unique_ptr<replay_source>(
      new replay_source(source, std::move(samples), std::move(skipped)));
}

result<sample> replay_source::read() {
  if (finished()) return error_at(source_, "end of recording");
  return samples_[next_++];
}

}  // namespace vramscope::watch
