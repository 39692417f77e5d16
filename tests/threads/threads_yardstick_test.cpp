// The diagnosis yardstick: real threads where a user pasted what they saw (an out-of-memory
// message, an nvidia-smi screen, a memory summary) and a maintainer or the resolution confirmed
// the cause (tests/data/threads/, SOURCES.md). `explain` is run on each as a user would, from the
// pasted observation alone and, where the thread gives enough for one, with a job spec written
// from it, and scored on the cause it puts first (top-1), among its first three (top-3), whether
// the finding of that cause names the fix the thread confirmed, and whether its saving is within
// 15 % of the one the thread reports.
#include <vramscope/cli/run.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace vramscope {
namespace {

namespace fs = std::filesystem;

const fs::path threads_dir = fs::path(VRAMSCOPE_SOURCE_DIR) / "tests" / "data" / "threads";

struct thread {
  std::string id;
  std::string cause;
  std::vector<std::string> fix_terms;
  std::optional<double> saving_bytes;
  std::vector<std::pair<std::string, std::string>> inputs;  // option, path
  std::string job;                                          // empty: none
  std::string batch;                                        // "1", "2": when it was collected
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

double unit_bytes(const std::string& unit) {
  if (unit == "GiB") return 1024.0 * 1024 * 1024;
  if (unit == "MiB") return 1024.0 * 1024;
  if (unit == "GB") return 1e9;
  if (unit == "MB") return 1e6;
  ADD_FAILURE() << "unknown saving unit " << unit;
  return 0;
}

std::vector<thread> read_threads() {
  std::vector<thread> out;
  if (!fs::is_directory(threads_dir)) return out;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(threads_dir))
    if (e.is_directory() && fs::exists(e.path() / "thread.yaml")) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    const YAML::Node y = YAML::LoadFile((dir / "thread.yaml").string());
    thread t;
    t.id = dir.filename().string();
    t.cause = y["cause"].as<std::string>();
    if (y["fix_terms"])
      for (const auto& term : y["fix_terms"]) t.fix_terms.push_back(lower(term.as<std::string>()));
    if (y["saving"] && y["saving"]["value"])
      t.saving_bytes = y["saving"]["value"].as<double>() * unit_bytes(y["saving"]["unit"].as<std::string>());
    static const std::map<std::string, std::string> options{{"oom", "--oom"}, {"smi", "--smi"}, {"stats", "--stats"}};
    if (y["inputs"])
      for (const auto& kv : y["inputs"]) {
        const auto kind = kv.first.as<std::string>();
        const auto option = options.find(kind);
        if (option == options.end()) {
          ADD_FAILURE() << t.id << ": input kind " << kind << " is not oom, smi or stats";
          continue;
        }
        for (const auto& file : kv.second.IsSequence() ? kv.second : YAML::Node(std::vector<YAML::Node>{kv.second}))
          t.inputs.emplace_back(option->second, (dir / file.as<std::string>()).string());
      }
    if (y["job"]) t.job = (dir / y["job"].as<std::string>()).string();
    t.batch = y["batch"] ? y["batch"].as<std::string>() : "1";
    out.push_back(std::move(t));
  }
  return out;
}

// The cause class a finding names: its own `cause_class` where the rule gives one, else read
// off its rule and cause text (findings of the rules before they named a class).
std::string class_of(const nlohmann::json& f) {
  if (f.contains("cause_class") && f["cause_class"].is_string()) return f["cause_class"].get<std::string>();
  const std::string rule = f.value("rule", std::string{});
  const std::string cause = f.value("cause", std::string{});
  const auto says = [&](const char* words) { return cause.find(words) != std::string::npos; };
  static const std::map<std::string, std::string> by_rule{
      {"MEM001", "does_not_fit"},   {"JAX001", "jax_preallocation"}, {"FSDP001", "meta_init"},
      {"NCCL001", "record_stream"}, {"GPU001", "gpu0_crowding"},     {"DEV001", "device_overhead"},
      {"FRAG001", "fragmentation"}};
  if (const auto r = by_rule.find(rule); r != by_rule.end()) return r->second;
  if (rule == "OOM001" || rule == "OOM002") {
    if (says("fragmentation")) return "fragmentation";
    if (says("several processes") || says("other processes")) return "other_process";
    if (says("outside PyTorch")) return "device_overhead";
    if (says("need more") || says("needs more") || says("cannot hold")) return "does_not_fit";
  }
  return "unclassified:" + rule;
}

struct score {
  bool ran = false, top1 = false, top3 = false, fix = false;
  std::optional<bool> saving;  // empty: the thread reports none
  std::string first;           // what explain put first
};

score run_explain(const thread& t, bool with_job) {
  std::vector<std::string> args{"explain", "--json"};
  if (with_job) args.push_back(t.job);
  for (const auto& [option, path] : t.inputs) {
    args.push_back(option);
    args.push_back(path);
  }
  std::ostringstream out, err;
  const int code = cli::run(args, out, err);
  score s;
  if (code > 1) {
    s.first = "refused: " + err.str().substr(0, err.str().find('\n'));
    if (t.saving_bytes) s.saving = false;  // a refused paste states no saving
    return s;
  }
  s.ran = true;
  const auto j = nlohmann::json::parse(out.str());
  const auto& findings = j.at("findings");
  if (!findings.empty()) s.first = class_of(findings[0]);
  for (std::size_t i = 0; i < findings.size() && i < 3; ++i) {
    if (class_of(findings[i]) != t.cause) continue;
    s.top1 |= i == 0;
    s.top3 = true;
    const std::string fix = lower(findings[i].value("fix", std::string{}));
    s.fix = std::any_of(t.fix_terms.begin(), t.fix_terms.end(),
                        [&](const std::string& term) { return fix.find(term) != std::string::npos; });
    if (t.saving_bytes) {
      const auto& saving = findings[i]["saving"];
      s.saving = saving.is_number() &&
                 std::fabs(saving.get<double>() - *t.saving_bytes) <= 0.15 * *t.saving_bytes;
    }
    break;
  }
  if (t.saving_bytes && !s.saving) s.saving = false;
  return s;
}

struct tally {
  int n = 0, top1 = 0, top3 = 0, fix = 0, savings = 0, savings_right = 0;
  void add(const score& s) {
    ++n;
    top1 += s.top1;
    top3 += s.top3;
    fix += s.fix;
    if (s.saving) {
      ++savings;
      savings_right += *s.saving;
    }
  }
  double rate(int k) const { return n ? 100.0 * k / n : 0; }
};

std::string row(const std::string& name, const tally& t) {
  std::ostringstream o;
  o << "| " << name << " | " << t.n << " | " << t.top1 << " | " << t.top3 << " | " << t.fix << " | "
    << t.savings_right << "/" << t.savings << " |";
  return o.str();
}

// Scores every thread of `batch` ("" = all) in one mode and prints the table.
tally score_all(const std::string& batch, bool with_job) {
  std::map<std::string, tally> by_cause;
  tally all;
  std::ostringstream misses;
  for (const auto& t : read_threads()) {
    if (!batch.empty() && t.batch != batch) continue;
    if (with_job && t.job.empty()) continue;
    const score s = run_explain(t, with_job);
    by_cause[t.cause].add(s);
    all.add(s);
    if (!s.top1)
      misses << "  miss " << t.id << ": expected " << t.cause << ", first " << s.first
             << (s.top3 ? "" : " (not in the top 3)") << "\n";
  }
  std::cout << "threads" << (batch.empty() ? "" : " of batch " + batch) << ", "
            << (with_job ? "observation with job" : "observation alone") << ":\n"
            << "| cause | threads | top-1 | top-3 | fix named | saving within 15 % |\n|---|---:|---:|---:|---:|---:|\n";
  for (const auto& [cause, t] : by_cause) std::cout << row(cause, t) << "\n";
  std::cout << row("all", all) << "\n"
            << "top-1 " << all.rate(all.top1) << " %, top-3 " << all.rate(all.top3) << " %\n"
            << misses.str();
  return all;
}

TEST(ThreadsYardstick, EveryThreadIsLabelledWithAKnownCauseAndItsFiles) {
  static const std::vector<std::string> causes{
      "other_process", "gpu0_crowding", "fragmentation", "jax_preallocation", "record_stream",
      "meta_init", "does_not_fit", "checkpoint_save", "checkpoint_resume", "eval",
      "first_optimizer_step", "leak", "device_overhead"};
  const auto threads = read_threads();
  ASSERT_GE(threads.size(), 49u);
  for (const auto& t : threads) {
    EXPECT_NE(std::find(causes.begin(), causes.end(), t.cause), causes.end()) << t.id << ": " << t.cause;
    EXPECT_FALSE(t.inputs.empty()) << t.id << " has no pasted observation";
    EXPECT_FALSE(t.fix_terms.empty()) << t.id << " names no fix terms";
    for (const auto& [option, path] : t.inputs) EXPECT_TRUE(fs::exists(path)) << path;
    if (!t.job.empty()) {
      EXPECT_TRUE(fs::exists(t.job)) << t.job;
    }
  }
}

// Floors, so that the diagnosis never gets worse on the threads: what the rules reach today
// (bench/README.md, "Diagnosis on real threads"). The aim is higher: the confirmed cause first on
// 80 % of the threads and among the first three on 95 %, from the observation alone and with a
// job. Many threads are out of reach from what was pasted (an evaluation OOM whose message has no
// traceback reads as any other), so the floors rise as rules and threads with jobs are added.
struct floors {
  int top1, top3;
};

void expect_at_least(const tally& all, floors f) {
  EXPECT_GE(all.top1, f.top1);
  EXPECT_GE(all.top3, f.top3);
}

TEST(ThreadsYardstick, FromTheObservationAlone) { expect_at_least(score_all("1", false), {22, 31}); }

// Every thread with a job spec written from the thread (the setup as the user ran it, each value's
// place in the thread in the spec's comments; 18 threads of several batches). The first 13 are all
// right since the save of an int8 LoRA base under bitsandbytes 0.38 is planned (thread 510). Five
// more were written by helpers sealed from the tool (SOURCES.md, "Job specs written for stored
// threads") and scored at first sight: 3 of 5 top-1. 318's spec was refused (an inline GPT-2
// config's embd_pdrop taken for a misspelling, a reader fix since), 152 is a miss: the FSDP1
// rate limiter's run-ahead, which the planner overestimates (bench/README.md).
TEST(ThreadsYardstick, WithAJobSpec) {
  const tally with_job = score_all("", true);
  ASSERT_GE(with_job.n, 18);
  expect_at_least(with_job, {17, 17});
}

// Collected after the rules were changed (batch 2): scored at first sight before any later
// change (9 of 16, bench/README.md), then used to fix the classes it missed, so it is a "fixed
// against" set now like batch 1; the floors keep what the fixes reached.
TEST(ThreadsYardstick, SecondBatchCollectedAfterTheRules) {
  const tally fresh = score_all("2", false);
  ASSERT_GE(fresh.n, 15);
  expect_at_least(fresh, {12, 14});
}

// Collected after the rules were changed (batch 3): scored at first sight on the rules of the
// time (10 of 20 top-1, 13 of 20 top-3, bench/README.md), then used to fix the classes it missed
// (TensorFlow's allocator log, other frameworks' error lines, nvidia-smi GPU rows); the
// floors keep what the fixes reached.
TEST(ThreadsYardstick, ThirdBatchSealedFromTheRules) {
  const tally fresh = score_all("3", false);
  ASSERT_GE(fresh.n, 20);
  expect_at_least(fresh, {15, 19});
}

// Batch 4, collected sealed while batch 3's classes were being fixed and scored once after
// those fixes had landed, before anything was changed for it: the first-sight measure of the
// round (bench/README.md). The floors are that first score.
TEST(ThreadsYardstick, FourthBatchScoredAfterTheThirdsFixes) {
  const tally fresh = score_all("4", false);
  ASSERT_GE(fresh.n, 20);
  expect_at_least(fresh, {18, 21});
}

// Batches 5 and 6, collected sealed from the code (repository owners a-m and n-z) after batch 4's
// score, and scored once on the rules as they had landed, before anything was changed for them:
// together the round's first-sight measure (bench/README.md): 10 of 18 top-1 and top-3. Their
// misses were then fixed by class (a logged function, a process list alone, an idle context on
// GPU 0, a cache live blocks cannot pin); the floors keep what that reached.
TEST(ThreadsYardstick, FifthBatchAtFirstSight) {
  const tally fresh = score_all("5", false);
  ASSERT_GE(fresh.n, 8);
  expect_at_least(fresh, {7, 8});
}

TEST(ThreadsYardstick, SixthBatchAtFirstSight) {
  const tally fresh = score_all("6", false);
  ASSERT_GE(fresh.n, 10);
  expect_at_least(fresh, {7, 9});
}

// Batch 7, collected sealed (any owner) while batches 5 and 6 were being fixed and scored once
// after those fixes had landed, before anything was changed for it: the round's second
// first-sight measure (bench/README.md): 8 of 16 top-1, 12 of 16 top-3. Its misses were then
// fixed where the paste holds evidence (an evaluation script at the traceback's root, a
// TensorFlow batch of a whole test split); the floors keep what that reached.
TEST(ThreadsYardstick, SeventhBatchScoredAfterTheFifthAndSixthsFixes) {
  const tally fresh = score_all("7", false);
  ASSERT_GE(fresh.n, 16);
  expect_at_least(fresh, {10, 15});
}

// Batch 8, collected sealed (four collectors, owners a-m with the forums and n-z, two passes
// each) while the round's explain fixes were being made, and scored once on the merged tree
// before anything was changed for it: the round's second first-sight measure (bench/README.md):
// 12 of 22 top-1, 19 of 22 top-3. Its misses were then fixed where the paste holds evidence (a
// frame in the program's evaluation package, a screen without its process list, mmcv's test
// progress bar before the error); the floors keep what that reached.
TEST(ThreadsYardstick, EighthBatchAtFirstSight) {
  const tally fresh = score_all("8", false);
  ASSERT_GE(fresh.n, 22);
  expect_at_least(fresh, {16, 20});
}

// Batch 9, collected sealed (four collectors, owners a-m with the forums and n-z, two passes
// each) while the round's explain fixes were being made, and scored once on the merged tree
// before anything was changed for it: the round's first-sight measure (bench/README.md): 7 of 16
// top-1, 10 of 16 top-3. Its misses were then fixed by class where the paste holds evidence (memory
// figures in a log or in prose: vLLM's profile, a training log's allocated and reserved, a
// before/after table, nvidia-smi's usage quoted in a sentence); the floors keep what that reached.
TEST(ThreadsYardstick, NinthBatchAtFirstSight) {
  const tally fresh = score_all("9", false);
  ASSERT_GE(fresh.n, 15);
  expect_at_least(fresh, {12, 15});
}

// Batch 10, collected sealed (GitHub owners a-m and n-z, and any owner for the causes other than
// does_not_fit, eval, leak and other_process; a forum pass found none) while the round's explain
// fixes were being made, and scored once on the merged tree before anything was changed for it:
// the round's first-sight measure (bench/README.md): 3 of 16 top-1, 7 of 16 top-3. Its misses were
// then fixed by class where the paste holds evidence (GPU 0 above otherwise equal ranks, a rank
// other than 0 failing on GPU 0, a traceback pasted below its message, a load's memory summary, a
// full GPU that is no mark of XLA's fraction, a few kilobytes refused with nothing available);
// the floors keep what that reached.
TEST(ThreadsYardstick, TenthBatchAtFirstSight) {
  const tally fresh = score_all("10", false);
  ASSERT_GE(fresh.n, 15);
  expect_at_least(fresh, {13, 15});
}

// Batch 11, collected sealed (GitHub owners a-m and n-z, any owner for the causes other than
// does_not_fit and other_process, and any owner in other languages, domains and paste forms)
// while the round's explain fixes were being made, and scored once on the merged tree before
// anything was changed for it: the round's first-sight measure (bench/README.md): 7 of 19 top-1,
// 12 of 19 top-3. Its misses were then fixed by class where the paste holds evidence (an abridged
// message that puts the capacity's size first, a figure printed each step that rises, XLA's
// rematerialization warning read as the program's need); the floors keep what that reached.
TEST(ThreadsYardstick, EleventhBatchAtFirstSight) {
  const tally fresh = score_all("11", false);
  ASSERT_GE(fresh.n, 15);
  expect_at_least(fresh, {14, 17});
}

// Batch 12, collected sealed (GitHub owners a-m and n-z, and any owner searched by other query
// families: other languages, domains outside LLM training, pastes other than the OOM line) while
// the round's explain fixes were being made, and scored once on the merged tree before anything
// was changed for it: the round's first-sight measure (bench/README.md): 5 of 24 top-1, 8 of 24
// top-3, the same as on the round's starting code. Most of its misses are pastes of other
// allocators (CuPy's pool, TensorFlow's BFC, XLA) and measured tables no reader takes. The floors
// keep what the rules reach after the next round's readers of those pools and ranking (9 and 12),
// then with the readers of a benchmark table laid one variant per row (FRAG001 weighs variants
// with the same live tensors and different reserves) and of the GPU each MPI rank reports
// (GPU001): 11 and 14; with PROC001 reading a pasted launch that puts more processes on a node
// than it gives GPUs: 12 and 15.
TEST(ThreadsYardstick, TwelfthBatchAtFirstSight) {
  const tally fresh = score_all("12", false);
  ASSERT_GE(fresh.n, 15);
  expect_at_least(fresh, {12, 15});
}

// Batch 13, collected sealed (GitHub owners a-m with a look at Q&A pages; owners n-z with merged
// fix PRs) while the next round's explain fixes were being made, and scored once on the round's
// starting code before anything was changed for it (bench/README.md). Eleven of its 18 threads
// come from frameworks other than PyTorch. First sight: 5 of 18 top-1, 8 of 18 top-3; six of its
// pastes (two of Caffe's failure lines, the RAPIDS plugin's Java trace, a PyTorch traceback cut
// before its error line, one with its byte counts elided, two figures typed into a REPL) were
// refused as no known format. Read since by the failure-line reader (observe/failure_line.hpp),
// the cut traceback's frames and the prompt's figures: 7 of 18 top-1, 10 of 18 top-3 (two
// Caffe lines, RAPIDS and the elided counts now get findings; 631's Caffe line and 637's cut
// traceback rank their cause first, the REPL figures read but no rule weighs them alone); with
// the rules for libraries' own failures (DEV001) and other runtimes' up-front pools (JAX001) as
// well, 10 of 18 top-1, 12 of 18 top-3; with Thrust's failed kernel launch read as outside the
// pool and a JVM's frames below their exception kept (the RAPIDS plugin's pool then weighed by
// JAX001), 11 and 13; with a failure printed again by its exception read once (604's CNTK line no
// longer fills the first three with copies), 11 and 14.
TEST(ThreadsYardstick, ThirteenthBatchAtFirstSight) {
  const tally fresh = score_all("13", false);
  ASSERT_GE(fresh.n, 15);
  expect_at_least(fresh, {11, 14});
}

// Batch 14, collected sealed (runtimes other than PyTorch, any owner; PyTorch projects outside
// LLM fine-tuning by domain) while this round's explain fixes were being made, and scored once
// on the round's final rules before anything was changed for it (bench/README.md): 4 of 19
// top-1, 12 of 19 top-3. Seven of its eight evaluation and inference threads have evaluation
// among the first three, none first; three single error lines of Theano and CNTK are refused.
// Read since (CNTK's CUDA_CALL line, CNMeM's failed creation, cuDNN's handle), with JAX001
// weighing a pool that could not be made or left no room for the handle: 5 and 14; with the
// program's entry file read behind a console script (and a pasted command line): 6 and 14; with
// TensorFlow's pool failing at the device's creation weighed by JAX001: 7 and 15; with TensorFlow
// 1.0's pool dump read where it comes before its line, and room in the pool's limit weighed as
// fragmentation (663): 7 and 16.
TEST(ThreadsYardstick, FourteenthBatchAtFirstSight) {
  const tally fresh = score_all("14", false);
  ASSERT_GE(fresh.n, 15);
  expect_at_least(fresh, {7, 16});
}

// Batch 15, collected sealed at the start of the round (forums and the issues of LLM training
// libraries; runtimes other than PyTorch, serving engines and non-English threads) and scored
// once on the round's starting rules before anything was changed for it: 2 of 11 top-1, 5 of 11
// top-3 (bench/README.md). The floors keep what the round's fixes reached: 3 and 7; with
// TensorFlow.js's tf.memory() read (a live-tensor count rising at every call, LEAK001): 4 and 8;
// with DyNet's failed cudaMalloc read as its pools' up-front size (JAX001): 5 and 9.
TEST(ThreadsYardstick, FifteenthBatchAtFirstSight) {
  const tally fresh = score_all("15", false);
  ASSERT_GE(fresh.n, 11);
  expect_at_least(fresh, {5, 9});
}

// Batch 16, collected sealed while the round's fixes were made (PyTorch projects by domain; the
// newest threads; merged fix pull requests; pastes other than an OOM message) and scored once on
// the round's final rules before anything was changed for it (bench/README.md): 3 of 14 top-1,
// 9 of 14 top-3. With a test's assertion on memory_allocated() read (the bytes left are cuBLAS's
// workspace, DEV001) and a memory_summary() cut above its title read: 4 and 10; with a status
// line that opens with the phase's verb ("Predicting part 1 of 5 ...") placing an evaluation: 5;
// with a summary's live allocations read (156,071 small tensors kept, LEAK001): 6 and 11.
TEST(ThreadsYardstick, SixteenthBatchScoredAfterTheFifteenthsFixes) {
  const tally fresh = score_all("16", false);
  ASSERT_GE(fresh.n, 14);
  expect_at_least(fresh, {6, 11});
}

// Batch 17, collected sealed in the next round (the rarer causes by their fixes; figures over
// time and tools' screens; frameworks' trackers; failures worded by CUDA libraries) and scored
// once on that round's rules before anything was changed for it (bench/README.md): 4 of 16
// top-1, 6 of 16 top-3. With cuFFT's and cuSOLVER's failures read (FRAG001 beside CuPy's pool,
// JAX001 for a handle TensorFlow's pool left no room for): 6 and 8. With a loop's per-step peaks
// read (MEM001 without a job: the step's own working memory over a level allocation): 7 and 9.
TEST(ThreadsYardstick, SeventeenthBatchScoredAfterTheSixteenthsFixes) {
  const tally fresh = score_all("17", false);
  ASSERT_GE(fresh.n, 16);
  expect_at_least(fresh, {7, 9});
}

// Batch 18, collected sealed in the round after (the rarer causes by their fixes' words;
// evaluation and growth over steps; trackers of runtimes beside Python's PyTorch) and scored
// once on that round's starting rules before anything was changed for it (bench/README.md): 8 of
// 14 top-1, 10 of 14 top-3. With Darknet's "CUDA Error: out of memory" and Faiss's failed
// cudaMalloc read instead of refused: 9 and 11.
TEST(ThreadsYardstick, EighteenthBatchScoredAfterTheSeventeenthsFixes) {
  const tally fresh = score_all("18", false);
  ASSERT_GE(fresh.n, 14);
  expect_at_least(fresh, {9, 11});
}

// Batch 19, collected sealed in the round after (forum pages, the long tail of GitHub, other
// runtimes and languages) and scored once on that round's rules before anything was changed for
// it (bench/README.md): 6 of 15 top-1, 9 of 15 top-3. With TensorFlow's "Failed to get
// convolution algorithm ... cuDNN failed to initialize" and StreamExecutor's "failed to create
// cublas handle" read as the library's handle not made beside TensorFlow's pool: 11 and 14.
TEST(ThreadsYardstick, NineteenthBatchScoredAtFirstSight) {
  const tally fresh = score_all("19", false);
  ASSERT_GE(fresh.n, 15);
  expect_at_least(fresh, {11, 14});
}

// Batch 20, collected sealed while batch 19's classes were fixed (runtimes and applications
// beyond PyTorch training; domain and research repositories) and scored once after those fixes
// (bench/README.md): 3 of 11 top-1, 6 of 11 top-3. Since, 4 and 8 (the last: a free figure printed
// equal to the request no longer covers it, so a small cache ranks fragmentation below an
// evaluation the message is silent on, 099).
TEST(ThreadsYardstick, TwentiethBatchScoredAfterTheNineteenthsFixes) {
  const tally fresh = score_all("20", false);
  ASSERT_GE(fresh.n, 11);
  expect_at_least(fresh, {4, 8});
}

// Batch 21, collected sealed (training libraries' and LLM tools' trackers) in a round that changed
// no explain rule before it was scored (bench/README.md): 1 of 9 top-1, 4 of 9 top-3. With vLLM's
// start-up check read when its message wraps over two lines, and torch.nn.DataParallel before a
// failure on GPU 0 read as GPU 0 crowded: 3 and 6.
TEST(ThreadsYardstick, TwentyFirstBatchScoredAtFirstSight) {
  const tally fresh = score_all("21", false);
  ASSERT_GE(fresh.n, 9);
  expect_at_least(fresh, {3, 6});
}

// Batch 22, collected sealed from forums, Q&A sites and a last pass over trackers: the stored
// forum and Q&A pages hold a paste or its answer, rarely both, and almost every tracker candidate
// was already in the set, so only two threads came in. Scored once on the round's rules, which
// no change touched before: 1 of 2 top-1 (the fp32 weights that do not fit), 2 of 2 top-3: the
// evaluation pass without no_grad is second to a step that does not fit (one OOM line, nothing
// of the loop that ran out).
TEST(ThreadsYardstick, TwentySecondBatchScoredAtFirstSight) {
  const tally fresh = score_all("22", false);
  ASSERT_GE(fresh.n, 2);
  expect_at_least(fresh, {1, 2});
}

// Batch 23, collected sealed after the thirteenth round's changes (bitsandbytes' int8 save,
// MEM001 after the steps, small tensors kept) by two collectors: newer training stacks (RL
// post-training, fine-tuning tools, diffusion and video trainers: none qualified, about four in
// five candidates already used or listed) and quantised or adapter training and serving with
// classic vision and speech trackers (3). Scored once on those rules before any change for it
// (bench/README.md): 2 of 3 top-1 and top-3; an FSDP developer's "Peak active / Peak reserved"
// figures are refused.
TEST(ThreadsYardstick, TwentyThirdBatchScoredAtFirstSight) {
  const tally fresh = score_all("23", false);
  ASSERT_GE(fresh.n, 3);
  expect_at_least(fresh, {2, 2});
}

// Batch 24, collected sealed after the fourteenth round's changes (graph, knowledge-graph and
// classic NLP libraries) and scored once before anything was changed for it (bench/README.md): 4
// of 7 top-1, 6 of 7 top-3. Since, 5 and 7: PyTorch's message quoted without its request but with
// its figures (156) is read.
TEST(ThreadsYardstick, TwentyFourthBatchScoredAtFirstSight) {
  const tally fresh = score_all("24", false);
  ASSERT_GE(fresh.n, 7);
  expect_at_least(fresh, {5, 7});
}

// The saving a finding states, against the threads that report what the confirmed fix saved
// (`saving:` in thread.yaml, before minus after as the thread gives it), over every thread of
// every batch, from the observation alone (a batch holds one or two such threads, too few to
// judge alone). The aim is three of four within 15 %; the floor is what the rules reach today
// (bench/README.md): the savings of other processes, of contexts on GPU 0 and of what a load left
// cached are read from the paste, evaluation's is bounded by what PyTorch had allocated; the
// allocator's cache (851: the cache expandable segments keep is not in a current-figures paste)
// and an evaluation far below its allocation (804) are not reached; what GPU 0 holds above equal
// ranks is read from the paste too (904, 985).
// The other misses have no figure in the paste from which the confirmed fix's saving follows,
// and a finding states none rather than a guess: 463 pastes process counts only (no context's
// size); 555's cache at the failure (3.17 GiB, all that emptying it releases then) is not the
// cache between predictions the fix freed; 851 gives the whole cache (reserved - allocated), of
// which the fix gave back less than half. Four are refused by the readers today, and read would
// still not give it: 574's table gives the whole cache at the peak (38.2 GiB) for a fix that gave
// back 20.5; 578 the retained allocation, not what stays live after the fix; 535 the peak before
// and after the fix (the outcome of a change, no reading of the growth); 512 the usage before the
// fix with no capacity or checkpoint size.
// Three of four is out of reach of these pastes without guessing.
TEST(ThreadsYardstick, SavingsWhereTheThreadReportsOne) {
  const tally all = score_all("", false);
  ASSERT_GE(all.savings, 7);
  EXPECT_GE(all.savings_right, 7) << all.savings_right << " of " << all.savings;
}

}  // namespace
}  // namespace vramscope
