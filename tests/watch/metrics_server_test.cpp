// The /metrics endpoint on 127.0.0.1 with an ephemeral port. Every client call has a short
// timeout, so a broken server fails the test instead of hanging it.
#include <vramscope/watch/prometheus.hpp>

#include <httplib.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

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
