#pragma once
// replay_source: plays back a log written by `watch --log FILE.jsonl` (sample_json.hpp), one
// sample per read. It makes recorded sessions viewable again (`watch --replay FILE`) and is
// the fake GPU the tests use.
//
// The whole file is read when the source opens. A line that does not parse is skipped and
// reported as a warning with its file and line (a log cut off by a crash usually ends in a
// partial line); blank lines are ignored. Not thread-safe.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/watch/gpu_source.hpp>

namespace vramscope::watch {

class replay_source final : public gpu_source {
 public:
  /// Reads `path` (at most 1 GiB). Fails when it cannot be read or holds no valid sample.
  static result<std::unique_ptr<replay_source>> open(const std::string& path);

  /// The same from text already in memory; `source` names it in messages.
  static result<std::unique_ptr<replay_source>> from_text(std::string_view text,
                                                          const std::string& source);

  [[nodiscard]] std::string_view name() const override { return "replay"; }

  /// The next recorded sample; the first one carries the warnings about skipped lines. After
  /// the last, fails with "<source>: end of recording" and finished() is true.
  result<sample> read() override;

  [[nodiscard]] bool recorded() const override { return true; }
  [[nodiscard]] bool finished() const override { return next_ >= samples_.size(); }

  /// Number of samples in the recording.
  [[nodiscard]] std::size_t size() const { return samples_.size(); }

  /// Lines skipped while reading, with their file and line.
  [[nodiscard]] const vramscope::warnings& skipped() const { return skipped_; }

 private:
  replay_source(std::string source, std::vector<sample> samples, vramscope::warnings skipped);

  std::string source_;
  std::vector<sample> samples_;
  vramscope::warnings skipped_;
  std::size_t next_ = 0;
};

}  // namespace vramscope::watch
