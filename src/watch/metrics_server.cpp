// metrics_server: `watch --prometheus`, served by the plugin libvramscope_http.so, which is
// opened here on first use so that no other command loads the HTTP library and the TLS and
// compression libraries behind it (see http_plugin.hpp).
#include <vramscope/watch/prometheus.hpp>

#include <dlfcn.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "watch/http_plugin.hpp"

namespace vramscope::watch {

namespace detail {

/// The plugin's entry points.
struct http_plugin {
  decltype(&vramscope_http_serve) start = nullptr;
  decltype(&vramscope_http_publish) publish = nullptr;
  decltype(&vramscope_http_stop) stop = nullptr;
};

}  // namespace detail

namespace {

namespace fs = std::filesystem;
using detail::http_plugin;

constexpr const char* plugin_name = "libvramscope_http.so";

// Where the plugin may be: $VRAMSCOPE_HTTP_PLUGIN; beside an installed binary
// (PREFIX/bin/vramscope -> PREFIX/LIBDIR/vramscope/); the build tree.
std::vector<std::string> plugin_candidates() {
  if (const char* env = std::getenv("VRAMSCOPE_HTTP_PLUGIN"); env && *env) return {env};
  std::vector<std::string> out;
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
#ifdef VRAMSCOPE_HTTP_PLUGIN_FROM_BIN
  if (!ec) out.push_back((exe.parent_path() / VRAMSCOPE_HTTP_PLUGIN_FROM_BIN).lexically_normal().string());
#endif
#ifdef VRAMSCOPE_HTTP_PLUGIN_PATH
  out.emplace_back(VRAMSCOPE_HTTP_PLUGIN_PATH);
#endif
  return out;
}

result<http_plugin> load_plugin() {
  std::vector<std::string> tried;  // "PATH (why not)"
  for (const auto& path : plugin_candidates()) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      tried.push_back(path + " (absent)");
      continue;
    }
    // Kept loaded for the life of the process: a server may outlive any one caller.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = ::dlerror();
      tried.push_back(fmt::format("{} ({})", path, why ? why : "dlopen failed"));
      continue;
    }
    http_plugin p;
    p.start = reinterpret_cast<decltype(p.start)>(::dlsym(handle, "vramscope_http_serve"));
    p.publish = reinterpret_cast<decltype(p.publish)>(::dlsym(handle, "vramscope_http_publish"));
    p.stop = reinterpret_cast<decltype(p.stop)>(::dlsym(handle, "vramscope_http_stop"));
    if (p.start && p.publish && p.stop) return p;
    tried.push_back(path + " (not a vramscope HTTP plugin)");
  }
  return error_at("--prometheus",
                  fmt::format("cannot serve metrics: no usable {} (tried: {}); set "
                              "VRAMSCOPE_HTTP_PLUGIN to its path",
                              plugin_name, tried.empty() ? "nothing" : fmt::format("{}", fmt::join(tried, ", "))));
}

}  // namespace

struct metrics_server::impl {
  detail::http_plugin api;
  void* server = nullptr;
  int port = 0;

  ~impl() {
    if (server) api.stop(server);
  }
};

result<std::unique_ptr<metrics_server>> metrics_server::start(const std::string& address,
                                                              const web_config& security) {
  auto where = parse_listen_address(address);
  if (!where) return where.error();
  const auto& [host, port] = *where;
  auto api = load_plugin();
  if (!api) return api.error();
  auto p = std::make_unique<impl>();
  p->api = *api;
  std::vector<const char*> users, hashes;
  for (const auto& [name, hash] : security.users) {
    users.push_back(name.c_str());
    hashes.push_back(hash.c_str());
  }
  const auto& tls = security.server;
  const vramscope_http_security c_security{
      security.tls ? tls.cert_file.c_str() : nullptr,
      security.tls ? tls.key_file.c_str() : nullptr,
      security.tls && !tls.client_ca_file.empty() ? tls.client_ca_file.c_str() : nullptr,
      static_cast<int>(tls.clients),
      tls.min_version,
      tls.max_version,
      users.data(),
      hashes.data(),
      users.size()};
  char error[512] = "";
  p->server = api->start(host.c_str(), port, &c_security, &p->port, error, sizeof error);
  if (!p->server)
    return error_at("--prometheus", fmt::format("cannot listen on {}: {}", address, error));
  return std::unique_ptr<metrics_server>(new metrics_server(std::move(p)));
}

metrics_server::metrics_server(std::unique_ptr<impl> impl) : impl_(std::move(impl)) {}
metrics_server::~metrics_server() = default;

void metrics_server::publish(std::string text) {
  impl_->api.publish(impl_->server, text.data(), text.size());
}

int metrics_server::port() const { return impl_->port; }

}  // namespace vramscope::watch
