#include <vramscope/monitor/prometheus.hpp>

#include <httplib.h>
#include <sys/socket.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

namespace vramscope::monitor {

namespace {

constexpr const char* content_type = "text/plain; version=0.0.4; charset=utf-8";

// GET /: what a person opening the address in a browser (or a load balancer's health check)
// gets, instead of a 404.
constexpr const char* index_page = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>vramscope watch</title></head>
<body><h1>vramscope watch</h1>
<p>GPU memory per GPU, process and rank, in the Prometheus text format: <a href="/metrics">/metrics</a>.</p>
<p>Alert rules and a Grafana dashboard for these metrics ship in the <code>deploy/</code> folder of vramscope.</p>
</body></html>
)";

}  // namespace

struct metrics_server::impl {
  httplib::Server server;
  std::thread thread;
  std::mutex mutex;
  std::string text = "# vramscope: no sample yet\n";
  int port = 0;

  ~impl() {
    server.stop();
    if (thread.joinable()) thread.join();
  }
};

result<std::unique_ptr<metrics_server>> metrics_server::start(const std::string& address) {
  auto where = parse_listen_address(address);
  if (!where) return where.error();
  const auto& [host, port] = *where;
  auto p = std::make_unique<impl>();
  impl* self = p.get();
  p->server.Get("/", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(index_page, "text/html; charset=utf-8");
  });
  p->server.Get("/metrics", [self](const httplib::Request&, httplib::Response& response) {
    std::lock_guard lock(self->mutex);
    response.set_content(self->text, content_type);
  });
  // httplib's default also sets SO_REUSEPORT, which would let a second `watch` share the port
  // silently and answer half the scrapes; keep only SO_REUSEADDR.
  p->server.set_socket_options([](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  p->server.set_read_timeout(5, 0);
  p->server.set_write_timeout(5, 0);
  errno = 0;
  p->port = port == 0 ? p->server.bind_to_any_port(host)
                      : (p->server.bind_to_port(host, port) ? port : -1);
  if (p->port < 0)
    return error_at("--prometheus", fmt::format("cannot listen on {}: {}", address,
                                                errno ? std::strerror(errno) : "bind failed"));
  p->thread = std::thread([self] { self->server.listen_after_bind(); });
  // stop() is a no-op until the loop runs: wait for it, so the destructor can always stop it.
  for (int i = 0; i < 500 && !p->server.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!p->server.is_running()) return error_at("--prometheus", "the HTTP server did not start");
  return std::unique_ptr<metrics_server>(new metrics_server(std::move(p)));
}

metrics_server::metrics_server(std::unique_ptr<impl> impl) : impl_(std::move(impl)) {}
metrics_server::~metrics_server() = default;

void metrics_server::publish(std::string text) {
  std::lock_guard lock(impl_->mutex);
  impl_->text = std::move(text);
}

int metrics_server::port() const { return impl_->port; }

}  // namespace vramscope::monitor
