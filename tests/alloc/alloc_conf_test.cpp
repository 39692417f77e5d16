// parse_alloc_conf: accepted forms, the list form of roundup_power2_divisions, ignored keys,
// and each failure with its exact message.

#include <vramscope/alloc/caching_options.hpp>

#include <gtest/gtest.h>

namespace vramscope::alloc {
namespace {

std::string error_of(std::string_view conf) {
  auto parsed = parse_alloc_conf(conf);
  if (parsed) return "<parsed>";
  return parsed.error().to_string();
}

TEST(ParseAllocConf, ReadsEveryMemoryOption) {
  auto parsed = parse_alloc_conf(
      "expandable_segments:True,max_split_size_mb:512,garbage_collection_threshold:0.6,"
      "roundup_power2_divisions:4,backend:native,release_lock_on_cudamalloc:True,"
      "max_non_split_rounding_mb:64");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_TRUE(parsed->expandable_segments);
  EXPECT_EQ(parsed->max_split_size, 512_MiB);
  EXPECT_DOUBLE_EQ(parsed->garbage_collection_threshold, 0.6);
  EXPECT_EQ(parsed->roundup_power2_divisions[0], 4u);
  EXPECT_EQ(parsed->roundup_power2_divisions[15], 4u);
  EXPECT_EQ(parsed->backend, alloc_backend::native);
  EXPECT_TRUE(parsed->release_lock_on_cudamalloc);
  EXPECT_EQ(parsed->max_non_split_rounding, 64_MiB);
}

TEST(ParseAllocConf, EmptyTextGivesDefaults) {
  auto parsed = parse_alloc_conf("");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->max_split_size, unlimited_split);
  EXPECT_FALSE(parsed->expandable_segments);
}

TEST(ParseAllocConf, IgnoresSpacesAndTrailingComma) {
  auto parsed = parse_alloc_conf(" max_split_size_mb : 128 ,");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(parsed->max_split_size, 128_MiB);
}

TEST(ParseAllocConf, ListFormSetsIntervalsLikeUpstream) {
  auto parsed = parse_alloc_conf("roundup_power2_divisions:[256:1,512:2,1024:4,>:8]");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  // 256 MiB is interval 8 and also fills 0-7; ">" fills from the last key's interval (10) up,
  // overwriting its 4, as upstream's fill from last_index does.
  const std::array<std::uint32_t, 16> expected = {1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 8, 8, 8, 8, 8, 8};
  EXPECT_EQ(parsed->roundup_power2_divisions, expected);
}

TEST(ParseAllocConf, SelectsCudaMallocAsyncAndWarnsAboutNativeOptions) {
  warnings w;
  auto parsed = parse_alloc_conf("backend:cudaMallocAsync,max_split_size_mb:256", &w);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->backend, alloc_backend::cuda_malloc_async);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].column, 25);
  EXPECT_EQ(w[0].message,
            "backend:cudaMallocAsync ignores max_split_size_mb, max_non_split_rounding_mb, "
            "roundup_power2_divisions, garbage_collection_threshold and expandable_segments");
}

TEST(ParseAllocConf, AcceptsPinnedMemoryKeysWithAWarning) {
  warnings w;
  auto parsed = parse_alloc_conf(
      "pinned_use_cuda_host_register:True,pinned_num_register_threads:8,"
      "graph_capture_record_stream_reuse:False",
      &w);
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].to_string(),
            "PYTORCH_CUDA_ALLOC_CONF:1:1: pinned_use_cuda_host_register affects pinned host memory "
            "only; ignored\n"
            "pinned_use_cuda_host_register:True,pinned_num_register_threads:8,"
            "graph_capture_record_stream_reuse:False\n"
            "^ near here");
  EXPECT_EQ(w[1].message, "pinned_num_register_threads affects pinned host memory only; ignored");
  EXPECT_EQ(w[2].message,
            "graph_capture_record_stream_reuse affects CUDA graph capture only; ignored");
}

TEST(ParseAllocConf, RejectsMaxSplitSizeBelowTwentyMiB) {
  EXPECT_EQ(error_of("max_split_size_mb:10"),
            "PYTORCH_CUDA_ALLOC_CONF:1:19: max_split_size_mb: must be at least 20 (MiB), got 10\n"
            "max_split_size_mb:10\n"
            "                  ^ near here");
}

TEST(ParseAllocConf, RejectsEachBadValueNamingTheKey) {
  auto message = [](std::string_view conf) {
    auto parsed = parse_alloc_conf(conf);
    return parsed ? std::string("<parsed>")
                  : std::to_string(parsed.error().column) + ": " + parsed.error().message;
  };
  EXPECT_EQ(message("max_split_size_mb:big"),
            "19: max_split_size_mb: expected a whole number of MiB, got \"big\"");
  EXPECT_EQ(message("max_non_split_rounding_mb:8"),
            "27: max_non_split_rounding_mb: must be at least 20 (MiB), got 8");
  EXPECT_EQ(message("expandable_segments:true"),
            "21: expandable_segments: expected True or False, got \"true\"");
  EXPECT_EQ(message("garbage_collection_threshold:1.5"),
            "30: garbage_collection_threshold: expected a number strictly between 0.0 and 1.0, "
            "got \"1.5\"");
  EXPECT_EQ(message("roundup_power2_divisions:3"),
            "26: roundup_power2_divisions: divisions must be a power of 2, got 3");
  EXPECT_EQ(message("roundup_power2_divisions:x"),
            "26: roundup_power2_divisions: expected a power of 2 or a list such as "
            "[256:1,512:2,>:8], got \"x\"");
  EXPECT_EQ(message("roundup_power2_divisions:[300:2]"),
            "27: roundup_power2_divisions: interval must be a power of 2 (MiB) or \">\", got "
            "\"300\"");
  EXPECT_EQ(message("roundup_power2_divisions:[256:3]"),
            "31: roundup_power2_divisions: divisions must be a power of 2 or 0, got \"3\"");
  EXPECT_EQ(message("roundup_power2_divisions:[256:1"),
            "32: roundup_power2_divisions: missing \"]\" at the end of the list");
  EXPECT_EQ(message("roundup_power2_divisions:[256:1;512:2]"),
            "31: roundup_power2_divisions: divisions must be a power of 2 or 0, got \"1;512\"");
  EXPECT_EQ(message("backend:cuda"),
            "9: backend: expected native or cudaMallocAsync, got \"cuda\"");
  EXPECT_EQ(message("pinned_num_register_threads:3"),
            "29: pinned_num_register_threads: expected a power of 2 up to 128, got \"3\"");
}

TEST(ParseAllocConf, RejectsMalformedStructure) {
  auto message = [](std::string_view conf) {
    auto parsed = parse_alloc_conf(conf);
    return parsed ? std::string("<parsed>")
                  : std::to_string(parsed.error().column) + ": " + parsed.error().message;
  };
  EXPECT_EQ(message("expandible_segments:True"),
            "1: unknown option \"expandible_segments\" (did you mean \"expandable_segments\"?)");
  EXPECT_EQ(message("foo:1"), "1: unknown option \"foo\" (not a PYTORCH_CUDA_ALLOC_CONF key)");
  EXPECT_EQ(message("max_split_size_mb"), "18: expected \":\" after \"max_split_size_mb\"");
  EXPECT_EQ(message("max_split_size_mb:"), "19: max_split_size_mb: expected a value after \":\"");
  EXPECT_EQ(message("max_split_size_mb:128:3"),
            "22: expected \",\" after the value of \"max_split_size_mb\", got \":\"");
  EXPECT_EQ(message(",max_split_size_mb:128"), "1: expected an option name, got \",\"");
}

}  // namespace
}  // namespace vramscope::alloc
