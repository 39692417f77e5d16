#include <vramscope/observe/torch_snapshot.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <numeric>

#include "observe/snapshot_fixtures.hpp"

namespace vramscope::observe {
namespace {

using testing::frame;
using testing::snapshot_maker;

constexpr std::uint64_t seg = 0x7f3a00000000;

result<snapshot_summary> analyze(const snapshot_maker& m, int protocol = 4, snapshot_options options = {}) {
  return analyze_snapshot_bytes(m.bytes(protocol), "snap.pickle", options);
}

bytes sum_categories(const device_snapshot& d) {
  return std::accumulate(d.categories_at_peak.begin(), d.categories_at_peak.end(), bytes{0});
}

// One 20 MiB segment; allocations of 1000, 3000 and 10000 bytes, the first freed in between.
snapshot_maker simple_snapshot() {
  snapshot_maker m;
  auto fwd = m.stack({frame("forward", "/workspace/model.py", 41), frame("_call_impl",
                      "/usr/lib/python3/site-packages/torch/nn/modules/module.py", 1520)});
  auto opt = m.stack({frame("_multi_tensor_adamw", "/usr/lib/python3/site-packages/torch/optim/adamw.py", 600),
                      frame("train_step", "/workspace/train.py", 88)});
  m.event(0, "segment_alloc", seg, 20 * MiB);
  m.event(0, "alloc", seg, 1000, fwd);
  m.event(0, "alloc", seg + 1024, 3000, opt);
  m.event(0, "free_requested", seg, 1000, fwd);
  m.event(0, "free_completed", seg, 1000, fwd);
  m.event(0, "alloc", seg + 4096, 10000, fwd);
  m.segment(0, seg, 20 * MiB,
            {m.block(1024, 0, "inactive"), m.block(3072, 3000, "active_allocated", opt),
             m.block(10240, 10000, "active_allocated", fwd), m.block(20 * MiB - 14336, 0, "inactive")});
  return m;
}

TEST(TorchSnapshot, FindsThePeakAndTheBlocksLiveThere) {
  auto s = analyze(simple_snapshot());
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->devices.size(), 1u);
  const auto& d = s->devices[0];
  EXPECT_EQ(s->protocol, 4);
  EXPECT_EQ(d.trace_entries, 6u);
  EXPECT_EQ(d.allocs, 3u);
  EXPECT_EQ(d.peak_allocated.value, 3072u + 10240u);
  EXPECT_EQ(d.peak_allocated.trace_index, 5u);
  EXPECT_EQ(d.peak_allocated.time_us, 1'717'000'000'000'060u);
  EXPECT_EQ(d.peak_reserved.value, 20 * MiB);
  EXPECT_EQ(d.peak_reserved.trace_index, 0u);
  EXPECT_EQ(d.reserved_at_allocated_peak, 20 * MiB);
  EXPECT_EQ(d.allocations_at_peak, 2u);
  ASSERT_EQ(d.top_allocations.size(), 2u);
  EXPECT_EQ(d.top_allocations[0].size, 10240u);
  EXPECT_EQ(d.top_allocations[0].requested, 10000u);
  EXPECT_EQ(d.top_allocations[0].address, seg + 4096);
  EXPECT_EQ(d.top_allocations[0].category, memory_category::activations);
  ASSERT_EQ(d.top_allocations[0].frames.size(), 1u);  // module.py is torch internals: hidden
  EXPECT_EQ(d.top_allocations[0].frames[0].filename, "/workspace/model.py");
  EXPECT_EQ(d.top_allocations[0].frames[0].line, 41);
  EXPECT_EQ(d.top_allocations[1].category, memory_category::optimizer);
  EXPECT_EQ(d.categories_at_peak[static_cast<std::size_t>(memory_category::activations)], 10240u);
  EXPECT_EQ(d.categories_at_peak[static_cast<std::size_t>(memory_category::optimizer)], 3072u);
  EXPECT_EQ(sum_categories(d), d.peak_allocated.value);
  EXPECT_EQ(s->alloc_conf, "expandable_segments:False");
}

TEST(TorchSnapshot, ReadsTheFinalSegmentState) {
  auto s = analyze(simple_snapshot());
  ASSERT_TRUE(s);
  const auto& f = s->devices[0].final_state;
  EXPECT_EQ(f.segments, 1u);
  EXPECT_EQ(f.blocks, 4u);
  EXPECT_EQ(f.reserved, 20 * MiB);
  EXPECT_EQ(f.allocated, 13312u);
  EXPECT_EQ(f.requested, 13000u);
  EXPECT_EQ(f.inactive, 20 * MiB - 13312);
  EXPECT_EQ(f.inactive_split, 20 * MiB - 13312);
  EXPECT_EQ(f.inactive_split_blocks, 2u);
  EXPECT_EQ(f.largest_inactive_block, 20 * MiB - 14336);
}

TEST(TorchSnapshot, EveryProtocolGivesTheSameAnswer) {
  const auto m = simple_snapshot();
  for (int protocol : {2, 3, 4, 5}) {
    auto s = analyze(m, protocol);
    ASSERT_TRUE(s) << "protocol " << protocol << ": " << s.error().to_string();
    EXPECT_EQ(s->protocol, protocol);
    EXPECT_EQ(s->devices[0].peak_allocated.value, 13312u) << "protocol " << protocol;
    EXPECT_EQ(s->devices[0].top_allocations[0].frames[0].name, "forward");
  }
}

TEST(TorchSnapshot, AllocationsFromBeforeTheTraceCountFromTheFirstEntry) {
  snapshot_maker m;
  // 5000 B (5120 rounded) allocated before recording, freed at entry 2; a 4096 B block
  // allocated before recording and still live at the end.
  m.event(0, "alloc", seg + 65536, 8192);
  m.event(0, "alloc", seg + 131072, 8192);
  m.event(0, "free_requested", seg, 5000);
  m.event(0, "free_completed", seg, 5000);
  m.segment(0, seg, 2 * MiB,
            {m.block(65536, 0, "inactive"), m.block(8192, 8192, "active_allocated"),
             m.block(57344, 0, "inactive"), m.block(8192, 8192, "active_allocated"),
             m.block(2 * MiB - 139264 - 4096, 0, "inactive"),
             m.block(4096, 4096, "active_allocated", m.stack({frame("__init__", "/workspace/model.py", 12)}))});
  auto s = analyze(m);
  ASSERT_TRUE(s) << s.error().to_string();
  const auto& d = s->devices[0];
  EXPECT_EQ(d.peak_allocated.value, 8192u + 8192u + 5120u + 4096u);
  EXPECT_EQ(d.peak_allocated.trace_index, 1u);
  EXPECT_EQ(d.allocated_before_trace, 2u);
  EXPECT_EQ(d.allocations_at_peak, 4u);
  EXPECT_EQ(sum_categories(d), d.peak_allocated.value);
  EXPECT_EQ(d.categories_at_peak[static_cast<std::size_t>(memory_category::parameters)], 4096u);
  std::size_t before = 0;
  for (const auto& a : d.top_allocations) before += a.trace_index ? 0u : 1u;
  EXPECT_EQ(before, 2u);
}

TEST(TorchSnapshot, ActivePeakCountsBlocksWaitingForStreams) {
  snapshot_maker m;
  m.event(0, "alloc", seg, 1 * MiB);
  m.event(0, "free_requested", seg, 1 * MiB);  // recordStream: completion waits
  m.event(0, "alloc", seg + 1 * MiB, 1 * MiB);
  m.event(0, "free_completed", seg, 1 * MiB);
  m.segment(0, seg, 2 * MiB, {m.block(1 * MiB, 0, "inactive"), m.block(1 * MiB, 1 * MiB, "active_allocated")});
  auto s = analyze(m);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->devices[0].peak_allocated.value, 1 * MiB);
  EXPECT_EQ(s->devices[0].peak_allocated.trace_index, 0u);
  EXPECT_EQ(s->devices[0].peak_active.value, 2 * MiB);
  EXPECT_EQ(s->devices[0].peak_active.trace_index, 2u);
}

TEST(TorchSnapshot, ReservedFollowsSegmentEventsAnchoredAtTheFinalState) {
  snapshot_maker m;
  m.event(0, "segment_alloc", seg, 20 * MiB);
  m.event(0, "segment_alloc", seg + 20 * MiB, 40 * MiB);
  m.event(0, "segment_free", seg + 20 * MiB, 40 * MiB);
  m.segment(0, seg, 20 * MiB, {m.block(20 * MiB, 0, "inactive")});
  m.segment(0, seg + 100 * MiB, 2 * MiB, {m.block(2 * MiB, 0, "inactive")});  // from before the trace
  auto s = analyze(m);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->devices[0].final_state.reserved, 22 * MiB);
  EXPECT_EQ(s->devices[0].peak_reserved.value, 62 * MiB);
  EXPECT_EQ(s->devices[0].peak_reserved.trace_index, 1u);
  EXPECT_EQ(s->devices[0].segment_allocs, 2u);
  EXPECT_EQ(s->devices[0].segment_frees, 1u);
}

TEST(TorchSnapshot, SeparatesDevicesAndRecordsOoms) {
  snapshot_maker m;
  m.event(0, "alloc", seg, 4096);
  m.event(1, "alloc", seg, 8192);
  m.oom(1, 2 * GiB, 1 * GiB);
  m.segment(0, seg, 2 * MiB, {m.block(4096, 4096, "active_allocated"), m.block(2 * MiB - 4096, 0, "inactive")});
  m.segment(1, seg, 2 * MiB, {m.block(8192, 8192, "active_allocated"), m.block(2 * MiB - 8192, 0, "inactive")});
  auto s = analyze(m);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->devices.size(), 2u);
  EXPECT_EQ(s->devices[0].peak_allocated.value, 4096u);
  EXPECT_EQ(s->devices[1].peak_allocated.value, 8192u);
  ASSERT_EQ(s->devices[1].ooms.size(), 1u);
  EXPECT_EQ(s->devices[1].ooms[0].requested, 2 * GiB);
  EXPECT_EQ(s->devices[1].ooms[0].device_free, 1 * GiB);
  EXPECT_EQ(s->devices[1].ooms[0].trace_index, 1u);
}

TEST(TorchSnapshot, CategoriesFollowTheFrameRules) {
  snapshot_maker m;
  const std::pair<const char*, memory_category> cases[] = {
      {"all_gather_into_tensor", memory_category::communication},
      {"backward", memory_category::gradients},
      {"from_pretrained", memory_category::parameters},
      {"step", memory_category::other},
  };
  std::uint64_t addr = seg;
  for (const auto& [name, category] : cases) {
    m.event(0, "alloc", addr, 512, m.stack({frame(name, "/workspace/x.py", 1)}));
    addr += 512;
  }
  auto s = analyze(m);
  ASSERT_TRUE(s);
  const auto& c = s->devices[0].categories_at_peak;
  for (const auto& [name, category] : cases) EXPECT_EQ(c[static_cast<std::size_t>(category)], 512u) << name;
}

TEST(TorchSnapshot, GroupsLiveBlocksByCallSite) {
  snapshot_maker m;
  auto site = m.stack({frame("forward", "/workspace/attn.py", 77)});
  for (int i = 0; i < 1500; ++i) m.event(0, "alloc", seg + static_cast<std::uint64_t>(i) * 4096, 4096, site);
  m.event(0, "alloc", seg + 1500 * 4096ull, 2 * MiB, m.stack({frame("forward", "/workspace/mlp.py", 9)}));
  auto s = analyze(m);
  ASSERT_TRUE(s);
  const auto& d = s->devices[0];
  ASSERT_GE(d.top_sites.size(), 2u);
  EXPECT_EQ(d.top_sites[0].count, 1500u);
  EXPECT_EQ(d.top_sites[0].total, 1500u * 4096u);
  EXPECT_EQ(d.top_sites[0].frames[0].filename, "/workspace/attn.py");
  EXPECT_EQ(d.top_sites[1].total, 2 * MiB);
  EXPECT_EQ(d.top_allocations.size(), 10u);
  EXPECT_EQ(d.top_allocations[0].size, 2 * MiB);
}

TEST(TorchSnapshot, SnapshotWithoutTracesReportsTheFinalState) {
  snapshot_maker m;
  m.segment(0, seg, 2 * MiB, {m.block(4096, 4000, "active_allocated"), m.block(2 * MiB - 4096, 0, "inactive")});
  auto s = analyze(m);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->devices[0].trace_entries, 0u);
  EXPECT_EQ(s->devices[0].peak_allocated.value, 4096u);
  EXPECT_FALSE(s->devices[0].peak_allocated.trace_index);
  EXPECT_EQ(s->devices[0].peak_reserved.value, 2 * MiB);
}

TEST(TorchSnapshot, StreamsAFileFromDiskInSmallChunks) {
  const auto m = simple_snapshot();
  const std::string path = ::testing::TempDir() + "vramscope_snapshot_test.pickle";
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    const std::string data = m.bytes();
    std::fwrite(data.data(), 1, data.size(), f);
    std::fclose(f);
  }
  snapshot_options small;
  small.chunk = 16;  // every string crosses a chunk boundary
  auto s = analyze_snapshot(path, small);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->devices[0].peak_allocated.value, 13312u);
  std::remove(path.c_str());
}

TEST(TorchSnapshot, MissingFileIsNamed) {
  auto s = analyze_snapshot("/nonexistent/snap.pickle");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().to_string(), "/nonexistent/snap.pickle: no such file");
}

// open() on a FIFO blocks until a writer comes; the snapshot reader refuses it first, as the
// other readers do.
TEST(TorchSnapshot, APipeIsRefusedWithoutBlocking) {
  const auto fifo = (std::filesystem::temp_directory_path() /
                     ("vramscope-snapshot-" + std::to_string(::getpid()) + ".fifo")).string();
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto s = analyze_snapshot(fifo);
  std::filesystem::remove(fifo);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("named pipe (FIFO), expected a regular file"), std::string::npos)
      << s.error().message;
}

// The entry scanner keeps what each key's memo reference resolved to while no memo entry
// changes. Here a trace's "addr" key (memo 9) is stored again as "stream" between two entries
// that spell their keys alike: the second entry has no address any more, and says so.
TEST(TorchSnapshot, AKeyStoredAgainInTheMemoIsReadAnew) {
  const auto le32 = [](std::uint32_t v) {
    std::string out(4, '\0');
    for (int i = 0; i < 4; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>(v >> (8 * i));
    return out;
  };
  const auto str = [&](const std::string& s) {
    return "X" + le32(static_cast<std::uint32_t>(s.size())) + s;
  };
  const auto put = [](int i) { return std::string{'q', static_cast<char>(i)}; };
  const auto get = [](int i) { return std::string{'h', static_cast<char>(i)}; };
  const auto integer = [&](std::uint32_t v) { return "J" + le32(v); };
  // {"action": "alloc", "addr": A, "size": 512} as memo references, the entry dict stored at
  // memo `at`.
  const auto entry = [&](int at, std::uint32_t addr) {
    return "}" + put(at) + "(" + get(7) + get(8) + get(9) + integer(addr) + get(10) + integer(512) +
           "u";
  };
  std::size_t first_after = 0;  // where the entries after the second one begin
  const auto snapshot = [&](bool store_again) {
    std::string b = "\x80\x02}" + put(0) + "(" + str("segments") + put(1) + "]" + put(2) +
                    str("device_traces") + put(3) + "]" + put(4) + "]" + put(5) + "(";
    // The first entry spells its strings out (the generic path), the rest refer to them; all
    // but the last few are read by the scanner (the window holds a whole entry after them).
    b += "}" + put(6) + "(" + str("action") + put(7) + str("alloc") + put(8) + str("addr") +
         put(9) + integer(4096) + str("size") + put(10) + integer(512) + "u";
    b += entry(11, 8192);
    if (store_again) b += str("stream") + put(9) + "0";
    first_after = b.size();
    for (int i = 0; i < 16; ++i) b += entry(12 + i, 16384 + 4096 * static_cast<std::uint32_t>(i));
    return b + "ea" + "u.";
  };
  const auto plain = analyze_snapshot_bytes(snapshot(false), "snap.pickle");
  ASSERT_TRUE(plain) << plain.error().to_string();
  ASSERT_EQ(plain->devices.size(), 1u);
  EXPECT_EQ(plain->devices[0].allocs, 18u);
  const auto stored_again = analyze_snapshot_bytes(snapshot(true), "snap.pickle");
  ASSERT_FALSE(stored_again);
  // The first entry after the new store fails, not a later one that the checked path reads
  // (the reader names an entry by the offset of its SETITEMS, its last byte).
  const std::size_t first_end = first_after + entry(12, 0).size() - 1;
  EXPECT_EQ(stored_again.error().to_string(), "snap.pickle: at byte offset " +
                                                  std::to_string(first_end) +
                                                  ": trace entry: the \"addr\" key is missing");
}

}  // namespace
}  // namespace vramscope::observe
