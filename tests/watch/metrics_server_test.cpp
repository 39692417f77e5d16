// The /metrics endpoint on 127.0.0.1 with an ephemeral port. Every client call has a short
// timeout, so a broken server fails the test instead of hanging it.
#include <vramscope/watch/prometheus.hpp>

#include <httplib.h>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace vramscope::watch {
namespace {

httplib::Client client_for(int port) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(2, 0);
  c.set_read_timeout(2, 0);
  c.set_write_timeout(2, 0);
  return c;
}

TEST(MetricsServer, ServesThePublishedTextAtMetrics) {
  auto server = metrics_server::start("127.0.0.1:0");
  ASSERT_TRUE(server) << server.error().to_string();
  ASSERT_GT((*server)->port(), 0);
  auto client = client_for((*server)->port());

  auto before = client.Get("/metrics");
  ASSERT_TRUE(before) << httplib::to_string(before.error());
  EXPECT_EQ(before->status, 200);
  EXPECT_EQ(before->body, "# vramscope: no sample yet\n");

  (*server)->publish("vramscope_samples_total 3\n");
  auto after = client.Get("/metrics");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->body, "vramscope_samples_total 3\n");
  EXPECT_EQ(after->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
}

TEST(MetricsServer, RootIsAPageLinkingTheMetrics) {
  auto server = metrics_server::start("127.0.0.1:0");
  ASSERT_TRUE(server);
  auto client = client_for((*server)->port());
  auto r = client.Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(r->body.find("<a href=\"/metrics\">"), std::string::npos) << r->body;
}

TEST(MetricsServer, OtherPathsAreNotFound) {
  auto server = metrics_server::start("127.0.0.1:0");
  ASSERT_TRUE(server);
  auto client = client_for((*server)->port());
  auto r = client.Get("/metricz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

TEST(MetricsServer, BusyPortIsADiagnostic) {
  auto first = metrics_server::start("127.0.0.1:0");
  ASSERT_TRUE(first);
  const std::string address = "127.0.0.1:" + std::to_string((*first)->port());
  auto second = metrics_server::start(address);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message.rfind("cannot listen on " + address + ": ", 0), 0u)
      << second.error().message;
}

TEST(MetricsServer, StopsWhenDestroyed) {
  int port = 0;
  {
    auto server = metrics_server::start("127.0.0.1:0");
    ASSERT_TRUE(server);
    port = (*server)->port();
  }
  auto client = client_for(port);
  EXPECT_FALSE(client.Get("/metrics")) << "nothing listens after the server is gone";
}

// A client that connects to 127.0.0.1:port and sends `text` (part of a request), then holds
// the connection open: a slowloris client. Closed when destroyed.
class raw_client {
 public:
  raw_client(int port, const std::string& text) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                 ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) ==
                     static_cast<ssize_t>(text.size());
  }
  ~raw_client() {
    if (fd_ >= 0) ::close(fd_);
  }
  raw_client(const raw_client&) = delete;
  raw_client& operator=(const raw_client&) = delete;
  bool connected() const { return connected_; }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// httplib's 8 workers were each held by a client that never finished its headers; every scrape
// then waited. 32 such clients (four times the old pool) and scrapes are still answered at once.
TEST(MetricsServer, ScrapesAreServedWhileSlowClientsHoldConnections) {
  auto server = metrics_server::start("127.0.0.1:0");
  ASSERT_TRUE(server);
  (*server)->publish("vramscope_samples_total 1\n");
  std::vector<std::unique_ptr<raw_client>> slow;
  for (int i = 0; i < 32; ++i) {
    slow.push_back(std::make_unique<raw_client>((*server)->port(), "GET /metrics HTTP/1.1\r\nX: "));
    ASSERT_TRUE(slow.back()->connected());
  }
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto client = client_for((*server)->port());
    auto r = client.Get("/metrics");
    ASSERT_TRUE(r) << httplib::to_string(r.error());
    EXPECT_EQ(r->body, "vramscope_samples_total 1\n");
    EXPECT_LT(seconds_since(start), 1.0);
  }
}

// A slow client did delay shutdown by over a minute; it now takes under a second and a half
// (watch's SIGTERM handling waits for this).
TEST(MetricsServer, StopsPromptlyWithSlowClientsConnected) {
  std::vector<std::unique_ptr<raw_client>> slow;
  std::chrono::steady_clock::time_point start;
  {
    auto server = metrics_server::start("127.0.0.1:0");
    ASSERT_TRUE(server);
    for (int i = 0; i < 4; ++i)
      slow.push_back(std::make_unique<raw_client>((*server)->port(), "GET /metr"));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    start = std::chrono::steady_clock::now();
  }
  EXPECT_LT(seconds_since(start), 1.5);
}

// A large body is refused from its Content-Length (413) and never held: httplib discards what
// arrives until its read timeout.
TEST(MetricsServer, ALargeRequestBodyIsRefusedUnread) {
  auto server = metrics_server::start("127.0.0.1:0");
  ASSERT_TRUE(server);
  raw_client c((*server)->port(),
               "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 536870912\r\n\r\n" +
                   std::string(4096, 'x'));
  ASSERT_TRUE(c.connected());
  timeval timeout{5, 0};
  ::setsockopt(c.fd(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  char reply[256] = {};
  const ssize_t n = ::recv(c.fd(), reply, sizeof reply - 1, 0);
  ASSERT_GT(n, 0) << "no answer within 5 s";
  EXPECT_EQ(std::string(reply).rfind("HTTP/1.1 413", 0), 0u) << reply;
}

class PluginPath : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("VRAMSCOPE_HTTP_PLUGIN"); }
};

TEST_F(PluginPath, AMissingPluginIsADiagnosticNamingWhereItLooked) {
  setenv("VRAMSCOPE_HTTP_PLUGIN", "/nonexistent/libvramscope_http.so", 1);
  auto server = metrics_server::start("127.0.0.1:0");
  ASSERT_FALSE(server);
  EXPECT_EQ(server.error().to_string(),
            "--prometheus: cannot serve metrics: no usable libvramscope_http.so (tried: "
            "/nonexistent/libvramscope_http.so (absent)); set VRAMSCOPE_HTTP_PLUGIN to its path");
}

TEST_F(PluginPath, AFileThatIsNotThePluginIsRefused) {
  const auto path = std::filesystem::temp_directory_path() / "vramscope_not_a_plugin.so";
  std::ofstream(path) << "not an ELF file";
  setenv("VRAMSCOPE_HTTP_PLUGIN", path.c_str(), 1);
  auto server = metrics_server::start("127.0.0.1:0");
  ASSERT_FALSE(server);
  EXPECT_NE(server.error().message.find("cannot serve metrics: no usable libvramscope_http.so"),
            std::string::npos)
      << server.error().message;
}

}  // namespace
}  // namespace vramscope::watch
