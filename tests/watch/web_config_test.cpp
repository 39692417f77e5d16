// `watch --web-config`: the file's checks (each error names the file, line and field), and the
// metrics server over TLS with basic authentication on 127.0.0.1, with a certificate made by
// the `openssl` command and bcrypt hashes made by libcrypt.
#include <vramscope/watch/prometheus.hpp>
#include <vramscope/watch/web_config.hpp>

#include <crypt.h>
#include <httplib.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

using testing::temp_dir;

// A bcrypt hash of `password` at the lowest cost (4), so the tests stay quick.
std::string bcrypt(const std::string& password) {
  crypt_data data{};
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  if (!crypt_gensalt_rn("$2b$", 4, nullptr, 0, salt, sizeof salt)) return {};
  const char* out = crypt_rn(password.c_str(), salt, &data, sizeof data);
  return out ? out : "";
}

std::string base64(const std::string& in) {
  constexpr const char* alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < in.size(); i += 3) {
    std::uint32_t n = static_cast<std::uint32_t>(static_cast<unsigned char>(in[i])) << 16;
    if (i + 1 < in.size())
      n |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[i + 1])) << 8;
    if (i + 2 < in.size()) n |= static_cast<unsigned char>(in[i + 2]);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += i + 1 < in.size() ? alphabet[(n >> 6) & 63] : '=';
    out += i + 2 < in.size() ? alphabet[n & 63] : '=';
  }
  return out;
}

// A self-signed certificate and its key for 127.0.0.1, written as NAME.crt and NAME.key.
bool make_certificate(const temp_dir& dir, const std::string& name) {
  const std::string command =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 "
      "-addext subjectAltName=IP:127.0.0.1 -keyout '" +
      dir.file(name + ".key") + "' -out '" + dir.file(name + ".crt") + "' >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

class WebConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v openssl >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "openssl is not installed";
    ASSERT_TRUE(make_certificate(dir_, "server"));
  }
  result<web_config> read(const std::string& text) {
    return read_web_config(dir_.write("web.yml", text));
  }
  // The diagnostic's "file:line:column: message" line.
  std::string error_of(const std::string& text) {
    auto r = read(text);
    if (r) return "(accepted)";
    auto d = r.error();
    d.context.clear();
    return d.to_string();
  }
  temp_dir dir_;
};

TEST_F(WebConfig, ReadsTlsAndUsersWithPathsFromTheFilesFolder) {
  const auto hash = bcrypt("secret");
  auto r = read(
      "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
      "  min_version: TLS13\nbasic_auth_users:\n  prometheus: " +
      hash + "\n");
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_TRUE(r->tls);
  EXPECT_EQ(r->server.cert_file, dir_.file("server.crt"));
  EXPECT_EQ(r->server.key_file, dir_.file("server.key"));
  EXPECT_EQ(r->server.min_version, 0x0304);
  EXPECT_EQ(r->server.max_version, 0x0304);
  EXPECT_EQ(r->server.clients, client_auth::none);
  ASSERT_EQ(r->users.size(), 1u);
  EXPECT_EQ(r->users[0], std::make_pair(std::string("prometheus"), hash));
}

TEST_F(WebConfig, AnEmptyFileIsPlainHttpWithoutUsers) {
  auto r = read("");
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->tls);
  EXPECT_TRUE(r->users.empty());
}

TEST_F(WebConfig, ErrorsNameTheFileLineAndField) {
  const std::string file = dir_.file("web.yml");
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: server.crt\n  cert_fil: x\n"),
            file +
                ":3:3: tls_server_config: unknown field \"cert_fil\" (did you mean "
                "\"cert_file\"?)");
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: server.crt\n"),
            file +
                ":2:3: tls_server_config: key_file missing; TLS needs both cert_file and "
                "key_file");
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: nothere.crt\n  key_file: server.key\n"),
            file + ":2:14: cert_file: " + dir_.file("nothere.crt") + ": no such file");
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                     "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n"),
            file +
                ":4:3: tls_server_config.cipher_suites: not supported by vramscope; supported: "
                "cert_file, key_file, client_auth_type, client_ca_file, min_version, "
                "max_version");
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                     "  min_version: TLS14\n"),
            file +
                ":4:16: min_version: unknown TLS version \"TLS14\"; expected TLS10, TLS11, "
                "TLS12 or TLS13");
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                     "  client_auth_type: RequireAndVerify\n"),
            file +
                ":4:21: client_auth_type: unknown \"RequireAndVerify\"; expected NoClientCert, "
                "RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven or "
                "RequireAndVerifyClientCert");
  EXPECT_EQ(error_of("basic_auth_users:\n  alice: " + bcrypt("a") + "\n  bob: hunter2\n"),
            file +
                ":3:8: basic_auth_users: user \"bob\": expected a bcrypt hash ($2y$10$ and 53 "
                "characters, from htpasswd -nBC 10 \"\" | tr -d ':\\n'), not a password or "
                "another kind of hash");
  EXPECT_EQ(error_of("rate_limit:\n  interval: 1s\n"),
            file +
                ":1:1: rate_limit: not supported by vramscope; supported: tls_server_config, "
                "basic_auth_users");
  EXPECT_EQ(error_of("tls_server_config: [\n"),
            file + ":2:1: yaml syntax error: end of sequence flow not found");
}

TEST_F(WebConfig, AClientCaNeedsAClientAuthTypeThatUsesIt) {
  const std::string tls = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";
  EXPECT_NE(error_of(tls + "  client_ca_file: server.crt\n")
                .find(":4:19: client_ca_file: a client CA is given without a client_auth_type"),
            std::string::npos);
  EXPECT_NE(error_of(tls + "  client_auth_type: RequireAndVerifyClientCert\n")
                .find(":2:3: tls_server_config: client_auth_type verifies client certificates: "
                      "add client_ca_file"),
            std::string::npos);
  EXPECT_TRUE(read(tls + "  client_auth_type: RequireAnyClientCert\n"));
}

TEST(BcryptHash, ShapeIsChecked) {
  EXPECT_TRUE(is_bcrypt_hash("$2y$10$N0SctLm.fT7q9FxW7A3.JuLjU5dAH3pRvDnkyibeNcuSlHOa4TO6G"));
  EXPECT_FALSE(is_bcrypt_hash("$2y$03$N0SctLm.fT7q9FxW7A3.JuLjU5dAH3pRvDnkyibeNcuSlHOa4TO6G"));
  EXPECT_FALSE(is_bcrypt_hash("$2x$10$N0SctLm.fT7q9FxW7A3.JuLjU5dAH3pRvDnkyibeNcuSlHOa4TO6G"));
  EXPECT_FALSE(is_bcrypt_hash("$2y$10$N0SctLm.fT7q9FxW7A3.JuLjU5dAH3pRvDnkyibeNcuSlHOa4TO6"));
  EXPECT_FALSE(is_bcrypt_hash("$2y$10$N0SctLm.fT7q9FxW7A3.JuLjU5dAH3pRvDnkyibeNcuSlHOa4TO6!"));
  EXPECT_FALSE(is_bcrypt_hash("$6$salt$hash"));
}

// The server side: HTTPS only, and a user with the right password.
class SecureServer : public WebConfig {
 protected:
  web_config config() {
    web_config c;
    c.tls = true;
    c.server.cert_file = dir_.file("server.crt");
    c.server.key_file = dir_.file("server.key");
    c.users = {{"prometheus", bcrypt("right horse")}, {"grafana", bcrypt("battery")}};
    return c;
  }
  std::unique_ptr<httplib::SSLClient> client(int port) {
    auto c = std::make_unique<httplib::SSLClient>("127.0.0.1", port);
    c->set_ca_cert_path(dir_.file("server.crt").c_str());
    c->enable_server_certificate_verification(true);
    c->set_connection_timeout(2, 0);
    c->set_read_timeout(2, 0);
    return c;
  }
};

TEST_F(SecureServer, AnswersARightPasswordOverTlsAndRefusesTheRest) {
  auto server = metrics_server::start("127.0.0.1:0", config());
  ASSERT_TRUE(server) << server.error().to_string();
  (*server)->publish("vramscope_samples_total 1\n");
  const int port = (*server)->port();

  auto c = client(port);
  c->set_basic_auth("prometheus", "right horse");
  auto ok = c->Get("/metrics");
  ASSERT_TRUE(ok) << httplib::to_string(ok.error());
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body, "vramscope_samples_total 1\n");
  // Cached verdicts do not mix users up.
  auto again = c->Get("/metrics");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);

  for (const auto& [user, password] :
       std::vector<std::pair<std::string, std::string>>{{"prometheus", "wrong horse"},
                                                        {"grafana", "right horse"},
                                                        {"nobody", "battery"},
                                                        {"prometheus", ""}}) {
    auto w = client(port);
    w->set_basic_auth(user.c_str(), password.c_str());
    auto r = w->Get("/metrics");
    ASSERT_TRUE(r) << user;
    EXPECT_EQ(r->status, 401) << user << ":" << password;
    EXPECT_EQ(r->get_header_value("WWW-Authenticate"),
              "Basic realm=\"vramscope\", charset=\"UTF-8\"");
    EXPECT_EQ(r->body.find("vramscope_samples_total"), std::string::npos);
  }
  // A password holding NUL, which crypt() would read only up to the NUL: refused.
  auto nul = client(port);
  nul->set_default_headers(
      {{"Authorization", "Basic " + base64(std::string("prometheus:right horse\0x", 25))}});
  auto cut = nul->Get("/metrics");
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->status, 401);
  auto anonymous = client(port)->Get("/");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);

  // A client speaking plain HTTP to the TLS port gets no answer.
  httplib::Client plain("127.0.0.1", port);
  plain.set_connection_timeout(2, 0);
  plain.set_read_timeout(2, 0);
  plain.set_basic_auth("prometheus", "right horse");
  auto refused = plain.Get("/metrics");
  EXPECT_FALSE(refused && refused->status == 200);
}

TEST_F(SecureServer, AMismatchedKeyOrABadCertificateFailsAtStart) {
  ASSERT_TRUE(make_certificate(dir_, "other"));
  auto c = config();
  c.server.key_file = dir_.file("other.key");
  auto server = metrics_server::start("127.0.0.1:0", c);
  ASSERT_FALSE(server);
  // OpenSSL finds the mismatch as it takes the key (its words: "key values mismatch").
  EXPECT_NE(server.error().message.find("key_file " + dir_.file("other.key") + ": "),
            std::string::npos)
      << server.error().message;
  EXPECT_NE(server.error().message.find("mismatch"), std::string::npos) << server.error().message;

  c.server.cert_file = dir_.write("junk.crt", "not a certificate\n");
  server = metrics_server::start("127.0.0.1:0", c);
  ASSERT_FALSE(server);
  EXPECT_NE(server.error().message.find("cert_file " + dir_.file("junk.crt")), std::string::npos)
      << server.error().message;
}

TEST_F(SecureServer, RequireAndVerifyClientCertTakesOnlyACertificateFromTheCa) {
  ASSERT_TRUE(make_certificate(dir_, "client"));
  ASSERT_TRUE(make_certificate(dir_, "stranger"));
  auto c = config();
  c.users.clear();
  c.server.clients = client_auth::require_and_verify;
  c.server.client_ca_file = dir_.file("client.crt");  // self-signed: its own CA
  auto server = metrics_server::start("127.0.0.1:0", c);
  ASSERT_TRUE(server) << server.error().to_string();
  const int port = (*server)->port();

  auto none = client(port)->Get("/metrics");
  EXPECT_FALSE(none && none->status == 200);

  httplib::SSLClient stranger("127.0.0.1", port, dir_.file("stranger.crt"),
                              dir_.file("stranger.key"));
  stranger.set_ca_cert_path(dir_.file("server.crt").c_str());
  stranger.set_read_timeout(2, 0);
  auto refused = stranger.Get("/metrics");
  EXPECT_FALSE(refused && refused->status == 200);

  httplib::SSLClient known("127.0.0.1", port, dir_.file("client.crt"), dir_.file("client.key"));
  known.set_ca_cert_path(dir_.file("server.crt").c_str());
  known.enable_server_certificate_verification(true);
  known.set_read_timeout(2, 0);
  auto r = known.Get("/metrics");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
}

TEST_F(SecureServer, BasicAuthWithoutTlsStillAsksForAUser) {
  auto c = config();
  c.tls = false;
  auto server = metrics_server::start("127.0.0.1:0", c);
  ASSERT_TRUE(server) << server.error().to_string();
  httplib::Client plain("127.0.0.1", (*server)->port());
  plain.set_read_timeout(2, 0);
  auto anonymous = plain.Get("/metrics");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  plain.set_basic_auth("grafana", "battery");
  auto r = plain.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

}  // namespace
}  // namespace vramscope::watch
