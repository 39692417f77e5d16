#pragma once
// Test support for the monitor module: temporary folders, environment variables set for one
// scope, the fake NVML libraries and small samples built in code.

#include <vramscope/watch/gpu_source.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>

namespace vramscope::watch::testing {

inline std::string data_path(const std::string& name) {
  return std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/monitor/" + name;
}

/// A fresh folder under the system's temporary folder, removed with its content at the end.
class temp_dir {
 public:
  temp_dir() {
    std::random_device seed;
    path_ = std::filesystem::temp_directory_path() /
            ("vramscope-monitor-" + std::to_string(seed()) + "-" + std::to_string(seed()));
    std::filesystem::create_directories(path_);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  [[nodiscard]] std::string path() const { return path_.string(); }
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }

  /// Writes `content` to `name` inside the folder and returns its path.
  std::string write(const std::string& name, const std::string& content) const {
    const auto p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

/// Sets an environment variable for the scope; restores the old value after.
class scoped_env {
 public:
  scoped_env(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~scoped_env() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

inline gpu_reading gpu(int index, std::optional<bytes> used, std::optional<bytes> total,
                       std::string uuid = {}) {
  gpu_reading g;
  g.gpu.index = index;
  g.gpu.name = "Test GPU";
  g.gpu.uuid = uuid.empty() ? "GPU-" + std::to_string(index) : uuid;
  g.gpu.used = used;
  g.gpu.total = total;
  return g;
}

inline process_reading process(int gpu_index, std::int64_t pid, std::optional<bytes> used,
                               std::optional<int> rank = std::nullopt) {
  process_reading p;
  p.process.gpu_index = gpu_index;
  p.process.gpu_uuid = "GPU-" + std::to_string(gpu_index);
  p.process.pid = pid;
  p.process.name = "python3";
  p.process.type = "C";
  p.process.used = used;
  p.details.rank = rank;
  return p;
}

}  // namespace vramscope::watch::testing
