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

/// Binds HOST:PORT (PORT 0 picks a free one) and serves GET / and GET /metrics on a thread of
/// its own, each connection on a thread (up to 1024), with a 2 s read timeout and request
/// bodies bounded at 64 KiB (413 beyond, the rest discarded, never held). Returns the server,
/// or null with a message in `error` (always NUL-terminated). `*bound_port` receives the port
/// actually bound.
void* vramscope_http_start(const char* host, int port, int* bound_port, char* error,
                           std::size_t error_size);

/// Replaces the text served at /metrics. Safe from any thread.
void vramscope_http_publish(void* server, const char* text, std::size_t size);

/// Stops the server and joins its thread, within about a second even while slow clients are
/// connected; `server` must not be used afterwards (it is freed once no connection holds it).
void vramscope_http_stop(void* server);

}  // extern "C"
