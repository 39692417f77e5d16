#include <vramscope/watch/prometheus.hpp>

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

using testing::gpu;
using testing::process;

frame ddp_frame(peak_tracker& peaks) {
  frame f;
  f.source = "nvml";
  f.now.time_ms = 1732183200500;
  f.now.gpus.push_back(gpu(0, 22 * GiB, 80 * GiB, "GPU-aaaa"));
  f.now.gpus[0].gpu.bus_id = "00000000:18:00.0";
  f.now.gpus[0].gpu.name = "NVIDIA H100 \"80GB\"";
  f.now.gpus[0].gpu.utilization_gpu = 37;
  f.now.gpus.push_back(gpu(1, 20 * GiB, 80 * GiB, "GPU-bbbb"));
  f.now.gpus.push_back(gpu(2, std::nullopt, std::nullopt, "GPU-cccc"));
  f.now.gpus[2].lost = true;
  f.now.processes.push_back(process(0, 1000, 21 * GiB, 0));
  f.now.processes.back().process.gpu_uuid = "GPU-aaaa";
  f.now.processes.back().process.name = "/usr/bin/python3";
  f.now.processes.push_back(process(0, 1001, 1 * GiB, 1));
  f.now.processes.back().process.gpu_uuid = "GPU-aaaa";
  f.now.processes.push_back(process(1, 1001, 19 * GiB, 1));
  f.now.processes.back().process.gpu_uuid = "GPU-bbbb";
  peaks.add(f.now);
  peaks.fill_window_peaks(f.now);
  f.alerts = evaluate_alerts(f.now);
  return f;
}

TEST(Prometheus, WritesGpuAndProcessGaugesWithDcgmLabels) {
  peak_tracker peaks;
  const std::string text = render_prometheus(ddp_frame(peaks), peaks);
  EXPECT_NE(text.find("# HELP vramscope_gpu_memory_used_bytes "), std::string::npos);
  EXPECT_NE(text.find("# TYPE vramscope_gpu_memory_used_bytes gauge\n"), std::string::npos);
  EXPECT_NE(
      text.find(
          "vramscope_gpu_memory_used_bytes{gpu=\"0\",uuid=\"GPU-aaaa\","
          "pci_bus_id=\"00000000:18:00.0\",model_name=\"NVIDIA H100 \\\"80GB\\\"\","
          "UUID=\"GPU-aaaa\",modelName=\"NVIDIA H100 \\\"80GB\\\"\"} 23622320128\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("vramscope_gpu_utilization_ratio{gpu=\"0\",uuid=\"GPU-aaaa\","),
            std::string::npos);
  EXPECT_NE(text.find("} 0.37\n"), std::string::npos);
  EXPECT_NE(
      text.find("vramscope_process_memory_used_bytes{gpu=\"0\",uuid=\"GPU-aaaa\",pid=\"1000\","
                "comm=\"python3\",rank=\"0\",UUID=\"GPU-aaaa\"} 22548578304\n"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find("vramscope_process_memory_peak_bytes{gpu=\"1\",uuid=\"GPU-bbbb\",pid=\"1001\","
                "comm=\"python3\",rank=\"1\",UUID=\"GPU-bbbb\"} 20401094656\n"),
      std::string::npos);
  EXPECT_NE(text.find("vramscope_samples_total 1\n"), std::string::npos);
  EXPECT_NE(text.find("vramscope_last_sample_timestamp_seconds 1732183200.500\n"),
            std::string::npos);
}

TEST(Prometheus, LostGpuReportsOnlyThatItIsLost) {
  peak_tracker peaks;
  const std::string text = render_prometheus(ddp_frame(peaks), peaks);
  EXPECT_NE(
      text.find("vramscope_gpu_lost{gpu=\"2\",uuid=\"GPU-cccc\",model_name=\"Test GPU\","
                "UUID=\"GPU-cccc\",modelName=\"Test GPU\"} 1\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("vramscope_gpu_lost{gpu=\"0\","), std::string::npos);
  EXPECT_EQ(text.find("vramscope_gpu_memory_total_bytes{gpu=\"2\""), std::string::npos);
}

TEST(Prometheus, AlertGaugeIsOneWhileTheAlertHoldsAndZeroOtherwise) {
  peak_tracker peaks;
  const std::string text = render_prometheus(ddp_frame(peaks), peaks);
  EXPECT_NE(text.find("vramscope_alert_active{alert=\"shared_gpu\",gpu=\"0\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("vramscope_alert_active{alert=\"shared_gpu\",gpu=\"1\"} 0\n"),
            std::string::npos);
  EXPECT_NE(text.find("vramscope_alert_active{alert=\"preallocated_pool\",gpu=\"0\"} 0\n"),
            std::string::npos);
}

// Checks the grammar of the exposition format 0.0.4: comment lines, sample lines of valid
// names, one HELP and TYPE per name before its samples, each name's lines in one group.
TEST(Prometheus, OutputFollowsTheExpositionFormat) {
  peak_tracker peaks;
  stats_folder folder;
  observe::torch_stats s;
  s.rank = 0;
  s.allocated = {1 * GiB, 2 * GiB};
  s.reserved = {3 * GiB, 3 * GiB};
  folder.ranks.push_back({s, "rank0.json", 0.25});
  const std::string text = render_prometheus(ddp_frame(peaks), peaks, {"host-\"a\"", &folder});
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const std::regex sample_line(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*",?)*\})? ([-+0-9.eE]+|NaN))");
  const std::regex type_line(R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (gauge|counter))");
  std::set<std::string> typed, finished;
  std::string current;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.rfind("# HELP ", 0) == 0) continue;
    if (std::regex_match(line, m, type_line)) {
      EXPECT_TRUE(typed.insert(m[1]).second) << "two TYPE lines for " << m[1];
      continue;
    }
    ASSERT_TRUE(std::regex_match(line, m, sample_line)) << "bad line: " << line;
    const std::string name = m[1];
    EXPECT_TRUE(typed.count(name)) << name << " has no TYPE before its first sample";
    if (name != current) {
      EXPECT_FALSE(finished.count(name)) << name << " lines are not in one group";
      if (!current.empty()) finished.insert(current);
      current = name;
    }
  }
}

TEST(Prometheus, HostnameLabelsEverySampleOfTheNode) {
  peak_tracker peaks;
  const std::string text = render_prometheus(ddp_frame(peaks), peaks, {"gpu-node-07", nullptr});
  EXPECT_NE(text.find("vramscope_gpu_memory_used_bytes{gpu=\"1\",uuid=\"GPU-bbbb\",model_name=\"Test GPU\","
                      "Hostname=\"gpu-node-07\",UUID=\"GPU-bbbb\",modelName=\"Test GPU\"} "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("vramscope_alert_active{alert=\"shared_gpu\",gpu=\"0\",Hostname=\"gpu-node-07\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("rank=\"0\",Hostname=\"gpu-node-07\",UUID=\"GPU-aaaa\"} 22548578304\n"),
            std::string::npos);
  // every GPU, process and alert sample carries it; the two totals do not
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("vramscope_samples_total", 0) == 0 ||
        line.rfind("vramscope_last_sample", 0) == 0)
      continue;
    EXPECT_NE(line.find("Hostname=\"gpu-node-07\""), std::string::npos) << line;
  }
}

TEST(Prometheus, ExportsEachRanksAllocatorFigures) {
  peak_tracker peaks;
  stats_folder folder;
  observe::torch_stats s;
  s.rank = 3;
  s.allocated = {30 * GiB, 31 * GiB};
  s.reserved = {36 * GiB, 38 * GiB};
  s.active = {30 * GiB, std::nullopt};
  s.num_alloc_retries = 2;
  folder.ranks.push_back({s, "rank3.json", 1.5});
  observe::torch_stats unknown;  // only the current allocated figure, no rank
  unknown.allocated.current = 1 * GiB;
  folder.ranks.push_back({unknown, "other.json", 0});
  folder.skipped = 1;
  const std::string text = render_prometheus(ddp_frame(peaks), peaks, {"n1", &folder});
  const std::string l = "{rank=\"3\",file=\"rank3.json\",Hostname=\"n1\"} ";
  EXPECT_NE(text.find("vramscope_torch_allocated_bytes" + l + std::to_string(30 * GiB) + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("vramscope_torch_reserved_peak_bytes" + l + std::to_string(38 * GiB) + "\n"), std::string::npos);
  EXPECT_NE(text.find("vramscope_torch_allocated_peak_bytes" + l + std::to_string(31 * GiB) + "\n"), std::string::npos);
  EXPECT_NE(text.find("vramscope_torch_active_bytes" + l + std::to_string(30 * GiB) + "\n"), std::string::npos);
  EXPECT_NE(text.find("vramscope_torch_alloc_retries_total" + l + "2\n"), std::string::npos);
  EXPECT_NE(text.find("vramscope_torch_stats_age_seconds" + l + "1.500\n"), std::string::npos);
  EXPECT_EQ(text.find("vramscope_torch_ooms_total"), std::string::npos) << "not in the file: no sample";
  EXPECT_NE(text.find("vramscope_torch_allocated_bytes{file=\"other.json\",Hostname=\"n1\"} 1073741824\n"),
            std::string::npos);
  EXPECT_EQ(text.find("vramscope_torch_reserved_bytes{file=\"other.json\""), std::string::npos);
  EXPECT_NE(text.find("vramscope_torch_stats_files_skipped{Hostname=\"n1\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE vramscope_torch_alloc_retries_total counter\n"), std::string::npos);
}

TEST(Prometheus, EscapesLabelValues) {
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
}

// A process name the kernel cut at 15 bytes in the middle of a Cyrillic letter: one bad byte
// made Prometheus reject the whole scrape. Each byte that is not UTF-8 becomes U+FFFD.
TEST(Prometheus, RepairsLabelValuesThatAreNotUtf8) {
  const std::string cut = "\xD0\x9E\xD0\xB1\xD1";  // "Об" and the first byte of "у"
  EXPECT_EQ(escape_label_value(cut), "\xD0\x9E\xD0\xB1\xEF\xBF\xBD");
  EXPECT_EQ(escape_label_value("\xFF\xC0\xAF ok"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD ok");
  EXPECT_EQ(escape_label_value("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD")
      << "a surrogate is not UTF-8";
  EXPECT_EQ(escape_label_value("\xF0\x9F\x98\x80 \xE2\x82\xAC"), "\xF0\x9F\x98\x80 \xE2\x82\xAC");
}

TEST(ListenAddress, ParsesHostAndPort) {
  auto a = parse_listen_address("127.0.0.1:9400");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->first, "127.0.0.1");
  EXPECT_EQ(a->second, 9400);
  auto any = parse_listen_address(":9400");
  ASSERT_TRUE(any);
  EXPECT_EQ(any->first, "0.0.0.0");
  auto v6 = parse_listen_address("[::1]:0");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->first, "::1");
}

TEST(ListenAddress, RejectsMalformedAddresses) {
  auto none = parse_listen_address("9400");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().to_string(),
            "--prometheus: expected HOST:PORT such as 127.0.0.1:9400, got \"9400\"");
  auto big = parse_listen_address("127.0.0.1:70000");
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message, "expected a port from 0 to 65535, got \"70000\"");
}

}  // namespace
}  // namespace vramscope::watch
