#pragma once
// The web configuration file of `watch --prometheus` (`--web-config FILE`): TLS and basic
// authentication for /metrics in the format Prometheus exporters share, the exporter-toolkit's
// (github.com/prometheus/exporter-toolkit, docs/web-configuration.md and web/tls_config.go):
//
//   tls_server_config:
//     cert_file: server.crt         # PEM; a relative path is taken from the file's folder
//     key_file: server.key
//     client_auth_type: RequireAndVerifyClientCert   # optional, default NoClientCert
//     client_ca_file: ca.crt        # optional; the clients' CA
//     min_version: TLS12            # optional, TLS10..TLS13, default TLS12
//     max_version: TLS13            # optional, default TLS13
//   basic_auth_users:
//     prometheus: $2y$10$...        # bcrypt hashes (htpasswd -nBC 10 "" | tr -d ':\n')
//
// Differences from the toolkit, each refused by name rather than ignored: the inline `cert`,
// `key` and `client_ca`, `cipher_suites`, `curve_preferences`, `prefer_server_cipher_suites`,
// `client_allowed_sans`, `http_server_config` and `rate_limit` are not supported; the file is
// read once when watch starts (the toolkit reads it at every request).

#include <string>
#include <utility>
#include <vector>

#include <vramscope/core/result.hpp>

namespace vramscope::watch {

/// Who must show a certificate, as Go's crypto/tls ClientAuthType (the toolkit's names).
enum class client_auth {
  none,                // NoClientCert (the default)
  request,             // RequestClientCert: asked for, not verified
  require_any,         // RequireAnyClientCert (alias RequireClientCert): required, not verified
  verify_if_given,     // VerifyClientCertIfGiven: verified against client_ca_file when sent
  require_and_verify,  // RequireAndVerifyClientCert: required and verified
};

/// A TLS protocol version: 0x0301 (TLS 1.0) to 0x0304 (TLS 1.3), as on the wire and in OpenSSL.
using tls_version = int;

struct tls_settings {
  std::string cert_file;  // absolute, or relative to the working directory
  std::string key_file;
  std::string client_ca_file;  // "" = none
  client_auth clients = client_auth::none;
  tls_version min_version = 0x0303;  // TLS12, the toolkit's default
  tls_version max_version = 0x0304;  // TLS13
};

struct web_config {
  bool tls = false;     // tls_server_config given: serve HTTPS only
  tls_settings server;  // meaningful when tls
  /// basic_auth_users: name and bcrypt hash, in file order; empty = no authentication.
  std::vector<std::pair<std::string, std::string>> users;
};

/// Reads and checks a web configuration file. Fails naming the file, line and field: YAML
/// syntax, an unknown or unsupported field, a missing cert_file or key_file, a certificate file
/// that cannot be read, an unknown client_auth_type or TLS version, a client CA without a
/// client_auth_type that uses it (the toolkit's rule) or a verifying type without one, a
/// min_version above max_version, a user whose hash is not bcrypt ($2a$, $2b$ or $2y$, cost
/// 04-31, 53 characters of salt and hash). Paths in the result are resolved from the file's
/// folder, as the toolkit does.
result<web_config> read_web_config(const std::string& path);

/// True when `hash` has the shape of a bcrypt hash ($2a$/$2b$/$2y$, cost 04-31, 53 characters
/// of ./A-Za-z0-9).
bool is_bcrypt_hash(const std::string& hash);

}  // namespace vramscope::watch
