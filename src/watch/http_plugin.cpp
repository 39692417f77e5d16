// libvramscope_http.so: the HTTP side of `watch --prometheus` (see http_plugin.hpp).
#include "watch/http_plugin.hpp"

#include <httplib.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

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

struct server {
  httplib::Server http;
  std::thread thread;
  std::mutex mutex;
  std::string text = "# vramscope: no sample yet\n";

  ~server() {
    http.stop();
    if (thread.joinable()) thread.join();
  }
};

void say(char* error, std::size_t size, const std::string& message) {
  if (size == 0) return;
  std::snprintf(error, size, "%s", message.c_str());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void* vramscope_http_start(
    const char* host, int port, int* bound_port, char* error, std::size_t error_size) {
  auto s = std::make_unique<server>();
  server* self = s.get();
  s->http.Get("/", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(index_page, "text/html; charset=utf-8");
  });
  s->http.Get("/metrics", [self](const httplib::Request&, httplib::Response& response) {
    std::lock_guard lock(self->mutex);
    response.set_content(self->text, content_type);
  });
  // httplib's default also sets SO_REUSEPORT, which would let a second `watch` share the port
  // silently and answer half the scrapes; keep only SO_REUSEADDR.
  s->http.set_socket_options([](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  s->http.set_read_timeout(5, 0);
  s->http.set_write_timeout(5, 0);
  errno = 0;
  const int bound = port == 0 ? s->http.bind_to_any_port(host)
                              : (s->http.bind_to_port(host, port) ? port : -1);
  if (bound < 0) {
    say(error, error_size, errno ? std::strerror(errno) : "bind failed");
    return nullptr;
  }
  s->thread = std::thread([self] { self->http.listen_after_bind(); });
  // stop() is a no-op until the loop runs: wait for it, so the destructor can always stop it.
  for (int i = 0; i < 500 && !s->http.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!s->http.is_running()) {
    say(error, error_size, "the HTTP server did not start");
    return nullptr;
  }
  *bound_port = bound;
  return s.release();
}

extern "C" __attribute__((visibility("default"))) void vramscope_http_publish(
    void* s, const char* text, std::size_t size) {
  auto* self = static_cast<server*>(s);
  std::lock_guard lock(self->mutex);
  self->text.assign(text, size);
}

extern "C" __attribute__((visibility("default"))) void vramscope_http_stop(void* s) {
  delete static_cast<server*>(s);
}
