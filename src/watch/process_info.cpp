#include <vramscope/watch/process_info.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <initializer_list>
#include <map>

namespace vramscope::watch {

namespace {

constexpr std::size_t environ_limit = 1 << 20;
constexpr std::size_t maps_limit = 16 << 20;

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<int> first_int(const std::map<std::string_view, std::string_view>& env,
                             std::initializer_list<std::string_view> names) {
  for (auto name : names)
    if (auto it = env.find(name); it != env.end()) return parse_int(it->second);
  return std::nullopt;
}

bool starts_with_any(std::string_view key, std::initializer_list<std::string_view> prefixes) {
  for (auto p : prefixes)
    if (key.starts_with(p)) return true;
  return false;
}

std::string framework_from_environ(const std::map<std::string_view, std::string_view>& env) {
  bool torch = false;
  for (const auto& [key, value] : env) {
    if (starts_with_any(key, {"XLA_PYTHON_CLIENT_", "JAX_"})) return "jax";
    torch = torch || starts_with_any(key, {"PYTORCH_", "TORCH_", "TORCHELASTIC_"});
  }
  return torch ? "torch" : "";
}

std::string pid_path(const std::string& root, std::int64_t pid, const char* file) {
  return root + "/" + std::to_string(pid) + "/" + file;
}

}  // namespace

std::optional<std::string> read_proc_file(const std::string& path, std::size_t limit) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buffer[65536];
  while (text.size() < limit) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      ::close(fd);
      return std::nullopt;  // e.g. EACCES on another user's environ
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (text.size() > limit) text.resize(limit);
  return text;
}

process_details details_from_environ(std::string_view environ) {
  std::map<std::string_view, std::string_view> env;
  while (!environ.empty()) {
    const auto end = environ.find('\0');
    const std::string_view entry = environ.substr(0, end);
    if (const auto eq = entry.find('='); eq != std::string_view::npos && eq > 0)
      env.emplace(entry.substr(0, eq), entry.substr(eq + 1));
    if (end == std::string_view::npos) break;
    environ.remove_prefix(end + 1);
  }
  process_details d;
  d.environ_readable = true;
  d.rank = first_int(env, {"RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"});
  d.local_rank = first_int(env, {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"});
  d.world_size = first_int(env, {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"});
  if (auto it = env.find("CUDA_VISIBLE_DEVICES"); it != env.end())
    d.cuda_visible_devices = std::string(it->second);
  if (auto it = env.find("XLA_PYTHON_CLIENT_MEM_FRACTION"); it != env.end()) {
    const std::string text(it->second);
    char* end = nullptr;
    const double f = std::strtod(text.c_str(), &end);
    if (end && *end == '\0' && !text.empty() && f > 0 && f <= 1) d.xla_mem_fraction = f;
  }
  d.framework = framework_from_environ(env);
  return d;
}

std::string framework_from_maps(std::string_view maps) {
  if (maps.find("xla_extension") != std::string_view::npos ||
      maps.find("jaxlib") != std::string_view::npos)
    return "jax";
  if (maps.find("libtorch_cuda") != std::string_view::npos) return "torch";
  return {};
}

process_details read_process_details(std::int64_t pid, const std::string& proc_root) {
  auto environ = read_proc_file(pid_path(proc_root, pid, "environ"), environ_limit);
  process_details d = environ ? details_from_environ(*environ) : process_details{};
  if (d.framework.empty()) {
    if (auto maps = read_proc_file(pid_path(proc_root, pid, "maps"), maps_limit))
      d.framework = framework_from_maps(*maps);
  }
  return d;
}

std::string read_process_comm(std::int64_t pid, const std::string& proc_root) {
  auto comm = read_proc_file(pid_path(proc_root, pid, "comm"), 256);
  if (!comm) return {};
  while (!comm->empty() && (comm->back() == '\n' || comm->back() == '\0')) comm->pop_back();
  return *comm;
}

std::optional<std::int64_t> read_parent_pid(std::int64_t pid, const std::string& proc_root) {
  auto stat = read_proc_file(pid_path(proc_root, pid, "stat"), 4096);
  if (!stat) return std::nullopt;
  // "pid (comm) state ppid ...": comm may hold spaces and ')', so parse after the last ')'.
  const auto close = stat->rfind(')');
  if (close == std::string::npos || close + 4 >= stat->size()) return std::nullopt;
  std::string_view rest = std::string_view(*stat).substr(close + 4);  // skip ") S "
  rest = rest.substr(0, rest.find(' '));
  std::int64_t ppid = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), ppid);
  if (ec != std::errc{} || end != rest.data() + rest.size()) return std::nullopt;
  return ppid;
}

bool descends_from(std::int64_t pid, std::int64_t ancestor, const std::string& proc_root) {
  for (int step = 0; step < 64 && pid > 1; ++step) {
    if (pid == ancestor) return true;
    auto parent = read_parent_pid(pid, proc_root);
    if (!parent) return false;
    pid = *parent;
  }
  return pid == ancestor;
}

}  // namespace vramscope::watch
