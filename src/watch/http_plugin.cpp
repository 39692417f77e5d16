// libvramscope_http.so: the HTTP side of `watch --prometheus` (see http_plugin.hpp).
#include "watch/http_plugin.hpp"

#include <crypt.h>
#include <httplib.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

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

// basic_auth_users: each request's Authorization header checked against the bcrypt hashes with
// libcrypt, as the exporter-toolkit does (web/handler.go): an unknown user is checked against
// a known user's hash too, so that the time taken does not tell which names exist; bcrypt runs
// one at a time (a cost-10 hash takes tens of milliseconds) and its verdicts are kept for the
// next requests with the same header (the toolkit's cache), keyed by the header's SHA-256.
class basic_auth {
 public:
  explicit basic_auth(std::map<std::string, std::string> users) : users_(std::move(users)) {}
  [[nodiscard]] bool empty() const { return users_.empty(); }

  // Checks every hash once at start, so that one libcrypt cannot verify fails there.
  [[nodiscard]] std::string check_hashes() {
    for (const auto& [name, hash] : users_)
      if (!supported(hash))
        return "basic_auth_users: user \"" + name + "\": libcrypt cannot check this hash";
    return {};
  }

  bool allows(const std::string& header) {
    const auto key = digest(header);
    {
      std::lock_guard lock(cache_mutex_);
      if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    }
    const bool allowed = verify(header);
    std::lock_guard lock(cache_mutex_);
    if (cache_.size() >= max_cached) cache_.clear();
    cache_[key] = allowed;
    return allowed;
  }

 private:
  static constexpr std::size_t max_cached = 256;

  bool verify(const std::string& header) {
    constexpr std::string_view scheme = "Basic ";
    if (header.size() <= scheme.size() || header.compare(0, scheme.size(), scheme) != 0)
      return false;
    std::string decoded;
    if (!base64_decode(header.substr(scheme.size()), decoded)) return false;
    const auto colon = decoded.find(':');
    if (colon == std::string::npos) return false;
    const std::string user = decoded.substr(0, colon), password = decoded.substr(colon + 1);
    const auto it = users_.find(user);
    const bool known = it != users_.end();
    // Unknown users (and passwords holding NUL, which crypt would cut short) take the time of
    // a check all the same.
    const std::string& hash = known ? it->second : users_.begin()->second;
    const bool matches = crypt_matches(password, hash);
    return known && matches && password.find('\0') == std::string::npos;
  }

  bool crypt_matches(const std::string& password, const std::string& hash) {
    std::lock_guard lock(crypt_mutex_);
    const char* out = ::crypt_rn(password.c_str(), hash.c_str(), data_.get(), sizeof *data_);
    if (!out) return false;
    // Constant-time comparison: every byte of the hash is compared, whatever differs first.
    const std::size_t n = std::strlen(out);
    unsigned char differ = n == hash.size() ? 0 : 1;
    for (std::size_t i = 0; i < hash.size(); ++i)
      differ |= static_cast<unsigned char>(hash[i] ^ (i < n ? out[i] : 0));
    return differ == 0;
  }

  bool supported(const std::string& hash) {
    std::lock_guard lock(crypt_mutex_);
    const char* out = ::crypt_rn("", hash.c_str(), data_.get(), sizeof *data_);
    return out && std::strncmp(out, hash.c_str(), 7) == 0;
  }

  static std::string digest(const std::string& text) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_Digest(text.data(), text.size(), md, &size, EVP_sha256(), nullptr) != 1) size = 0;
    return {reinterpret_cast<const char*>(md), size};
  }

  static bool base64_decode(const std::string& in, std::string& out) {
    auto value = [](char c) -> int {
      if (c >= 'A' && c <= 'Z') return c - 'A';
      if (c >= 'a' && c <= 'z') return c - 'a' + 26;
      if (c >= '0' && c <= '9') return c - '0' + 52;
      if (c == '+') return 62;
      if (c == '/') return 63;
      return -1;
    };
    if (in.size() % 4 != 0 || in.size() > 4096) return false;
    std::uint32_t bits = 0;
    int count = 0;
    std::size_t padding = 0;
    for (char c : in) {
      if (c == '=') {
        ++padding;
        continue;
      }
      const int v = value(c);
      if (v < 0 || padding > 0) return false;
      bits = (bits << 6) | static_cast<std::uint32_t>(v);
      if (++count == 4) {
        out.push_back(static_cast<char>(bits >> 16));
        out.push_back(static_cast<char>(bits >> 8));
        out.push_back(static_cast<char>(bits));
        bits = 0;
        count = 0;
      }
    }
    if (padding > 2) return false;
    if (count == 2) out.push_back(static_cast<char>(bits >> 4));
    if (count == 3) {
      out.push_back(static_cast<char>(bits >> 10));
      out.push_back(static_cast<char>(bits >> 2));
    }
    return count == 0 || count + static_cast<int>(padding) == 4;
  }

  std::map<std::string, std::string> users_;
  std::mutex crypt_mutex_;
  std::unique_ptr<crypt_data> data_ = std::make_unique<crypt_data>();
  std::mutex cache_mutex_;
  std::map<std::string, bool> cache_;
};

// OpenSSL's reason for the last failure, or `fallback`.
std::string openssl_error(const std::string& fallback) {
  std::string out;
  while (const unsigned long code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    out = text;  // the last one names the file or the check that failed
  }
  return out.empty() ? fallback : out;
}

int accept_any_certificate(int, X509_STORE_CTX*) { return 1; }

// The TLS context from the web config (client_auth_type as Go's crypto/tls applies it).
bool setup_tls(SSL_CTX& ctx, const vramscope_http_security& s, std::string& error) {
  SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION);
  if (SSL_CTX_set_min_proto_version(&ctx, s.min_version) != 1 ||
      SSL_CTX_set_max_proto_version(&ctx, s.max_version) != 1) {
    error = openssl_error("this OpenSSL does not offer the TLS versions asked for");
    return false;
  }
  if (SSL_CTX_use_certificate_chain_file(&ctx, s.cert_file) != 1) {
    error = std::string("cert_file ") + s.cert_file + ": " + openssl_error("not a PEM certificate");
    return false;
  }
  if (SSL_CTX_use_PrivateKey_file(&ctx, s.key_file, SSL_FILETYPE_PEM) != 1) {
    error = std::string("key_file ") + s.key_file + ": " + openssl_error("not a PEM private key");
    return false;
  }
  if (SSL_CTX_check_private_key(&ctx) != 1) {
    error = std::string("key_file ") + s.key_file + " does not match cert_file " + s.cert_file;
    return false;
  }
  if (s.client_ca_file) {
    if (SSL_CTX_load_verify_locations(&ctx, s.client_ca_file, nullptr) != 1) {
      error = std::string("client_ca_file ") + s.client_ca_file + ": " +
              openssl_error("not a PEM certificate");
      return false;
    }
    SSL_CTX_set_client_CA_list(&ctx, SSL_load_client_CA_file(s.client_ca_file));
  }
  switch (s.client_auth) {
    case 1:
      SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, accept_any_certificate);
      break;
    case 2:
      SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                         accept_any_certificate);
      break;
    case 3:
      SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, nullptr);
      break;
    case 4:
      SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      break;
    default:
      SSL_CTX_set_verify(&ctx, SSL_VERIFY_NONE, nullptr);
      break;
  }
  return true;
}

struct server {
  std::unique_ptr<httplib::Server> http;
  std::unique_ptr<basic_auth> auth;
  std::thread thread;
  std::mutex mutex;
  std::string text = "# vramscope: no sample yet\n";
  std::shared_ptr<connection_count> connections = std::make_shared<connection_count>();
  int listening = -1;  // the listening socket, once bound

  // Stops listening and returns within about a second even with clients connected (the queue
  // waits stop_grace for them). True when no connection is left; one still being read holds
  // pointers into this server, which must then stay allocated (the process is ending).
  bool stop() {
    if (!http) return true;  // failed before the server was made
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

extern "C" __attribute__((visibility("default"))) void* vramscope_http_serve(
    const char* host, int port, const vramscope_http_security* security, int* bound_port,
    char* error, std::size_t error_size) {
  auto s = std::make_unique<server>();
  server* self = s.get();
  if (security && security->cert_file) {
    std::string why;
    auto tls = std::make_unique<httplib::SSLServer>(
        [&](SSL_CTX& ctx) { return setup_tls(ctx, *security, why); });
    if (!tls->is_valid()) {
      say(error, error_size, why.empty() ? openssl_error("cannot set up TLS") : why);
      return nullptr;
    }
    s->http = std::move(tls);
  } else {
    s->http = std::make_unique<httplib::Server>();
  }
  if (security && security->user_count > 0) {
    std::map<std::string, std::string> users;
    for (std::size_t i = 0; i < security->user_count; ++i)
      users[security->users[i]] = security->hashes[i];
    s->auth = std::make_unique<basic_auth>(std::move(users));
    if (auto why = s->auth->check_hashes(); !why.empty()) {
      say(error, error_size, why);
      return nullptr;
    }
    // Every path, / included, asks for a user (as the toolkit wraps its whole handler).
    s->http->set_pre_routing_handler(
        [self](const httplib::Request& request, httplib::Response& response) {
          if (self->auth->allows(request.get_header_value("Authorization")))
            return httplib::Server::HandlerResponse::Unhandled;
          response.status = 401;
          response.set_header("WWW-Authenticate", "Basic realm=\"vramscope\", charset=\"UTF-8\"");
          response.set_content("401 Unauthorized\n", "text/plain; charset=utf-8");
          return httplib::Server::HandlerResponse::Handled;
        });
  }
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
