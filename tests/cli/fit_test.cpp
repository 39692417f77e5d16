// `vramscope fit`: the largest micro-batch, --maximize, --try grids, and the verdicts they give
// checked against `plan` on the same configuration.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/axes.hpp"
#include <vramscope/whatif/what_if.hpp>
#include "support/cli.hpp"

namespace vramscope::cli {
namespace {

using vramscope::testing::invoke;

const std::string example = std::string(VRAMSCOPE_SOURCE_DIR) + "/examples/llama-3.1-8b-fsdp2.yaml";

using namespace vramscope::testing::html;

nlohmann::json fit_json(std::vector<std::string> args, int expected_code = 0) {
  args.insert(args.begin(), {"fit", example});
  args.push_back("--json");
  const auto r = invoke(args);
  EXPECT_EQ(r.code, expected_code) << r.err;
  return nlohmann::json::parse(r.out);
}

// plan's verdict on one configuration: 0 fits, 4 tight (inside the safety margin), 1 does not,
// 2 refused.
int plan_code(const std::vector<std::string>& settings) {
  std::vector<std::string> args{"plan", example};
  for (const auto& s : settings) args.insert(args.end(), {"--set", s});
  return invoke(args).code;
}

TEST(Fit, LargestMicroBatchFitsAndTheNextDoesNot) {
  const auto j = fit_json({});
  ASSERT_TRUE(j["largest"].is_number_integer());
  const auto n = j["largest"].get<int>();
  EXPECT_GE(n, 1);
  EXPECT_EQ(j["search"], "bisection");
  EXPECT_EQ(plan_code({"training.micro_batch=" + std::to_string(n)}), 0);
  EXPECT_EQ(plan_code({"training.micro_batch=" + std::to_string(n + 1)}), 1);
  EXPECT_GT(j["miss"]["need"].get<std::int64_t>(), j["miss"]["capacity"].get<std::int64_t>());
}

TEST(Fit, MaximizeSeqLenMatchesPlanAtTheBoundary) {
  const auto j = fit_json({"--maximize", "training.seq_len"});
  const auto n = j["largest"].get<std::int64_t>();
  EXPECT_EQ(plan_code({"training.seq_len=" + std::to_string(n)}), 0);
  // fit maximizes under the safety margin: the next value is tight or does not fit, as plan says.
  EXPECT_EQ(plan_code({"training.seq_len=" + std::to_string(n + 1)}),
            j["miss"]["state"] == "tight" ? 4 : 1);
}

TEST(Fit, FromImportedConfigMatchesPlanFrom) {
  const std::string config = std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/job/torchtitan_llama3_8b.toml";
  const auto r = invoke({"fit", "--from", config, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto n = j["largest"].get<int>();
  auto plan_from = [&](int mb) {
    return invoke({"plan", "--from", config, "--set", "training.micro_batch=" + std::to_string(mb)}).code;
  };
  EXPECT_EQ(plan_from(n), 0);
  EXPECT_EQ(plan_from(n + 1), j["miss"]["state"] == "tight" ? 4 : 1);  // under the margin
}

TEST(Fit, NothingFitsExitsOneWithTheClosestMissAndShortfall) {
  const auto r = invoke({"fit", example, "--set", "hardware.gpu_memory=8GiB"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("no value of training.micro_batch fits: the closest miss is "
                       "training.micro_batch=1 needs "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(short by "), std::string::npos) << r.out;
}

TEST(Fit, TryNothingFitsNamesTheClosestMiss) {
  const auto j = fit_json({"--set", "hardware.gpu_memory=8GiB", "--try", "training.micro_batch=1,2"}, 1);
  EXPECT_TRUE(j["fits"].empty());
  EXPECT_EQ(j["closest_miss"]["settings"][0], "training.micro_batch=1");
  EXPECT_GT(j["closest_miss"]["need"].get<std::int64_t>(), 8LL << 30);
}

TEST(Fit, TryRanksByCostThenHeadroom) {
  const auto j = fit_json({"--try", "training.activation_checkpointing=none,full,selective",
                           "--try", "training.micro_batch=1,2"});
  ASSERT_FALSE(j["fits"].empty());
  for (std::size_t i = 1; i < j["fits"].size(); ++i) {
    const auto& a = j["fits"][i - 1];
    const auto& b = j["fits"][i];
    EXPECT_LE(a["recompute"].get<double>(), b["recompute"].get<double>());
    // Network cost per token trained (a larger micro-batch sends the same bytes for more tokens).
    if (a["recompute"] == b["recompute"]) {
      EXPECT_LE(a["network_bytes_per_token"].get<double>(),
                b["network_bytes_per_token"].get<double>());
    }
    if (a["recompute"] == b["recompute"] &&
        a["network_bytes_per_token"] == b["network_bytes_per_token"] &&
        a["host_memory"] == b["host_memory"]) {
      EXPECT_GE(a["headroom"].get<std::int64_t>(), b["headroom"].get<std::int64_t>());
    }
  }
  const auto text = invoke({"fit", example, "--try", "training.micro_batch=1,2"});
  EXPECT_NE(text.out.find("cost proxy: recompute = share of a step's FLOPs"), std::string::npos);
}

// Every verdict of the benchmark grid (bench/fit_bench.cpp's 1,200 rows), as `fit --try`
// and as `compare` (which plans each miss again on an unlimited GPU) give it, equals plan's on
// that configuration.
TEST(Fit, GridVerdictsEqualPlanOnEveryRowOfTheBenchmarkGrid) {
  auto engine = whatif::what_if::open(example, {}, "");
  ASSERT_TRUE(engine) << engine.error().to_string();
  auto axes = parse_axes({"parallel.strategy=fsdp2,fsdp1,zero3,ddp",
                          "training.activation_checkpointing=none,full,selective",
                          "training.seq_len=pow2:1024..16384", "training.micro_batch=1..20"},
                         "--try");
  ASSERT_TRUE(axes);
  const auto rows = combinations(*axes);
  ASSERT_EQ(rows.size(), 1200u);
  const auto tried = engine->evaluate_all(rows, "--try", false);
  const auto compared = engine->evaluate_all(rows, "--vary", true);
  ASSERT_EQ(tried.size(), rows.size());
  ASSERT_EQ(compared.size(), rows.size());
  int fitting = 0, tight = 0, missing = 0, refused = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const int code = plan_code(rows[i]);
    const auto label = ::testing::PrintToString(rows[i]);
    ASSERT_EQ(tried[i].has_value(), compared[i].has_value()) << label;
    if (!tried[i]) {
      EXPECT_EQ(code, 2) << label;
      ++refused;
      continue;
    }
    const auto state = tried[i]->state();
    (state == predict::fit_state::fits ? fitting : state == predict::fit_state::tight ? tight
                                                                                     : missing)++;
    EXPECT_EQ(code, state == predict::fit_state::fits    ? 0
                    : state == predict::fit_state::tight ? 4
                                                         : 1)
        << label;
    EXPECT_EQ(compared[i]->state(), state) << label;
    EXPECT_EQ(compared[i]->device, tried[i]->device) << label;
    ASSERT_TRUE(compared[i]->need.has_value()) << label;
    EXPECT_GE(*compared[i]->need, compared[i]->device) << label;
  }
  EXPECT_GT(fitting, 0);
  EXPECT_GT(missing, 0);
  EXPECT_EQ(fitting + tight + missing + refused, 1200);
}

// Threads take the rows in runs that shrink as the rows run out: whatever the thread count,
// every row is evaluated once, in its own slot, to the figures of one thread.
TEST(Fit, EvaluateAllGivesEveryRowOnAnyNumberOfThreads) {
  auto engine = whatif::what_if::open(example, {}, "");
  ASSERT_TRUE(engine) << engine.error().to_string();
  auto axes = parse_axes(
      {"parallel.strategy=fsdp2,ddp", "training.micro_batch=1..9", "training.seq_len=2048,4096"},
      "--try");
  ASSERT_TRUE(axes);
  const auto rows = combinations(*axes);
  const auto one = engine->evaluate_all(rows, "--try", true, 1);
  ASSERT_EQ(one.size(), rows.size());
  for (unsigned threads : {2u, 3u, 7u}) {
    const auto many = engine->evaluate_all(rows, "--try", true, threads);
    ASSERT_EQ(many.size(), rows.size()) << threads;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      ASSERT_TRUE(one[i] && many[i]) << threads << " " << i;
      EXPECT_EQ(many[i]->settings, rows[i]) << threads << " " << i;
      EXPECT_EQ(many[i]->fits, one[i]->fits) << threads << " " << i;
      EXPECT_EQ(many[i]->reserved, one[i]->reserved) << threads << " " << i;
      EXPECT_EQ(many[i]->device, one[i]->device) << threads << " " << i;
      EXPECT_EQ(many[i]->need, one[i]->need) << threads << " " << i;
    }
  }
  EXPECT_TRUE(engine->evaluate_all({}, "--try", true, 2).empty());
}

// The assumption behind bisection: memory does not shrink as these fields grow. Short
// sequences are the exception, kept here as a record: below about 4k tokens the peak is the
// parameter and optimizer state, and the caching allocator's segment rounding moves it by up to
// 1.9 GiB either way (seq_len 512: 29.45 GiB reserved, 1000: 30.17, 2048: 28.28, 4096: 28.59,
// at 1000 GiB of device memory). docs/fit.md
// says what that means for --maximize training.seq_len.
bytes need_at(const whatif::what_if& engine, const std::string& setting) {
  auto r = engine.evaluate({setting}, "--try", true);
  EXPECT_TRUE(r) << r.error().to_string();
  return r ? *r->need : 0;
}

TEST(Fit, MemoryIsMonotoneInTheBisectedKeys) {
  auto engine = whatif::what_if::open(example, {"hardware.gpu_memory=1000GiB"}, "");
  ASSERT_TRUE(engine);
  const std::vector<std::pair<std::string, std::vector<int>>> sweeps{
      {"training.micro_batch", {1, 2, 3, 4, 5, 6, 8, 11, 16}},
      {"training.seq_len", {4096, 5000, 8192, 9000, 16384, 20000, 32768}},
      {"lora.rank", {1, 2, 4, 8, 16, 17, 64, 256}}};
  for (const auto& [key, values] : sweeps) {
    bytes last = 0;
    for (int v : values) {
      const bytes need = need_at(*engine, key + "=" + std::to_string(v));
      EXPECT_GE(need, last) << key << "=" << v;
      last = need;
    }
  }
}

TEST(Fit, ShortSequencesAreNotMonotone) {
  auto engine = whatif::what_if::open(example, {"hardware.gpu_memory=1000GiB"}, "");
  ASSERT_TRUE(engine);
  const bytes at_1000 = need_at(*engine, "training.seq_len=1000");
  const bytes at_2048 = need_at(*engine, "training.seq_len=2048");
  EXPECT_LT(at_2048, at_1000);
  EXPECT_LT(at_1000 - at_2048, 2ULL << 30);
}

TEST(Fit, UnknownTryKeyNamesTheOption) {
  const auto r = invoke({"fit", example, "--try", "micro_batch=1,2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("vramscope fit: --try:", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("unknown key \"micro_batch\""), std::string::npos) << r.err;
}

TEST(Fit, BadRangeIsBadInput) {
  const auto r = invoke({"fit", example, "--try", "training.micro_batch=1..x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "vramscope fit: --try: \"1..x\" is not a range (expected A..B or pow2:A..B "
                   "with integers A <= B)\n");
}

TEST(Fit, DuplicateTryKeyIsRefused) {
  const auto r = invoke({"fit", example, "--try", "training.micro_batch=1", "--try",
                         "training.micro_batch=2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "vramscope fit: --try: \"training.micro_batch\" given twice (list its values "
                   "in one --try training.micro_batch=...)\n");
}

TEST(Fit, MaximizeNeedsAnIntegerField) {
  const auto r = invoke({"fit", example, "--maximize", "parallel.strategy"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "vramscope fit: --maximize: parallel.strategy is not an integer field (it "
                   "holds \"fsdp2\")\n");
}

TEST(Axes, ExpandsRangesAndPowersOfTwo) {
  auto a = parse_axis("training.micro_batch=1..3,pow2:4..32,48", "--try");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->values, (std::vector<std::string>{"1", "2", "3", "4", "8", "16", "32", "48"}));
  auto p = parse_axis("k=pow2:3..20", "--try");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->values, (std::vector<std::string>{"4", "8", "16"}));
}

TEST(FitHtml, MaximizeDrawsEveryPlannedValueAndMarksTheBoundary) {
  const std::string html = scratch_html("vramscope_fit_test.html");
  std::filesystem::remove(html);
  const auto r = invoke({"fit", example, "--html", html});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string page = read_page(html);
  expect_self_contained(page);
  EXPECT_NE(page.find("largest training.micro_batch that fits with a 3.96 GiB margin: 3"),
            std::string::npos);
  // The search planned 1, 2, 4 and 3: three fit, one does not.
  EXPECT_EQ(count_of(page, "<rect class=\"row fits\""), 3u);
  EXPECT_EQ(count_of(page, "<rect class=\"row nofit\""), 1u);
  EXPECT_NE(page.find("largest that fits"), std::string::npos);
  EXPECT_NE(page.find("smallest that does not"), std::string::npos);
  std::filesystem::remove(html);
}

TEST(FitHtml, TryDrawsWhatEachMissWouldNeed) {
  const std::string html = scratch_html("vramscope_fit_try_test.html");
  std::filesystem::remove(html);
  const auto r = invoke({"fit", example, "--try", "training.micro_batch=3..5", "--html", html});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string page = read_page(html);
  expect_self_contained(page);
  EXPECT_NE(page.find("1 of 3 combinations fit"), std::string::npos);
  EXPECT_EQ(count_of(page, "<rect class=\"row nofit\""), 2u);
  EXPECT_EQ(count_of(page, "out of memory at"), 0u) << "every miss is drawn to its need";
  EXPECT_NE(page.find("training.micro_batch=4: needs 83.28 GiB"), std::string::npos);
  // The text output is the same with or without the page.
  const auto plain = invoke({"fit", example, "--try", "training.micro_batch=3..5"});
  EXPECT_EQ(plain.out, r.out);
  std::filesystem::remove(html);
}

// The network proxy by hand for Llama-3.2-1B (P = 1,235,814,400 parameters, fp32 gradient
// reduction, bf16 compute): ring collectives over n ranks send (n-1)/n of the buffer.
TEST(NetworkPerStep, MatchesTheRingFormulasOfEachStrategy) {
  auto engine = whatif::what_if::open(example, {"model=llama-3.2-1b"}, "");
  ASSERT_TRUE(engine) << engine.error().to_string();
  const std::uint64_t P = 1'235'814'400;
  auto network = [&](std::vector<std::string> settings) {
    auto job = engine->job_with(settings, "--try");
    EXPECT_TRUE(job) << job.error().to_string();
    return job ? whatif::network_per_step(engine->model(), *job) : 0;
  };
  // DDP over 8: an all-reduce of 4P bytes of gradients, 2 x 7/8 of it.
  EXPECT_EQ(network({"parallel.strategy=ddp"}), 2 * 7 * (4 * P) / 8);
  // FSDP2 over 8: bf16 parameters gathered in forward and backward, fp32 gradients scattered.
  EXPECT_EQ(network({"parallel.strategy=fsdp2"}), 7 * (2 * 2 * P + 4 * P) / 8);
  // Parameters kept unsharded after forward: one gather per micro-batch.
  EXPECT_EQ(network({"parallel.strategy=fsdp2", "parallel.reshard_after_forward=false"}),
            7 * (2 * P + 4 * P) / 8);
  // ZeRO-2: gradients reduce-scattered, updated bf16 parameters gathered once per step.
  EXPECT_EQ(network({"parallel.strategy=zero2"}), 7 * (4 * P + 2 * P) / 8);
  // Accumulating 4 micro-batches without no_sync reduces the gradients 4 times.
  EXPECT_EQ(network({"parallel.strategy=ddp", "training.gradient_accumulation=4"}),
            4 * (2 * 7 * (4 * P) / 8));
}

}  // namespace
}  // namespace vramscope::cli
