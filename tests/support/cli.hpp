#pragma once
// Runs `vramscope ARGS...` in process and captures what it printed.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <vramscope/cli/run.hpp>

namespace vramscope::testing {

struct cli_result {
  int code;
  std::string out;
  std::string err;
};

inline cli_result invoke(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

/// A job spec written to a folder of its own, removed with the object; html() is a page path
/// beside it.
class job_file {
 public:
  explicit job_file(const std::string& text)
      : dir_(std::filesystem::temp_directory_path() /
             ("vramscope-job-file-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)))) {
    std::filesystem::create_directories(dir_);
    std::ofstream(path()) << text;
  }
  ~job_file() { std::filesystem::remove_all(dir_); }
  job_file(const job_file&) = delete;
  job_file& operator=(const job_file&) = delete;
  [[nodiscard]] std::string path() const { return (dir_ / "job.yaml").string(); }
  [[nodiscard]] std::string html() const { return (dir_ / "page.html").string(); }

 private:
  std::filesystem::path dir_;
};

/// Pages written by --html, as tests read them.
namespace html {

inline std::string read_page(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// A path for a page in the system temp folder.
inline std::string scratch_html(const char* name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

/// A page opens from disk with nothing fetched: no URL, no external source; a script, if any,
/// is inline (plan's timelines have one).
inline void expect_self_contained(const std::string& page) {
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* remote : {"http://", "https://", "src=", "<link", "@import", "fetch(",
                             "XMLHttpRequest"})
    EXPECT_EQ(page.find(remote), std::string::npos) << remote;
}

}  // namespace html

}  // namespace vramscope::testing
