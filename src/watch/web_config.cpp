// web_config: reads `watch --web-config FILE` (see web_config.hpp). The field names, the
// client_auth_type and TLS version names, the defaults (TLS12..TLS13, NoClientCert), the rule
// that a client CA needs a client_auth_type, and paths taken from the file's folder follow
// github.com/prometheus/exporter-toolkit web/tls_config.go and docs/web-configuration.md.
#include <vramscope/watch/web_config.hpp>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <string_view>

#include <vramscope/core/io.hpp>

namespace vramscope::watch {

namespace {

namespace fs = std::filesystem;

// The toolkit's fields that vramscope does not implement: refused, never ignored.
constexpr std::array<std::string_view, 7> unsupported_tls_fields = {"cert",
                                                                    "key",
                                                                    "client_ca",
                                                                    "cipher_suites",
                                                                    "curve_preferences",
                                                                    "prefer_server_cipher_suites",
                                                                    "client_allowed_sans"};
constexpr std::array<std::string_view, 6> tls_fields = {
    "cert_file", "key_file", "client_auth_type", "client_ca_file", "min_version", "max_version"};

// A mapping key as text; "" for a key that is not a scalar (`[a]: b`), refused as unknown.
std::string key_name(const YAML::Node& key) {
  return key.IsScalar() ? key.Scalar() : std::string();
}

struct reader {
  std::string path;
  std::string text;

  [[nodiscard]] diagnostic at(const YAML::Node& node, const std::string& message) const {
    const auto mark = node.Mark();
    if (mark.is_null()) return error_at(path, message);
    return error_at(path, message, mark.line + 1, mark.column + 1, line_text(mark.line));
  }
  [[nodiscard]] std::string line_text(int line) const {
    std::size_t start = 0;
    for (int i = 0; i < line && start != std::string::npos; ++i) {
      start = text.find('\n', start);
      if (start != std::string::npos) ++start;
    }
    if (start == std::string::npos || start > text.size()) return {};
    return text.substr(start, text.find('\n', start) - start);
  }
  // A path in the file, from the file's folder when relative.
  [[nodiscard]] std::string resolve(const std::string& p) const {
    if (p.empty() || fs::path(p).is_absolute()) return p;
    return (fs::path(path).parent_path() / p).lexically_normal().string();
  }
};

result<std::string> scalar(const reader& r, const YAML::Node& value, const std::string& field) {
  if (!value.IsScalar() || value.Scalar().empty())
    return r.at(value, fmt::format("{}: expected a non-empty string", field));
  return value.Scalar();
}

// A file the server reads at start: refused here, by name, when it cannot be opened.
status readable(const reader& r, const YAML::Node& value, const std::string& field,
                const std::string& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    return r.at(value, fmt::format("{}: {}: {}", field, file,
                                   fs::exists(file, ec) ? "not a regular file" : "no such file"));
  if (!std::ifstream(file).good())
    return r.at(value, fmt::format("{}: {}: cannot be read", field, file));
  return ok();
}

result<client_auth> read_client_auth(const reader& r, const YAML::Node& value) {
  auto name = scalar(r, value, "client_auth_type");
  if (!name) return name.error();
  struct named {
    std::string_view name;
    client_auth kind;
  };
  constexpr std::array<named, 6> kinds = {
      {{"NoClientCert", client_auth::none},
       {"RequestClientCert", client_auth::request},
       {"RequireAnyClientCert", client_auth::require_any},
       {"RequireClientCert", client_auth::require_any},
       {"VerifyClientCertIfGiven", client_auth::verify_if_given},
       {"RequireAndVerifyClientCert", client_auth::require_and_verify}}};
  for (const auto& k : kinds)
    if (k.name == *name) return k.kind;
  return r.at(value, fmt::format("client_auth_type: unknown \"{}\"; expected NoClientCert, "
                                 "RequestClientCert, RequireAnyClientCert, "
                                 "VerifyClientCertIfGiven or RequireAndVerifyClientCert",
                                 *name));
}

result<tls_version> read_version(const reader& r, const YAML::Node& value,
                                 const std::string& field) {
  auto name = scalar(r, value, field);
  if (!name) return name.error();
  constexpr std::array<std::string_view, 4> names = {"TLS10", "TLS11", "TLS12", "TLS13"};
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == *name) return 0x0301 + static_cast<int>(i);
  return r.at(value, fmt::format("{}: unknown TLS version \"{}\"; expected TLS10, TLS11, TLS12 "
                                 "or TLS13",
                                 field, *name));
}

status read_tls(const reader& r, const YAML::Node& node, web_config& out) {
  if (!node.IsMap()) return r.at(node, "tls_server_config: expected a mapping of fields");
  YAML::Node cert, key, ca;
  for (const auto& entry : node) {
    const auto name = key_name(entry.first);
    const auto& value = entry.second;
    if (std::find(unsupported_tls_fields.begin(), unsupported_tls_fields.end(), name) !=
        unsupported_tls_fields.end())
      return r.at(entry.first, fmt::format("tls_server_config.{}: not supported by vramscope; "
                                           "supported: cert_file, key_file, client_auth_type, "
                                           "client_ca_file, min_version, max_version",
                                           name));
    if (std::find(tls_fields.begin(), tls_fields.end(), name) == tls_fields.end()) {
      const auto guess = did_you_mean(name, {tls_fields.begin(), tls_fields.end()});
      return r.at(entry.first,
                  fmt::format("tls_server_config: unknown field \"{}\"{}", name,
                              guess.empty() ? "" : " (did you mean \"" + guess + "\"?)"));
    }
    if (name == "client_auth_type") {
      auto kind = read_client_auth(r, value);
      if (!kind) return kind.error();
      out.server.clients = *kind;
      continue;
    }
    if (name == "min_version" || name == "max_version") {
      auto v = read_version(r, value, name);
      if (!v) return v.error();
      (name == "min_version" ? out.server.min_version : out.server.max_version) = *v;
      continue;
    }
    auto file = scalar(r, value, name);
    if (!file) return file.error();
    const auto resolved = r.resolve(*file);
    if (auto st = readable(r, value, name, resolved); !st) return st.error();
    if (name == "cert_file") out.server.cert_file = resolved, cert = value;
    if (name == "key_file") out.server.key_file = resolved, key = value;
    if (name == "client_ca_file") out.server.client_ca_file = resolved, ca = value;
  }
  if (out.server.cert_file.empty() || out.server.key_file.empty())
    return r.at(node, fmt::format("tls_server_config: {} missing; TLS needs both cert_file and "
                                  "key_file",
                                  out.server.cert_file.empty() ? "cert_file" : "key_file"));
  const bool verifies = out.server.clients == client_auth::verify_if_given ||
                        out.server.clients == client_auth::require_and_verify;
  if (!out.server.client_ca_file.empty() && out.server.clients == client_auth::none)
    return r.at(ca,
                "client_ca_file: a client CA is given without a client_auth_type that uses "
                "it (RequireAndVerifyClientCert, to require verified client certificates)");
  if (verifies && out.server.client_ca_file.empty())
    return r.at(node,
                "tls_server_config: client_auth_type verifies client certificates: add "
                "client_ca_file, the CA that signed them");
  if (out.server.min_version > out.server.max_version)
    return r.at(node, "tls_server_config: min_version is above max_version");
  out.tls = true;
  return ok();
}

status read_users(const reader& r, const YAML::Node& node, web_config& out) {
  if (node.IsNull()) return ok();  // `basic_auth_users:` with nothing: no authentication
  if (!node.IsMap())
    return r.at(node, "basic_auth_users: expected a mapping of user names to bcrypt hashes");
  for (const auto& entry : node) {
    const auto name = key_name(entry.first);
    if (name.empty()) return r.at(entry.first, "basic_auth_users: a user name is empty");
    if (name.find(':') != std::string::npos)
      return r.at(entry.first, fmt::format("basic_auth_users: user \"{}\": a name cannot hold "
                                           "':' (basic authentication splits there)",
                                           name));
    const auto& value = entry.second;
    const std::string hash = value.IsScalar() ? value.Scalar() : std::string();
    if (!is_bcrypt_hash(hash))
      return r.at(value, fmt::format("basic_auth_users: user \"{}\": expected a bcrypt hash "
                                     "($2y$10$ and 53 characters, from htpasswd -nBC 10 \"\" | "
                                     "tr -d ':\\n'), not a password or another kind of hash",
                                     name));
    out.users.emplace_back(name, hash);
  }
  return ok();
}

}  // namespace

bool is_bcrypt_hash(const std::string& hash) {
  // $2a$ / $2b$ / $2y$, a two-digit cost from 04 to 31, '$', 22 characters of salt and 31 of
  // hash in bcrypt's base-64 alphabet: 60 characters in all.
  if (hash.size() != 60 || hash.compare(0, 2, "$2") != 0 || hash[3] != '$' || hash[6] != '$')
    return false;
  if (hash[2] != 'a' && hash[2] != 'b' && hash[2] != 'y') return false;
  if (hash[4] < '0' || hash[4] > '9' || hash[5] < '0' || hash[5] > '9') return false;
  const int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
  if (cost < 4 || cost > 31) return false;
  return std::all_of(hash.begin() + 7, hash.end(), [](char c) {
    return c == '.' || c == '/' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c >= '0' && c <= '9');
  });
}

result<web_config> read_web_config(const std::string& path) {
  auto text = read_file(path, 1_MiB);
  if (!text) return error_at("--web-config", text.error().to_string());
  reader r{path, *text};
  YAML::Node root;
  try {
    root = YAML::Load(r.text);
  } catch (const YAML::Exception& e) {
    return error_at(path, "yaml syntax error: " + e.msg, e.mark.line + 1, e.mark.column + 1,
                    r.line_text(e.mark.line));
  }
  web_config out;
  if (root.IsNull()) return out;  // an empty file: plain HTTP, no authentication
  if (!root.IsMap())
    return r.at(root, "expected a mapping with tls_server_config and/or basic_auth_users");
  for (const auto& entry : root) {
    const auto name = key_name(entry.first);
    status st = ok();
    if (name == "tls_server_config")
      st = read_tls(r, entry.second, out);
    else if (name == "basic_auth_users")
      st = read_users(r, entry.second, out);
    else if (name == "http_server_config" || name == "rate_limit")
      st = r.at(entry.first, fmt::format("{}: not supported by vramscope; supported: "
                                         "tls_server_config, basic_auth_users",
                                         name));
    else
      st = r.at(entry.first, fmt::format("unknown field \"{}\"; expected tls_server_config or "
                                         "basic_auth_users",
                                         name));
    if (!st) return st.error();
  }
  return out;
}

}  // namespace vramscope::watch
