#include <vramscope/model/safetensors.hpp>

#include <gtest/gtest.h>

#include "model/safetensors_bytes.hpp"

namespace vramscope::model {
namespace {

using testing::fake_tensor;
using testing::file_of;
using testing::le64;

std::string parse_error(const std::string& bytes) {
  auto parsed = parse_safetensors_header(bytes, "w.safetensors");
  EXPECT_FALSE(parsed);
  return parsed ? std::string("(parsed)") : parsed.error().to_string();
}

TEST(SafetensorsHeader, ParsesAValidFileInDataOrder) {
  const std::string bytes = file_of({{"b", "F32", {2, 3}}, {"a", "BF16", {4}}});
  auto parsed = parse_safetensors_header(bytes, "w.safetensors");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(parsed->entries.size(), 2u);
  EXPECT_EQ(parsed->entries[0].name, "b");
  EXPECT_EQ(parsed->entries[0].type, dtype::f32);
  EXPECT_EQ(parsed->entries[0].shape, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(parsed->entries[0].end, 24u);
  EXPECT_EQ(parsed->entries[1].name, "a");
  EXPECT_EQ(parsed->entries[1].type, dtype::bf16);
  EXPECT_EQ(parsed->data_start, 8 + parsed->header_length);
  EXPECT_TRUE(parsed->notes.empty());
}

TEST(SafetensorsHeader, ReadsMetadataAndScalars) {
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"s":{"dtype":"I64","shape":[],"data_offsets":[0,8]}})";
  auto parsed = parse_safetensors_header(file_of(header, 8), "w.safetensors");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(parsed->metadata.size(), 1u);
  EXPECT_EQ(parsed->metadata[0].first, "format");
  EXPECT_EQ(parsed->metadata[0].second, "pt");
  EXPECT_TRUE(parsed->entries[0].shape.empty());
}

TEST(SafetensorsHeader, RejectsFileShorterThanTheLength) {
  EXPECT_EQ(parse_error(std::string("\x10\x00\x00", 3)),
            "w.safetensors: byte 0: file is 3 bytes, too short for the 8-byte header length");
}

TEST(SafetensorsHeader, RejectsHeaderLengthBeyondTheFile) {
  EXPECT_EQ(parse_error(le64(1000) + "{}"),
            "w.safetensors: byte 0: header length 1000 runs past the end of the file (10 bytes; "
            "the header would end at byte 1008)");
}

TEST(SafetensorsHeader, RejectsTruncatedHeader) {
  const std::string whole = file_of({{"a", "F32", {2}}});
  const std::string cut = whole.substr(0, 20);  // the header is cut after 12 of its bytes
  auto parsed = parse_safetensors_header(cut, "w.safetensors");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().to_string().find("runs past the end of the file (20 bytes"),
            std::string::npos)
      << parsed.error().to_string();
}

TEST(SafetensorsHeader, RejectsOversizedHeader) {
  EXPECT_EQ(
      parse_safetensors_header(le64(200u << 20), "w.safetensors", 1u << 30).error().to_string(),
      "w.safetensors: byte 0: header length 209715200 exceeds the 100.0 MiB limit");
}

TEST(SafetensorsHeader, RejectsBadJsonAtItsByte) {
  const std::string header = R"({"a":{"dtype":"F32",,}})";
  EXPECT_EQ(parse_error(file_of(header, 0)),
            "w.safetensors: byte 28: invalid JSON in header: syntax error while parsing object "
            "key - unexpected ','; expected string literal");
}

TEST(SafetensorsHeader, RejectsHeaderThatIsNotAnObject) {
  EXPECT_EQ(parse_error(file_of("[1,2]", 0)),
            "w.safetensors: byte 8: the header must be a JSON object starting with '{'");
}

TEST(SafetensorsHeader, RejectsUnknownDtype) {
  const std::string header = R"({"w":{"dtype":"F13","shape":[1],"data_offsets":[0,2]}})";
  EXPECT_EQ(parse_error(file_of(header, 2)),
            "w.safetensors: byte 9: tensor \"w\": unknown dtype \"F13\" (expected one of BF16, "
            "BOOL, F16, F32, F64, F8_E4M3, F8_E5M2, I16, I32, I64, I8, U8)");
}

TEST(SafetensorsHeader, RejectsOffsetsInconsistentWithShape) {
  const std::string header = R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})";
  EXPECT_EQ(parse_error(file_of(header, 20)),
            "w.safetensors: byte 9: tensor \"w\": data_offsets [0, 20] span 20 bytes, but shape "
            "[2, 3] of F32 needs 24 bytes");
}

TEST(SafetensorsHeader, RejectsOffsetsPastTheEnd) {
  const std::string header = R"({"w":{"dtype":"U8","shape":[8],"data_offsets":[4,12]}})";
  EXPECT_EQ(parse_error(file_of(header, 10)),
            "w.safetensors: byte 9: tensor \"w\": data_offsets [4, 12] run past the end of the "
            "file, which holds 10 data bytes after the header");
}

TEST(SafetensorsHeader, RejectsOverlappingOffsets) {
  const std::string header = R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"U8","shape":[8],"data_offsets":[4,12]}})";
  EXPECT_EQ(parse_error(file_of(header, 12)),
            "w.safetensors: byte 61: tensor \"b\": data_offsets [4, 12] overlap tensor \"a\" "
            "[0, 8]");
}

TEST(SafetensorsHeader, RejectsMalformedEntries) {
  EXPECT_EQ(parse_error(file_of(R"({"w":3})", 0)),
            "w.safetensors: byte 9: tensor \"w\": expected an object with \"dtype\", \"shape\" "
            "and \"data_offsets\", got number");
  EXPECT_EQ(parse_error(file_of(R"({"w":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}})", 0)),
            "w.safetensors: byte 9: tensor \"w\": \"shape\" must be a list of non-negative "
            "integers");
  EXPECT_EQ(parse_error(file_of(R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[1,0]}})", 0)),
            "w.safetensors: byte 9: tensor \"w\": \"data_offsets\" must be [begin, end] with "
            "begin <= end");
  EXPECT_EQ(parse_error(file_of(R"({"w":{"shape":[1],"data_offsets":[0,1]}})", 1)),
            "w.safetensors: byte 9: tensor \"w\": missing string field \"dtype\"");
  EXPECT_EQ(parse_error(file_of(R"({"__metadata__":{"a":1}})", 0)),
            "w.safetensors: byte 9: \"__metadata__\" must map names to strings");
}

TEST(SafetensorsHeader, RejectsShapesTooLargeToAddress) {
  const std::string header =
      R"({"w":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}})";
  EXPECT_EQ(parse_error(file_of(header, 0)),
            "w.safetensors: byte 9: tensor \"w\": shape [4294967296, 4294967296] is too large "
            "to address");
}

TEST(SafetensorsHeader, NotesHolesAndTrailingBytes) {
  const std::string header = R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                             R"("b":{"dtype":"U8","shape":[4],"data_offsets":[8,12]}})";
  auto parsed = parse_safetensors_header(file_of(header, 16), "w.safetensors");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(parsed->notes.size(), 2u);
  EXPECT_EQ(parsed->notes[0].to_string(), "w.safetensors: data bytes 4 to 8 belong to no tensor");
  EXPECT_EQ(parsed->notes[1].to_string(),
            "w.safetensors: 4 bytes after the last tensor belong to no tensor");
}

TEST(SafetensorsHeader, ReadsOnlyTheHeaderOfALargeFile) {
  // The caller passes only the header bytes and the real file size.
  const std::string header =
      R"({"w":{"dtype":"BF16","shape":[1024,1024],"data_offsets":[0,2097152]}})";
  const std::string prefix = le64(header.size()) + header;
  auto parsed = parse_safetensors_header(prefix, "big.safetensors", prefix.size() + 2097152);
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(parsed->entries[0].end, 2097152u);
}

TEST(SafetensorsFile, ReadsTheHeaderFromDiskAndNamesThePath) {
  const auto dir = testing::fresh_folder("st_file");
  testing::write(dir / "ok.safetensors", file_of({{"a", "F32", {3}}}));
  auto ok = read_safetensors_header((dir / "ok.safetensors").string());
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_EQ(ok->entries.at(0).end, 12u);
  testing::write(dir / "short.safetensors", "abc");
  EXPECT_EQ(read_safetensors_header((dir / "short.safetensors").string()).error().to_string(),
            (dir / "short.safetensors").string() +
                ": byte 0: file is 3 bytes, too short for the 8-byte header length");
  testing::write(dir / "cut.safetensors", le64(64) + "{\"a\":");
  EXPECT_EQ(read_safetensors_header((dir / "cut.safetensors").string()).error().to_string(),
            (dir / "cut.safetensors").string() +
                ": byte 0: header length 64 runs past the end of the file (13 bytes; the header "
                "would end at byte 72)");
}

TEST(SafetensorsFile, FolderWithoutSafetensorsIsAnError) {
  const auto dir = testing::fresh_folder("st_none");
  auto weights = read_safetensors_checkpoint(dir.string());
  ASSERT_FALSE(weights);
  EXPECT_EQ(weights.error().to_string(), dir.string() + ": no safetensors files");
}

TEST(SafetensorsFile, TensorInTwoFilesIsAnError) {
  const auto dir = testing::fresh_folder("st_twice");
  testing::write(dir / "a.safetensors", file_of({{"x", "F32", {1}}}));
  testing::write(dir / "b.safetensors", file_of({{"x", "F32", {1}}}));
  auto weights = read_safetensors_checkpoint(dir.string());
  ASSERT_FALSE(weights);
  EXPECT_EQ(weights.error().to_string(), (dir / "b.safetensors").string() +
                                             ": tensor \"x\" is also in " +
                                             (dir / "a.safetensors").string());
}

}  // namespace
}  // namespace vramscope::model
