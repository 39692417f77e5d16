// libvramscope_http.so: the HTTP side of `watch --prometheus` (see http_plugin.hpp).
#include "watch/http_plugin.hpp"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
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

// Limits against clients that hold a connection open or send without end. A scrape is one
// short GET; Prometheus's default scrape timeout is 10 s.
constexpr int read_timeout_s = 2;                 // between two reads of one request
constexpr int keep_alive_timeout_s = 2;           // an idle kept-alive connection is closed
constexpr std::size_t keep_alive_requests = 100;  // then the connection is closed
constexpr std::size_t max_body = 64 * 1024;       // larger: 413, the body discarded
constexpr int max_connection_threads = 1024;      // beyond: they wait for the shared pool
constexpr auto stop_grace = std::chrono::milliseconds(700);

// Each connection on a thread of its own, so that slow clients (one byte per read timeout
// keeps httplib reading headers) cannot take the workers a scrape needs: httplib's default
// pool has 8, and 8 slow clients starved every scrape. Past max_connection_threads the
// connections share a small pool. The count outlives the queue (httplib deletes the queue when
// it stops listening): threads finish on their own.
struct connection_count {
  std::atomic<int> active{0};
  std::mutex mutex;
  std::condition_variable done;
};

class connection_threads final : public httplib::TaskQueue {
 public:
  explicit connection_threads(std::shared_ptr<connection_count> count)
      : state_(std::move(count)), overflow_(4) {}
  void enqueue(std::function<void()> fn) override {
    if (state_->active.fetch_add(1) >= max_connection_threads) {
      state_->active.fetch_sub(1);
      overflow_.enqueue(std::move(fn));
      return;
    }
    std::thread([s = state_, fn = std::move(fn)] {
      fn();
      std::lock_guard lock(s->mutex);
      s->active.fetch_sub(1);
      s->done.notify_all();
    }).detach();
  }
  // Waits a moment for open connections; those still open afterwards end at their own read
  // timeout, after the server has stopped listening.
  void shutdown() override {
    std::unique_lock lock(state_->mutex);
    state_->done.wait_for(lock, stop_grace, [&] { return state_->active.load() == 0; });
    lock.unlock();
    overflow_.shutdown();
  }

 private:
  std::shared_ptr<connection_count> state_;
  httplib::ThreadPool overflow_;
};

struct server {
  std::unique_ptr<httplib::Server> http = std::make_unique<httplib::Server>();
  std::thread thread;
  std::mutex mutex;
  std::string text = "# vramscope: no sample yet\n";
  std::shared_ptr<connection_count> connections = std::make_shared<connection_count>();
  int listening = -1;  // the listening socket, once bound

  // Stops listening and returns within about a second even with clients connected (the queue
  // waits stop_grace for them). True when no connection is left; one still being read holds
  // pointers into this server, which must then stay allocated (the process is ending).
  bool stop() {
    http->stop();
    if (thread.joinable()) thread.join();
    return connections->active.load() == 0;
  }
  ~server() { stop(); }
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
  httplib::Server& http = *s->http;
  http.Get("/", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(index_page, "text/html; charset=utf-8");
  });
  http.Get("/metrics", [self](const httplib::Request&, httplib::Response& response) {
    std::lock_guard lock(self->mutex);
    response.set_content(self->text, content_type);
  });
  // httplib's default also sets SO_REUSEPORT, which would let a second `watch` share the port
  // silently and answer half the scrapes; keep only SO_REUSEADDR.
  http.set_socket_options([self](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    self->listening = sock;
  });
  http.set_read_timeout(read_timeout_s, 0);
  http.set_write_timeout(5, 0);
  http.set_keep_alive_timeout(keep_alive_timeout_s);
  http.set_keep_alive_max_count(keep_alive_requests);
  http.set_payload_max_length(max_body);
  http.new_task_queue = [self] { return new connection_threads(self->connections); };
  errno = 0;
  const int bound = port == 0 ? http.bind_to_any_port(host)
                              : (http.bind_to_port(host, port) ? port : -1);
  if (bound < 0) {
    say(error, error_size, errno ? std::strerror(errno) : "bind failed");
    return nullptr;
  }
  // Debian's httplib listens with a backlog of 5: connections beyond it while the accepting
  // thread is busy have their SYN dropped and retried a second later, so a scrape arriving
  // with a burst of other clients waited 1 s or more. Linux takes a new backlog from a second
  // listen() on the same socket.
  if (s->listening >= 0) ::listen(s->listening, SOMAXCONN);
  s->thread = std::thread([self] { self->http->listen_after_bind(); });
  // stop() is a no-op until the loop runs: wait for it, so the destructor can always stop it.
  for (int i = 0; i < 500 && !http.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!http.is_running()) {
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
  auto* self = static_cast<server*>(s);
  if (self->stop()) delete self;  // else left to the connections still open (see stop())
}
