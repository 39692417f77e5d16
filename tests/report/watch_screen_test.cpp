#include <vramscope/report/watch_report.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "watch/watch_support.hpp"

namespace vramscope::report {
namespace {

using watch::frame;
using watch::peak_tracker;
using watch::testing::gpu;
using watch::testing::process;

// `gpus` H100s, GPU i holding 10 + 8 i GiB of 80 with two processes, utilisation 90 - 10 i.
frame node(int gpus, peak_tracker& peaks, std::int64_t time_ms = 1732183200000) {
  frame f;
  f.source = "nvml";
  f.samples_in_window = 4;
  f.now.time_ms = time_ms;
  for (int i = 0; i < gpus; ++i) {
    f.now.gpus.push_back(gpu(i, static_cast<bytes>(10 + 8 * i) * GiB, 80 * GiB));
    f.now.gpus.back().gpu.name = "NVIDIA H100 80GB HBM3";
    f.now.gpus.back().gpu.utilization_gpu = 90 - 10 * i;
    f.now.processes.push_back(process(i, 1000 + i, static_cast<bytes>(9 + 8 * i) * GiB, i));
    f.now.processes.back().process.name = "/usr/bin/python3";
    f.now.processes.back().details.world_size = gpus;
    f.now.processes.back().details.framework = "torch";
    f.now.processes.push_back(process(i, 2000 + i, 500 * MiB));
    f.now.processes.back().process.name = "nvtop";
  }
  peaks.add(f.now);
  peaks.fill_window_peaks(f.now);
  return f;
}

watch_screen screen_of(const frame& f, const peak_tracker& peaks, bool unicode = true) {
  watch_screen s({std::chrono::milliseconds(1000), true, unicode, 256});
  s.add(f, peaks);
  return s;
}

std::vector<std::string> texts(const std::vector<screen_line>& page) {
  std::vector<std::string> out;
  for (const auto& l : page) out.push_back(line_text(l));
  return out;
}

int row_of(const std::vector<std::string>& lines, std::string_view start) {
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].starts_with(start)) return static_cast<int>(i);
  return -1;
}

TEST(WatchScreen, EightGpusFitEightyByTwentyFour) {
  peak_tracker peaks;
  const frame f = node(8, peaks);
  const auto lines = texts(screen_of(f, peaks).layout(80, 24));
  ASSERT_EQ(lines.size(), 24u);
  for (const auto& l : lines) EXPECT_LE(columns(l), 80u) << l;
  EXPECT_TRUE(lines[0].starts_with(" vramscope watch  2024-11-21 10:00:00  nvml  every 1 s"))
      << lines[0];
  EXPECT_TRUE(lines[1].starts_with(
      "GPU NAME           MEMORY (GiB)     USED/TOTAL UTIL   PEAK    MAX HISTORY"))
      << lines[1];
  for (int i = 0; i < 8; ++i) {
    const auto& row = lines[static_cast<std::size_t>(2 + i)];
    EXPECT_TRUE(row.starts_with(std::to_string(i) + "   H100 80GB HBM3 ")) << row;
    EXPECT_NE(row.find(fmt::format("{:.1f}/80.0", 10.0 + 8 * i)), std::string::npos) << row;
  }
  // 24 rows: title, header, 8 GPUs, the process header, 12 processes, the key line.
  EXPECT_TRUE(lines[10].starts_with("GPU PID      RANK   NAME")) << lines[10];
  EXPECT_TRUE(lines[11].starts_with("0   1000     0/8    python3")) << lines[11];
  EXPECT_NE(lines[23].find("q quit"), std::string::npos);
  EXPECT_NE(lines[23].find("not shown: 4 processes"), std::string::npos) << lines[23];
}

TEST(WatchScreen, EverySizeGivesExactlyItsRowsAndNoWiderLine) {
  peak_tracker peaks;
  frame f = node(8, peaks);
  watch::alert a;
  a.gpu = 0;
  a.message = std::string(300, 'x');  // longer than any terminal line
  f.alerts = {a, a};
  const auto screen = screen_of(f, peaks);
  for (int w : {1, 2, 10, 40, 79, 80, 81, 100, 120, 200, 400})
    for (int h : {1, 2, 3, 4, 5, 12, 24, 25, 60}) {
      const auto page = screen.layout(w, h);
      ASSERT_EQ(page.size(), static_cast<std::size_t>(h)) << w << "x" << h;
      for (const auto& l : page)
        ASSERT_LE(columns(line_text(l)), static_cast<std::size_t>(w)) << w << "x" << h;
      if (h >= 2) {
        const auto keys = static_cast<std::size_t>(std::min(w, 2));
        EXPECT_EQ(line_text(page.back()).substr(0, keys), std::string(" q").substr(0, keys));
      }
    }
}

TEST(WatchScreen, SaysWhatDidNotFit) {
  peak_tracker peaks;
  const frame f = node(8, peaks);
  const auto lines = texts(screen_of(f, peaks).layout(80, 8));
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(row_of(lines, "4   "), 6) << "title, header, GPUs 0-4";
  EXPECT_NE(lines[7].find("not shown: 3 GPUs, 16 processes"), std::string::npos) << lines[7];
}

TEST(WatchScreen, SortKeyOrdersGpusByMemoryThenUtilization) {
  peak_tracker peaks;
  const frame f = node(4, peaks);
  auto screen = screen_of(f, peaks);
  EXPECT_EQ(screen.sort(), screen_sort::index);
  screen.cycle_sort();
  auto lines = texts(screen.layout(100, 30));
  EXPECT_EQ(row_of(lines, "3   "), 2) << "most memory first";
  EXPECT_EQ(row_of(lines, "0   H100"), 5);
  EXPECT_NE(lines.back().find("sort: memory"), std::string::npos);
  // Processes follow memory too, across GPUs.
  EXPECT_TRUE(lines[7].starts_with("3   1003")) << lines[7];
  screen.cycle_sort();
  lines = texts(screen.layout(100, 30));
  EXPECT_EQ(row_of(lines, "0   H100"), 2) << "busiest first";
  EXPECT_NE(lines.back().find("sort: utilization"), std::string::npos);
  screen.cycle_sort();
  EXPECT_EQ(screen.sort(), screen_sort::index);
}

TEST(WatchScreen, ProcessKeyHidesAndShowsTheProcessRows) {
  peak_tracker peaks;
  const frame f = node(2, peaks);
  auto screen = screen_of(f, peaks);
  EXPECT_GE(row_of(texts(screen.layout(80, 24)), "GPU PID"), 0);
  screen.toggle_processes();
  const auto hidden = texts(screen.layout(80, 24));
  EXPECT_EQ(row_of(hidden, "GPU PID"), -1);
  EXPECT_NE(hidden.back().find("p processes (off)"), std::string::npos) << hidden.back();
}

TEST(WatchScreen, BarsAreColouredByHowFullTheGpuIs) {
  peak_tracker peaks;
  frame f = node(3, peaks);
  f.now.gpus[0].gpu.used = 40 * GiB;  // 50 %
  f.now.gpus[1].gpu.used = 64 * GiB;  // 80 %
  f.now.gpus[2].gpu.used = 76 * GiB;  // 95 %
  const auto page = screen_of(f, peaks).layout(80, 24);
  const screen_style expected[] = {screen_style::good, screen_style::warn, screen_style::bad};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& line = page[2 + i];
    const auto bar = std::find_if(line.begin(), line.end(),
                                  [](const screen_run& r) { return r.text.starts_with("█"); });
    ASSERT_NE(bar, line.end()) << line_text(line);
    EXPECT_EQ(bar->style, expected[i]) << i;
  }
  // Half of a 15-cell bar is 7.5 cells: seven full blocks and a half block.
  EXPECT_NE(line_text(page[2]).find("███████▌·······"), std::string::npos) << line_text(page[2]);
}

TEST(WatchScreen, HistoryShowsOnePointPerRefreshNewestLast) {
  peak_tracker peaks;
  watch_screen screen({std::chrono::milliseconds(1000), true, true, 256});
  for (int step = 0; step < 8; ++step) {
    frame f = node(1, peaks, 1732183200000 + step * 1000);
    f.now.gpus[0].gpu.used = static_cast<bytes>(step) * 10 * GiB + 1;  // 0 % .. 87.5 %
    f.now.gpus[0].peak_used = f.now.gpus[0].gpu.used;
    screen.add(f, peaks);
  }
  const auto row = line_text(screen.layout(80, 24)[2]);
  EXPECT_TRUE(row.ends_with("▁▂▃▄▅▆▇█")) << row;
}

TEST(WatchScreen, AsciiModeDrawsOnlyAscii) {
  peak_tracker peaks;
  const frame f = node(8, peaks);
  for (const auto& l : texts(screen_of(f, peaks, false).layout(80, 24)))
    EXPECT_TRUE(std::all_of(l.begin(), l.end(), [](char c) { return c > 0 && c < 0x7f; })) << l;
}

TEST(WatchScreen, AlertsTakeTheRowsTheProcessesLeaveAndCountTheRest) {
  peak_tracker peaks;
  frame f = node(2, peaks);  // 2 GPUs, 4 processes: 19 rows below the GPUs at 80 x 24
  for (int i = 0; i < 30; ++i) {
    watch::alert a;
    a.gpu = 0;
    a.message = fmt::format("alert number {}", i);
    f.alerts.push_back(a);
  }
  const auto lines = texts(screen_of(f, peaks).layout(80, 24));
  EXPECT_EQ(lines[4], "! [shared_gpu] alert number 0");
  // 22 body rows - 3 GPU rows - 5 process rows leave 14 for alerts; the processes stay.
  EXPECT_EQ(lines[17], "! [shared_gpu] alert number 13");
  EXPECT_EQ(row_of(lines, "! [shared_gpu] alert number 14"), -1);
  EXPECT_TRUE(lines[18].starts_with("GPU PID")) << lines[18];
  EXPECT_NE(lines.back().find("not shown: 16 alerts"), std::string::npos) << lines.back();
}

// A frame whose alerts come as evaluate_alerts gives them, by GPU: GPU 0 shares its memory
// with other ranks (a long message), GPU 7 is at 96 % of its memory.
frame crowded(int gpus, peak_tracker& peaks) {
  frame f = node(gpus, peaks);
  for (int i = 0; i < gpus - 1; ++i) {
    watch::alert a;
    a.kind = watch::alert_kind::shared_gpu;
    a.gpu = i;
    a.message = fmt::format(
        "GPU {} holds 2 processes: rank {} (9.0 GiB) and another rank's CUDA "
        "context (500 MiB); set the device before creating tensors "
        "(torch.cuda.set_device(local_rank)) or load checkpoints with "
        "map_location",
        i, i);
    f.alerts.push_back(a);
  }
  watch::alert near;
  near.kind = watch::alert_kind::near_limit;
  near.gpu = gpus - 1;
  near.message = fmt::format(
      "GPU {} peaked at 96 % of its memory (76.8 of 80.0 GiB): the next "
      "spike may run out of memory; lower the micro-batch or turn on "
      "activation checkpointing",
      gpus - 1);
  f.alerts.push_back(near);
  return f;
}

TEST(WatchScreen, MostUrgentAlertComesFirstAtEightyByTwentyFour) {
  peak_tracker peaks;
  const frame f = crowded(8, peaks);
  const auto lines = texts(screen_of(f, peaks).layout(80, 24));
  // title, header, 8 GPU rows: the alerts start on row 10, the near-limit one first, whole.
  EXPECT_TRUE(lines[10].starts_with("! [near_limit] GPU 7 peaked at 96 %")) << lines[10];
  std::string joined = lines[10];
  for (std::size_t i = 11; i < 13; ++i) {
    EXPECT_TRUE(lines[i].starts_with("    ")) << lines[i];
    joined += " " + lines[i].substr(4);
  }
  EXPECT_NE(joined.find(f.alerts.back().message), std::string::npos) << joined;
  EXPECT_EQ(row_of(lines, "! [shared_gpu]"), -1) << "the next alert does not fit in 3 rows";
  EXPECT_TRUE(lines[13].starts_with("GPU PID")) << lines[13];
  EXPECT_NE(lines.back().find("not shown: 7 alerts"), std::string::npos) << lines.back();
}

TEST(WatchScreen, AlertsWrapAtSpacesAtTwoHundredByFifty) {
  peak_tracker peaks;
  const frame f = crowded(8, peaks);
  const auto lines = texts(screen_of(f, peaks).layout(200, 50));
  ASSERT_EQ(lines.size(), 50u);
  EXPECT_TRUE(lines[10].starts_with("! [near_limit] GPU 7")) << lines[10];
  // Every alert is shown whole: no word is cut at the end of a line, and each continuation
  // starts with the indent and a whole word.
  std::size_t alert_lines = 0;
  std::string joined;
  for (std::size_t i = 10; i < lines.size(); ++i) {
    if (!lines[i].starts_with("! [") && !lines[i].starts_with("    ")) break;
    ++alert_lines;
    EXPECT_LE(lines[i].size(), 200u);
    EXPECT_NE(lines[i].back(), ' ') << lines[i];
    joined += (lines[i].starts_with("    ") ? " " + lines[i].substr(4) : "\n" + lines[i]);
  }
  EXPECT_GE(alert_lines, 8u);
  for (const auto& a : f.alerts) EXPECT_NE(joined.find(a.message), std::string::npos) << a.message;
  EXPECT_EQ(lines.back().find("alert"), std::string::npos) << lines.back();
}

TEST(WatchScreen, AnAlertLongerThanItsRowsIsCutAtAWord) {
  peak_tracker peaks;
  frame f = node(8, peaks);
  watch::alert a;
  a.kind = watch::alert_kind::near_limit;
  a.gpu = 7;
  for (int i = 0; i < 60; ++i) a.message += fmt::format("word{} ", i);
  f.alerts = {a};
  const auto lines = texts(screen_of(f, peaks).layout(80, 24));
  EXPECT_TRUE(lines[10].starts_with("! [near_limit] word0 word1")) << lines[10];
  ASSERT_TRUE(lines[12].ends_with(" ...")) << lines[12];
  // The word before the dots is whole: it is one of the message's words.
  const std::string before = lines[12].substr(0, lines[12].size() - 4);
  const std::string last_word = before.substr(before.rfind(' ') + 1);
  EXPECT_NE(a.message.find(last_word + " "), std::string::npos) << lines[12];
  EXPECT_TRUE(last_word.starts_with("word")) << last_word;
  EXPECT_TRUE(lines[13].starts_with("GPU PID")) << lines[13];
}

TEST(WatchScreen, LostGpusAndOddNamesStayOnTheirRow) {
  peak_tracker peaks;
  frame f = node(2, peaks);
  f.now.gpus[1].lost = true;
  f.now.processes[0].process.name = "train\x1b[2J\xe2\x82\xac";  // an escape and a euro sign
  const auto lines = texts(screen_of(f, peaks).layout(80, 24));
  EXPECT_EQ(lines[3], "1   H100 80GB HBM3 lost: the driver cannot reach this GPU");
  const int row = row_of(lines, "0   1000");
  ASSERT_GE(row, 0);
  EXPECT_NE(lines[static_cast<std::size_t>(row)].find("train?[2J???"), std::string::npos)
      << lines[static_cast<std::size_t>(row)];
}

TEST(WatchScreen, WaitsForTheFirstRefresh) {
  watch_screen screen({});
  EXPECT_FALSE(screen.has_frame());
  const auto lines = texts(screen.layout(80, 24));
  ASSERT_EQ(lines.size(), 24u);
  EXPECT_NE(lines[0].find("waiting for the first sample"), std::string::npos);
  EXPECT_NE(lines[23].find("q quit"), std::string::npos);
}

}  // namespace
}  // namespace vramscope::report
