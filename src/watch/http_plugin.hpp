#pragma once
// The C interface of libvramscope_http.so, the plugin that serves `watch --prometheus`.
//
// The HTTP server (Debian's cpp-httplib) links OpenSSL, zlib and brotli; loading those with the
// program cost every command about 2 ms of a 4 ms start (bench/README.md). The server lives in
// a plugin instead, opened with dlopen by metrics_server::start (metrics_server.cpp) only when
// `--prometheus` is given. Plain C types, so nothing depends on both sides agreeing on C++
// layouts beyond this header.

#include <cstddef>

extern "C" {

/// TLS and basic authentication (watch --web-config, web_config.hpp), as plain C data. All
/// pointers may be null when unused; strings are NUL-terminated.
struct vramscope_http_security {
  const char* cert_file;       // non-null: serve HTTPS only, with this PEM chain
  const char* key_file;        // its PEM private key
  const char* client_ca_file;  // null: none
  int client_auth;             // vramscope::watch::client_auth as int (0 = none ... 4)
  int min_version;             // TLS versions as on the wire: 0x0301 (1.0) .. 0x0304 (1.3)
  int max_version;
  const char* const* users;   // basic_auth_users: names ...
  const char* const* hashes;  // ... and their bcrypt hashes
  std::size_t user_count;     // 0: no authentication
};

/// Binds HOST:PORT (PORT 0 picks a free one) and serves GET / and GET /metrics on a thread of
/// its own, each connection on a thread (up to 1024), with a 2 s read timeout (the TLS
/// handshake included) and request bodies bounded at 64 KiB (413 beyond, the rest discarded,
/// never held). With `security` (may be null): HTTPS only when cert_file is set (a client
/// speaking plain HTTP gets no answer), and 401 with `WWW-Authenticate: Basic` for a request
/// without a listed user and its password. Returns the server, or null with a message in
/// `error` (always NUL-terminated): a certificate or key OpenSSL refuses, a hash libcrypt cannot
/// check. `*bound_port` receives the port actually bound.
void* vramscope_http_serve(const char* host, int port, const vramscope_http_security* security,
                           int* bound_port, char* error, std::size_t error_size);

/// Replaces the text served at /metrics. Safe from any thread.
void vramscope_http_publish(void* server, const char* text, std::size_t size);

/// Stops the server and joins its thread, within about a second even while slow clients are
/// connected; `server` must not be used afterwards (it is freed once no connection holds it).
void vramscope_http_stop(void* server);

}  // extern "C"
