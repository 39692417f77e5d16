// Fuzzes the reader of `vramscope trace` folders: the input, split at NUL bytes, becomes up to
// four trace files spread over two node subfolders, read back as one folder.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <vramscope/trace/trace_reader.hpp>

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

const std::filesystem::path& folder() {
  static const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("vramscope-fuzz-trace-" + std::to_string(::getpid()));
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace fs = std::filesystem;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::error_code ec;
  fs::remove_all(folder(), ec);
  std::size_t start = 0;
  for (int i = 0; i < 4 && start <= input.size(); ++i) {
    const auto end = std::min(input.find('\0', start), input.size());
    const fs::path dir = folder() / (i % 2 ? "node-b" : "node-a");
    fs::create_directories(dir);
    std::ofstream(dir / ((i < 2 ? "trace-" : "sample-") + std::to_string(i) + ".jsonl"), std::ios::binary)
        << input.substr(start, end - start);
    start = end + 1;
  }
  auto s = vramscope::trace::read_trace_folder(folder().string());
  check(s.has_value());
  if (s) {
    const auto o = vramscope::trace::to_observation(*s);
    check(o.gpus.size() == s->gpus.size());
    for (const auto& g : s->gpus) check(!g.gpu.empty());
  }
  return 0;
}
