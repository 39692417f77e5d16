// Bad pickles, one case per test, each with the exact message (byte offsets included).
#include <vramscope/observe/torch_snapshot.hpp>

#include <gtest/gtest.h>

#include "observe/snapshot_fixtures.hpp"

namespace vramscope::observe {
namespace {

using namespace std::string_literals;

std::string error_of(const std::string& bytes, snapshot_options options = {}) {
  auto s = analyze_snapshot_bytes(bytes, "snap.pickle", options);
  if (s) return "(no error)";
  return s.error().to_string();
}

// PROTO 4, then an empty snapshot dict: {"segments": [], "device_traces": []}.
const std::string empty_snapshot =
    "\x80\x04}\x94(\x8c\x08segments\x94]\x94\x8c\x0d" "device_traces\x94]\x94u."s;

TEST(PickleMachine, ReadsTheSmallestSnapshot) {
  auto s = analyze_snapshot_bytes(empty_snapshot, "snap.pickle");
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_TRUE(s->devices.empty());
  EXPECT_EQ(s->protocol, 4);
}

TEST(PickleMachine, RejectsAnEmptyFile) {
  EXPECT_EQ(error_of(""), "snap.pickle: at byte offset 0: empty file: expected a pickle");
}

TEST(PickleMachine, RejectsTextThatIsNotAPickle) {
  EXPECT_EQ(error_of("{\"segments\": []}"),
            "snap.pickle: at byte offset 0: not a pickle of protocol 2 or later: the first byte is 0x7b, "
            "expected the PROTO opcode 0x80");
}

TEST(PickleMachine, RejectsATruncatedOpcode) {
  EXPECT_EQ(error_of("\x80\x04\x95\x10\x00\x00"s),
            "snap.pickle: at byte offset 2: the file ends inside FRAME (it needs 5 more bytes)");
}

TEST(PickleMachine, RejectsATruncatedFileAtAnOpcodeBoundary) {
  EXPECT_EQ(error_of(empty_snapshot.substr(0, empty_snapshot.size() - 1)),
            "snap.pickle: at byte offset 37: the file ends before the STOP opcode");
}

TEST(PickleMachine, RejectsATruncatedString) {
  EXPECT_EQ(error_of(empty_snapshot.substr(0, 10)),
            "snap.pickle: at byte offset 5: SHORT_BINUNICODE declares 8 bytes but only 3 remain in the file");
}

TEST(PickleMachine, RejectsAStringLengthBeyondTheFile) {
  EXPECT_EQ(error_of("\x80\x04X\xff\xff\x00\x00" "abc"s),
            "snap.pickle: at byte offset 2: BINUNICODE declares 65535 bytes but only 3 remain in the file");
}

TEST(PickleMachine, RejectsAStringAboveTheLimit) {
  snapshot_options options;
  options.max_string = 4;
  EXPECT_EQ(error_of(empty_snapshot, options),
            "snap.pickle: at byte offset 5: SHORT_BINUNICODE declares a string of 8 bytes, longer than the 4 B limit");
}

TEST(PickleMachine, RejectsAnUnknownOpcode) {
  EXPECT_EQ(error_of("\x80\x04\xff"s), "snap.pickle: at byte offset 2: unknown pickle opcode 0xff");
}

TEST(PickleMachine, RejectsOpcodesThatBuildObjects) {
  EXPECT_EQ(error_of("\x80\x02\x63os\nsystem\n"s),
            "snap.pickle: at byte offset 2: GLOBAL (0x63) builds Python objects; a memory snapshot holds only "
            "dicts, lists, tuples, strings and numbers");
}

TEST(PickleMachine, RejectsProtocolZeroTextOpcodes) {
  EXPECT_EQ(error_of("\x80\x02I42\n"s),
            "snap.pickle: at byte offset 2: INT is a protocol 0 text opcode; memory snapshots use protocols 2 to 5");
}

TEST(PickleMachine, RejectsAnUnknownProtocol) {
  EXPECT_EQ(error_of("\x80\x06."s),
            "snap.pickle: at byte offset 0: pickle protocol 6 is newer than the protocols 2 to 5 this reader knows");
}

TEST(PickleMachine, RejectsNestingTooDeep) {
  const std::string deep = "\x80\x04]"s + std::string(101, '(');
  EXPECT_EQ(error_of(deep), "snap.pickle: at byte offset 103: nesting is deeper than 100 levels");
}

TEST(PickleMachine, RejectsTooManyStackValues) {
  snapshot_options options;
  options.max_stack = 3;
  EXPECT_EQ(error_of("\x80\x04NNNN"s, options),
            "snap.pickle: at byte offset 5: more than 3 values on the unpickler stack");
}

TEST(PickleMachine, RejectsMoreLiveBlocksThanTheMemoryLimit) {
  testing::snapshot_maker m;
  for (std::uint64_t i = 0; i < 2000; ++i) m.event(0, "alloc", 0x7f0000000000 + i * 512, 512);
  snapshot_options options;
  options.max_retained = 64 * 1024;
  const std::string error = error_of(m.bytes(), options);
  EXPECT_NE(error.find(": more than 64.0 KiB kept for blocks live in the trace (limit)"), std::string::npos)
      << error;
}

TEST(PickleMachine, RejectsAMemoEntryNeverStored) {
  EXPECT_EQ(error_of("\x80\x04h\x05"s),
            "snap.pickle: at byte offset 2: BINGET reads memo entry 5, which was never stored");
}

TEST(PickleMachine, RejectsAMemoStoreThatSkipsAhead) {
  EXPECT_EQ(error_of("\x80\x02Nq\x07"s),
            "snap.pickle: at byte offset 3: BINPUT stores memo entry 7, beyond the 0 entries stored so far");
}

TEST(PickleMachine, RejectsSetItemsWithoutAMark) {
  EXPECT_EQ(error_of("\x80\x04}u"s), "snap.pickle: at byte offset 3: SETITEMS has no MARK before it");
}

TEST(PickleMachine, RejectsPopsBelowAMark) {
  // A dict, a key and a value, then MARK: SETITEM may not reach below the MARK.
  EXPECT_EQ(error_of("\x80\x04}NN(s"s),
            "snap.pickle: at byte offset 6: SETITEM needs a dict, a key and a value on the stack");
  EXPECT_EQ(error_of("\x80\x04N(2"s), "snap.pickle: at byte offset 4: DUP with an empty stack");
  EXPECT_EQ(error_of("\x80\x04N(\x94"s), "snap.pickle: at byte offset 4: MEMOIZE with an empty stack");
}

TEST(PickleMachine, RejectsAnOddNumberOfDictItems) {
  EXPECT_EQ(error_of("\x80\x04}(NNNu"s),
            "snap.pickle: at byte offset 7: SETITEMS has an odd number of items (3) after its MARK");
}

TEST(PickleMachine, RejectsAppendsToADict) {
  EXPECT_EQ(error_of("\x80\x04}(Ne"s),
            "snap.pickle: at byte offset 5: APPENDS needs a list below its items, found a dict or tuple");
}

TEST(PickleMachine, RejectsATopLevelThatIsNotASnapshot) {
  EXPECT_EQ(error_of("\x80\x04K\x05."s),
            "snap.pickle: at byte offset 4: the pickle holds an integer at the top level; expected the dict "
            "written by torch.cuda.memory._dump_snapshot (with \"segments\" and \"device_traces\")");
}

TEST(PickleMachine, RejectsADictWithoutSnapshotKeys) {
  EXPECT_EQ(error_of("\x80\x04}\x94."s),
            "snap.pickle: at byte offset 4: the top-level dict has neither \"segments\" nor \"device_traces\"; "
            "expected the dict written by torch.cuda.memory._dump_snapshot (with \"segments\" and "
            "\"device_traces\")");
}

TEST(PickleMachine, RejectsATraceEntryWithAStringAddress) {
  using namespace testing;
  auto entry = dict({{"action", "alloc"}, {"addr", "0x7f00"}, {"size", 512}});
  const std::string bytes =
      pickle_writer(4).dump(dict({{"segments", list()}, {"device_traces", list({list({entry})})}}));
  const std::string error = error_of(bytes);
  EXPECT_NE(error.find(": trace entry: \"addr\" is a string, expected a non-negative integer"), std::string::npos)
      << error;
}

TEST(PickleMachine, RejectsATraceEntryWithoutASize) {
  using namespace testing;
  auto entry = dict({{"action", "free_requested"}, {"addr", 4096}});
  const std::string bytes =
      pickle_writer(4).dump(dict({{"segments", list()}, {"device_traces", list({list({entry})})}}));
  EXPECT_NE(error_of(bytes).find(": trace entry: the \"size\" key is missing"), std::string::npos);
}

TEST(PickleMachine, RejectsASizeNoGpuHas) {
  using namespace testing;
  auto entry = dict({{"action", "alloc"}, {"addr", 4096}, {"size", std::uint64_t{1} << 60}});
  const std::string bytes =
      pickle_writer(4).dump(dict({{"segments", list()}, {"device_traces", list({list({entry})})}}));
  EXPECT_NE(error_of(bytes).find("\"size\" is 1152921504606846976 bytes, more than any GPU holds"),
            std::string::npos);
}

TEST(PickleMachine, RejectsATraceEntryReferencedTwice) {
  // An entry memoised at index 2, appended to its list, then fetched again with BINGET 2.
  const std::string bytes =
      "\x80\x04]\x94]\x94}\x94(\x8c\x06" "action\x94\x8c\x08snapshot\x94u" "a" "h\x02"s;
  EXPECT_EQ(error_of(bytes),
            "snap.pickle: at byte offset 31: BINGET reads memo entry 2, a trace entry or block list that was "
            "already consumed; a memory snapshot never refers to one twice");
}

TEST(PickleMachine, RejectsASegmentWhoseBlocksAreNotBlocks) {
  using namespace testing;
  auto segment = dict({{"device", 0}, {"address", 4096}, {"total_size", 2097152}, {"blocks", list({1, 2})}});
  const std::string bytes = pickle_writer(4).dump(dict({{"segments", list({segment})}, {"device_traces", list()}}));
  EXPECT_NE(error_of(bytes).find(": segment: \"blocks\" holds an integer, expected block dicts"), std::string::npos);
}

}  // namespace
}  // namespace vramscope::observe
