// The CUDA-free half of the injection library, fed with synthetic CUPTI data.
#include <vramscope/trace/trace_record.hpp>
#include <vramscope/trace/trace_writer.hpp>

#include <vramscope/core/io.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "watch/watch_support.hpp"

namespace vramscope::trace {
namespace {

using watch::testing::scoped_env;
using watch::testing::temp_dir;

memory_activity device_alloc(std::uint64_t address, bytes size, std::uint64_t t) {
  memory_activity a;
  a.operation = 1;
  a.memory_kind = 3;
  a.address = address;
  a.bytes = size;
  a.timestamp_ns = t;
  a.device_id = 1;
  return a;
}

TEST(TraceRecorder, TurnsMemoryActivityIntoAllocAndFree) {
  trace_recorder r(4242, 3);
  auto alloc = r.on_memory_activity(device_alloc(0x7f00, 2 * MiB, 100));
  ASSERT_TRUE(alloc);
  EXPECT_EQ(alloc->kind, trace_kind::alloc);
  EXPECT_EQ(alloc->pid, 4242);
  EXPECT_EQ(alloc->rank, 3);
  EXPECT_EQ(alloc->device, 1);
  EXPECT_EQ(alloc->size, 2 * MiB);
  EXPECT_EQ(alloc->api, "memory2");
  memory_activity release = device_alloc(0x7f00, 0, 200);  // size not given: from the alloc
  release.operation = 2;
  auto free = r.on_memory_activity(release);
  ASSERT_TRUE(free);
  EXPECT_EQ(free->kind, trace_kind::free);
  EXPECT_EQ(free->size, 2 * MiB);
}

TEST(TraceRecorder, SkipsHostManagedAndStreamOrderedRecords) {
  trace_recorder r(1, std::nullopt);
  memory_activity pinned = device_alloc(0x10, 64, 1);
  pinned.memory_kind = 2;
  memory_activity managed = device_alloc(0x20, 64, 1);
  managed.memory_kind = 5;
  memory_activity pooled = device_alloc(0x30, 64, 1);
  pooled.is_async = true;
  EXPECT_FALSE(r.on_memory_activity(pinned));
  EXPECT_FALSE(r.on_memory_activity(managed));
  EXPECT_FALSE(r.on_memory_activity(pooled));
  EXPECT_EQ(r.skipped(), 3u);
  memory_activity array = device_alloc(0x40, 64, 1);
  array.memory_kind = 4;
  EXPECT_TRUE(r.on_memory_activity(array));
}

TEST(TraceRecorder, FollowsVirtualMemoryHandlesAndMappings) {
  trace_recorder r(7, std::nullopt);
  driver_call create{driver_call_kind::mem_create, 10, 2, 0, 0xabc, 20 * MiB, std::nullopt};
  auto a = r.on_driver_call(create);
  EXPECT_EQ(a.kind, trace_kind::alloc);
  EXPECT_EQ(a.api, "cuMemCreate");
  EXPECT_EQ(a.device, 2);
  auto map =
      r.on_driver_call({driver_call_kind::mem_map, 11, -1, 0x7000, 0xabc, 20 * MiB, std::nullopt});
  EXPECT_EQ(map.kind, trace_kind::map);
  EXPECT_EQ(map.device, 2) << "the device of the handle that is mapped";
  auto unmap = r.on_driver_call({driver_call_kind::mem_unmap, 12, -1, 0x7000, 0, 0, std::nullopt});
  EXPECT_EQ(unmap.kind, trace_kind::unmap);
  EXPECT_EQ(unmap.size, 20 * MiB);
  EXPECT_EQ(unmap.device, 2);
  auto release =
      r.on_driver_call({driver_call_kind::mem_release, 13, -1, 0, 0xabc, 0, std::nullopt});
  EXPECT_EQ(release.kind, trace_kind::free);
  EXPECT_EQ(release.size, 20 * MiB);
  EXPECT_EQ(release.device, 2);
  auto again = r.on_driver_call({driver_call_kind::mem_release, 14, -1, 0, 0xabc, 0, std::nullopt});
  EXPECT_EQ(again.size, 0u) << "a handle released twice frees nothing the second time";
}

TEST(TraceRecorder, StreamOrderedFreeGetsTheSizeOfItsAllocation) {
  trace_recorder r(7, std::nullopt);
  auto a = r.on_driver_call({driver_call_kind::mem_alloc_async, 1, 0, 0x9000, 0, 4 * MiB, 13u});
  EXPECT_EQ(a.stream, 13u);
  EXPECT_EQ(a.api, "cuMemAllocAsync");
  auto f = r.on_driver_call({driver_call_kind::mem_free_async, 2, -1, 0x9000, 0, 0, 13u});
  EXPECT_EQ(f.kind, trace_kind::free);
  EXPECT_EQ(f.size, 4 * MiB);
  EXPECT_EQ(f.device, 0);
}

TEST(TraceLines, EventLineHasEveryField) {
  trace_record r{123456789,        0, 4242, 1, trace_kind::alloc, 0x7f0000200000, 2 * MiB, 7u,
                 "cuMemAllocAsync"};
  std::string out;
  append_event_line(out, r);
  EXPECT_EQ(out,
            "{\"type\":\"event\",\"timestamp\":123456789,\"device\":0,\"pid\":4242,\"rank\":1,"
            "\"kind\":\"alloc\",\"address\":\"0x7f0000200000\",\"bytes\":2097152,\"stream\":7,"
            "\"api\":\"cuMemAllocAsync\"}\n");
}

TEST(TraceLines, HeaderAndDeviceLinesAreValidJsonWithEscapedText) {
  trace_header h;
  h.pid = 9;
  h.rank = 0;
  h.status = "multiple_subscribers";
  h.message = "CUPTI is already used by \"nsys\"\n\x01\xff";
  std::string out;
  append_header_line(out, h);
  append_device_line(out, 0, "GPU-1234", "NVIDIA \\ H100", 80 * GiB);
  append_dropped_line(out, 12);
  const auto first = out.substr(0, out.find('\n'));
  const auto j = nlohmann::json::parse(first);
  EXPECT_EQ(j["type"], "header");
  EXPECT_EQ(j["status"], "multiple_subscribers");
  EXPECT_EQ(j["message"], "CUPTI is already used by \"nsys\"\n\x01?");
  EXPECT_FALSE(j.contains("world_size"));
  const auto second = nlohmann::json::parse(
      out.substr(first.size() + 1, out.find('\n', first.size() + 1) - first.size() - 1));
  EXPECT_EQ(second["name"], "NVIDIA \\ H100");
  EXPECT_EQ(second["total"], 80 * GiB);
  EXPECT_NE(out.find("{\"type\":\"dropped\",\"count\":12}\n"), std::string::npos);
}

TEST(TraceLines, HeaderComesFromTheEnvironment) {
  scoped_env rank("RANK", "5"), local("LOCAL_RANK", "x"), world("WORLD_SIZE", "8"),
      visible("CUDA_VISIBLE_DEVICES", "GPU-aa,GPU-bb");
  const auto h = header_from_environment(77);
  EXPECT_EQ(h.pid, 77);
  EXPECT_EQ(h.rank, 5);
  EXPECT_FALSE(h.local_rank.has_value());
  EXPECT_EQ(h.world_size, 8);
  EXPECT_EQ(h.cuda_visible_devices, "GPU-aa,GPU-bb");
  EXPECT_EQ(h.status, "ok");
}

TEST(TraceLines, FormatsCudaUuids) {
  const unsigned char b[16] = {0x52, 0x9b, 0x32, 0x63, 0xc9, 0x6d, 0xb5, 0x57,
                               0xbc, 0x75, 0x69, 0x7d, 0x04, 0x91, 0x7e, 0xda};
  EXPECT_EQ(format_gpu_uuid(b), "GPU-529b3263-c96d-b557-bc75-697d04917eda");
}

TEST(TraceWriter, WritesWholeLinesWhenTheBufferFillsAndOnClose) {
  temp_dir dir;
  const std::string path = dir.file(trace_file_name(42));
  EXPECT_EQ(trace_file_name(42), "trace-42.jsonl");
  trace_writer w(64);
  std::string error;
  ASSERT_TRUE(w.open(path, error)) << error;
  w.buffer() += "{\"a\":1}\n";
  w.maybe_flush();
  EXPECT_EQ(*read_file(path), "") << "below the flush size nothing is written";
  w.buffer() += std::string(60, ' ') + "\n";
  w.maybe_flush();
  EXPECT_EQ(read_file(path)->size(), 8u + 61u);
  w.buffer() += "{\"b\":2}\n";
  w.close();
  EXPECT_EQ(read_file(path)->size(), 8u + 61u + 8u);
  EXPECT_EQ(w.written_bytes(), 77u);
}

TEST(TraceWriter, UnopenableFileGoesQuiet) {
  trace_writer w;
  std::string error;
  EXPECT_FALSE(w.open("/nonexistent/dir/trace-1.jsonl", error));
  EXPECT_EQ(error, "/nonexistent/dir/trace-1.jsonl: No such file or directory");
  w.buffer() += "x\n";
  EXPECT_FALSE(w.flush());
  EXPECT_TRUE(w.failed());
  EXPECT_TRUE(w.buffer().empty());
}

}  // namespace
}  // namespace vramscope::trace
