// `explain` on the observation files a user of each case would have had: the right rule fires,
// with a fix and a saving.
#include <vramscope/cli/run.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

namespace vramscope::cli {
namespace {

const std::string cases = std::string(VRAMSCOPE_SOURCE_DIR) + "/examples/cases/";

struct explained {
  int code;
  nlohmann::json findings;
  std::string err;
};

explained explain(std::vector<std::string> args) {
  args.insert(args.begin(), "explain");
  args.push_back("--json");
  std::ostringstream out, err;
  const int code = run(args, out, err);
  explained e{code, {}, err.str()};
  if (code <= 1) e.findings = nlohmann::json::parse(out.str())["findings"];
  return e;
}

const nlohmann::json* find_rule(const nlohmann::json& findings, const std::string& id) {
  for (const auto& f : findings)
    if (f["rule"] == id) return &f;
  return nullptr;
}

TEST(ExplainCase1, RecognisesJaxPreallocationFromNvidiaSmiAlone) {
  auto e = explain({"--smi", cases + "1-jax-preallocation/nvidia-smi.txt"});
  ASSERT_LE(e.code, 1) << e.err;
  const auto* f = find_rule(e.findings, "JAX001");
  ASSERT_NE(f, nullptr);
  EXPECT_NE((*f)["fix"].get<std::string>().find("CUDA_VISIBLE_DEVICES=0"), std::string::npos);
}

TEST(ExplainCase1, WithTheJobRecommendsAFractionAndPricesIt) {
  auto e = explain({cases + "1-jax-preallocation/job.yaml", "--smi", cases + "1-jax-preallocation/nvidia-smi.txt"});
  ASSERT_LE(e.code, 1) << e.err;
  const auto* f = find_rule(e.findings, "JAX001");
  ASSERT_NE(f, nullptr);
  EXPECT_NE((*f)["fix"].get<std::string>().find("XLA_PYTHON_CLIENT_MEM_FRACTION=0."), std::string::npos);
  EXPECT_GT((*f)["saving"].get<std::int64_t>(), 40LL * 1024 * 1024 * 1024);
}

TEST(ExplainCase2, RecognisesUnevenRanksAndPricesSyncModuleStates) {
  std::vector<std::string> args{cases + "2-fsdp1-meta-init/job.yaml", "--stats"};
  for (int r = 0; r < 8; ++r) args.push_back(cases + "2-fsdp1-meta-init/memory_stats_rank" + std::to_string(r) + ".json");
  auto e = explain(args);
  ASSERT_LE(e.code, 1) << e.err;
  const auto* f = find_rule(e.findings, "FSDP001");
  ASSERT_NE(f, nullptr);
  EXPECT_NE((*f)["fix"].get<std::string>().find("sync_module_states=True"), std::string::npos);
  EXPECT_FALSE((*f)["saving"].is_null());
  EXPECT_GE((*f)["evidence"].size(), 2u);
}

TEST(ExplainHtml, WritesEveryFindingAsACardWithItsSaving) {
  const std::string html = (std::filesystem::temp_directory_path() / "vramscope_explain.html").string();
  std::filesystem::remove(html);
  std::vector<std::string> args{cases + "2-fsdp1-meta-init/job.yaml", "--html", html, "--stats"};
  for (int r = 0; r < 8; ++r) args.push_back(cases + "2-fsdp1-meta-init/memory_stats_rank" + std::to_string(r) + ".json");
  auto e = explain(args);
  ASSERT_LE(e.code, 1) << e.err;
  std::ifstream in(html);
  const std::string page{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  std::size_t cards = 0, savings = 0;
  for (auto at = page.find("<section class=\"finding "); at != std::string::npos;
       at = page.find("<section class=\"finding ", at + 1))
    ++cards;
  for (const auto& f : e.findings) savings += f["saving"].is_number() && f["saving"].get<std::int64_t>() > 0;
  for (auto at = page.find("<rect class=\"saving\""); at != std::string::npos;
       at = page.find("<rect class=\"saving\"", at + 1))
    --savings;
  EXPECT_EQ(cards, e.findings.size()) << "one card per finding the JSON lists";
  EXPECT_EQ(savings, 0u) << "one bar per positive saving";
  EXPECT_NE(page.find("FSDP001 FSDP1 meta-device init"), std::string::npos);
  EXPECT_NE(page.find("memory stats: 8 files ("), std::string::npos);
  for (const char* remote : {"http://", "https://", "<script", "src="})
    EXPECT_EQ(page.find(remote), std::string::npos) << remote;
  std::filesystem::remove(html);
}

TEST(ExplainHtml, UnwritablePathIsBadInputNamingIt) {
  std::ostringstream out, err;
  const int code = run({"explain", cases + "5-ddp-gpu0/job.yaml", "--html", "/nonexistent/dir/e.html"},
                       out, err);
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.str().find("vramscope explain: /nonexistent/dir/e.html"), std::string::npos) << err.str();
}

TEST(ExplainCase3, NamesTheOptionsThatSaveNothing) {
  auto e = explain({cases + "3-fsdp-options/job.yaml"});
  ASSERT_LE(e.code, 1) << e.err;
  const auto* f = find_rule(e.findings, "OPT001");
  ASSERT_NE(f, nullptr);
  const auto evidence = (*f)["evidence"].dump();
  EXPECT_NE(evidence.find("precision.reduce=bf16: no change"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("parallel.cpu_offload=true: -"), std::string::npos) << evidence;
}

TEST(ExplainCase4, RecognisesRecordStreamFromMemoryStatsAndPricesTheVariable) {
  auto e = explain({cases + "4-fsdp2-tp-record-stream/job.yaml", "--stats",
                    cases + "4-fsdp2-tp-record-stream/memory_stats_rank0.json"});
  ASSERT_LE(e.code, 1) << e.err;
  const auto* f = find_rule(e.findings, "NCCL001");
  ASSERT_NE(f, nullptr);
  EXPECT_NE((*f)["fix"].get<std::string>().find("TORCH_NCCL_AVOID_RECORD_STREAMS=1"), std::string::npos);
  EXPECT_GT((*f)["saving"].get<std::int64_t>(), 1LL << 30);
}

TEST(ExplainCase4, KnowsTheVariableIsIgnoredFromTorch28) {
  auto e = explain({cases + "4-fsdp2-tp-record-stream/job.yaml", "--set", "framework.version=2.8", "--stats",
                    cases + "4-fsdp2-tp-record-stream/memory_stats_rank0.json"});
  const auto* f = find_rule(e.findings, "NCCL001");
  ASSERT_NE(f, nullptr);
  EXPECT_NE((*f)["fix"].get<std::string>().find("torch >= 2.8 no longer"), std::string::npos);
}

TEST(ExplainCase5, RecognisesGpuZeroCrowdingFromNvidiaSmi) {
  auto e = explain({"--smi", cases + "5-ddp-gpu0/nvidia-smi.txt"});
  ASSERT_LE(e.code, 1) << e.err;
  const auto* f = find_rule(e.findings, "GPU001");
  ASSERT_NE(f, nullptr);
  EXPECT_NE((*f)["fix"].get<std::string>().find("map_location"), std::string::npos);
  EXPECT_GT((*f)["saving"].get<std::int64_t>(), 0);
}

TEST(Explain, RulesListsTheCatalogue) {
  std::ostringstream out, err;
  EXPECT_EQ(run({"explain", "--rules"}, out, err), 0);
  for (const char* id : {"MEM001", "JAX001", "FSDP001", "OPT001", "NCCL001", "GPU001", "DEV001", "FRAG001",
                         "OOM001", "PRED001"})
    EXPECT_NE(out.str().find(id), std::string::npos) << id;
}

TEST(Explain, NothingToExplainIsBadInput) {
  std::ostringstream out, err;
  EXPECT_EQ(run({"explain"}, out, err), 2);
  EXPECT_NE(err.str().find("nothing to explain"), std::string::npos);
}

TEST(Explain, MissingObservationFileNamesIt) {
  std::ostringstream out, err;
  EXPECT_EQ(run({"explain", "--smi", "/nonexistent/smi.txt"}, out, err), 2);
  EXPECT_NE(err.str().find("/nonexistent/smi.txt"), std::string::npos);
}

// A framework config instead of a job spec, as plan takes it: torchtitan's 70B config on the
// importer's default single node of 8 GPUs does not fit, and its importer notes come first.
TEST(Explain, TakesAFrameworkConfigWithFrom) {
  auto e = explain({"--from", std::string(VRAMSCOPE_SOURCE_DIR) +
                                  "/tests/data/realworld/torchtitan/torchtitan_llama3_llama3_70b.toml"});
  EXPECT_EQ(e.code, 1) << e.err;
  EXPECT_NE(e.err.find("does not give the number of GPUs"), std::string::npos) << e.err;
  const auto* f = find_rule(e.findings, "MEM001");
  ASSERT_NE(f, nullptr) << e.findings.dump();
  EXPECT_EQ((*f)["severity"], "error");
  // A config that cannot be read is bad input naming it.
  auto bad = explain({"--from", "/nonexistent/train.toml"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("/nonexistent/train.toml"), std::string::npos) << bad.err;
}

TEST(Explain, JobThatDoesNotFitIsAnErrorWithFixes) {
  auto e = explain({cases + "3-fsdp-options/job.yaml", "--set", "training.activation_checkpointing=none",
                    "--set", "training.micro_batch=16"});
  EXPECT_EQ(e.code, 1);
  const auto* f = find_rule(e.findings, "MEM001");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ((*f)["severity"], "error");
}

}  // namespace
}  // namespace vramscope::cli

namespace vramscope::cli {
namespace {

TEST(ExplainTrace, TraceFolderMergedByGpuShowsGpuZeroCrowding) {
  auto e = explain({"--trace", std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/cli/trace-gpu0"});
  ASSERT_LE(e.code, 1) << e.err;
  const auto* f = find_rule(e.findings, "GPU001");
  ASSERT_NE(f, nullptr) << e.findings.dump();
  EXPECT_EQ((*f)["saving"].get<std::int64_t>(), 1LL << 30);
}

// Three nodes' folders read as one: GPU 0 of each node is another GPU, so only node-c, where
// rank 5 also holds memory on GPU 0, is crowded (merged by index alone, every node's GPU 0
// would look like one GPU with four processes).
TEST(ExplainTrace, FoldersOfSeveralNodesAreToldApartByHost) {
  auto e = explain({"--trace", std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/cli/trace-nodes"});
  ASSERT_LE(e.code, 1) << e.err;
  const auto* f = find_rule(e.findings, "GPU001");
  ASSERT_NE(f, nullptr) << e.findings.dump();
  EXPECT_EQ((*f)["saving"].get<std::int64_t>(), 1LL << 30);
  EXPECT_NE((*f)["evidence"][0].get<std::string>().find("2 processes on GPU 0 of node-c"), std::string::npos)
      << (*f)["evidence"].dump();

  std::ostringstream out, err;
  run({"explain", "--trace", std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/cli/trace-nodes"}, out, err);
  EXPECT_NE(out.str().find("5 files in "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find(" from 3 hosts: "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("  GPU node-b#0: peak 20.00 GiB\n    pid 100 (rank 2) 20.00 GiB\n"),
            std::string::npos)
      << out.str();
}

TEST(ExplainTrace, MissingFolderIsBadInput) {
  std::ostringstream out, err;
  EXPECT_EQ(run({"explain", "--trace", "/nonexistent/trace-dir"}, out, err), 2);
  EXPECT_NE(err.str().find("/nonexistent/trace-dir"), std::string::npos);
}

// `explain FILE` with what a user has after a run: files torch 2.11 and nvidia-smi 580 wrote on
// an H100 (tests/data/realworld/, tests/data/observe/h100_torch211/) are read as observations,
// not refused as job specs ("unknown section"), and give what their options give.
TEST(ExplainPositional, ReadsObservedFilesAsIfGivenWithTheirOption) {
  const std::string real = std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/";
  const std::vector<std::pair<std::string, std::string>> files = {
      {real + "realworld/memory_stats/vramscope_h100_torch211.json", "--stats"},
      {real + "realworld/memory_summary/vramscope_h100_torch211.txt", "--stats"},
      {real + "observe/h100_torch211/snapshot.pickle", "--snapshot"},
      {real + "realworld/smi_table/vramscope_h100_580.txt", "--smi"},
      {real + "realworld/smi_xml/vramscope_h100_580.xml", "--smi"},
      {real + "realworld/smi_csv/vramscope_h100_580.apps.csv", "--smi"},
      {real + "realworld/oom/vramscope_h100_torch211_filled.txt", "--oom"},
  };
  for (const auto& [path, option] : files) {
    auto positional = explain({path});
    ASSERT_LE(positional.code, 1) << path << ": " << positional.err;
    auto with_option = explain({option, path});
    ASSERT_LE(with_option.code, 1) << path << ": " << with_option.err;
    EXPECT_EQ(positional.findings, with_option.findings) << path;
  }
  auto oom = explain({real + "realworld/oom/vramscope_h100_torch211_filled.txt"});
  EXPECT_NE(find_rule(oom.findings, "OOM001"), nullptr);
}

// A few lines of a log in a file of any name, even .yaml: an observation, not a job whose
// sections are unknown. Its failure line in words is read and the finding names it.
TEST(ExplainPositional, APastedLogIsAnObservationWhateverItsName) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("vramscope_positional_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "paste.yaml").string();
  {
    std::ofstream f(path);
    f << "Step 1: 20.0 GiB\nStep 2: 22.0 GiB\nStep 3: 24.0 GiB -> OOM in sync (attempted 900 MiB, "
         "only 300 MiB "
         "available)\n";
  }
  auto e = explain({path});
  ASSERT_LE(e.code, 1) << e.err;
  const auto* oom = find_rule(e.findings, "OOM001");
  ASSERT_NE(oom, nullptr) << e.findings.dump(2);
  EXPECT_NE((*oom)["evidence"][0].get<std::string>().find("900.0 MiB"), std::string::npos)
      << (*oom)["evidence"];
  // Text nothing reads beside one that is read: a warning names it, the other is explained.
  const auto notes = (dir / "notes.txt").string();
  {
    std::ofstream f(notes);
    f << "it crashed again after lunch\n";
  }
  auto both = explain({"--oom", notes, "--oom", path});
  ASSERT_LE(both.code, 1) << both.err;
  EXPECT_NE(both.err.find("notes.txt: not read, explained without it: could not tell the format"),
            std::string::npos)
      << both.err;
  EXPECT_NE(find_rule(both.findings, "OOM001"), nullptr);
  // Alone, it is refused naming the file.
  auto alone = explain({notes});
  EXPECT_EQ(alone.code, 2);
  EXPECT_NE(alone.err.find("notes.txt: could not tell the format"), std::string::npos) << alone.err;
  std::filesystem::remove_all(dir);
}

// A job that cannot be loaded beside an observation that was read: named in a warning, the
// observation explained without it; alone it is refused as before.
TEST(Explain, AnUnreadableJobBesideAnObservationIsNamedAndLeftOut) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("vramscope_badjob_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto job = (dir / "job.yaml").string();
  {
    std::ofstream f(job);
    f << "model: llama-3-8b\nhardwre: h100\n";
  }
  const std::string oom = std::string(VRAMSCOPE_SOURCE_DIR) +
                          "/tests/data/realworld/oom/vramscope_h100_torch211_filled.txt";
  auto e = explain({job, "--oom", oom});
  ASSERT_LE(e.code, 1) << e.err;
  EXPECT_NE(
      e.err.find(
          "job.yaml:2:1: job not read, explained from the observations without it: unknown section "
          "\"hardwre\""),
      std::string::npos)
      << e.err;
  EXPECT_NE(find_rule(e.findings, "OOM001"), nullptr);
  auto alone = explain({job});
  EXPECT_EQ(alone.code, 2);
  std::filesystem::remove_all(dir);
}

TEST(ExplainPositional, AJobSpecIsStillAJob) {
  auto e = explain({cases + "5-ddp-gpu0/job.yaml"});
  ASSERT_LE(e.code, 1) << e.err;
  EXPECT_NE(find_rule(e.findings, "GPU001"), nullptr);
}

// No finding contradicts itself or the plan, on every example and case a user would run
// explain on: a cause is ranked by its likelihood with the facts that support it; a finding that
// prices nothing claims no saving ("saving: 0 B" beside its own list of deltas); MEM001 is there
// exactly when the plan does not fit.
TEST(ExplainConsistency, NoFindingContradictsItselfOrThePlanOnTheExamples) {
  namespace fs = std::filesystem;
  std::vector<std::vector<std::string>> runs;
  for (const char* job : {"examples/llama-3.1-8b-fsdp2.yaml", "examples/llama-3.1-70b-lora-fsdp2.yaml",
                          "examples/llama-3.1-70b-qlora-fsdp1-2x24gb.yaml"})
    runs.push_back({std::string(VRAMSCOPE_SOURCE_DIR) + "/" + job});
  for (const auto& entry : fs::directory_iterator(cases)) {
    if (!entry.is_directory()) continue;
    std::vector<std::string> args;
    if (fs::exists(entry.path() / "job.yaml")) args.push_back((entry.path() / "job.yaml").string());
    for (const auto& file : fs::directory_iterator(entry.path())) {
      const std::string name = file.path().filename().string();
      if (name.starts_with("memory_stats")) args.insert(args.end(), {"--stats", file.path().string()});
      if (name.starts_with("nvidia-smi")) args.insert(args.end(), {"--smi", file.path().string()});
    }
    runs.push_back(args);
  }
  for (const auto& args : runs) {
    const auto e = explain(args);
    ASSERT_LE(e.code, 1) << e.err;
    double previous = 2;
    bool causes_over = false;
    for (const auto& f : e.findings) {
      const std::string where = args.front() + ": " + f["rule"].get<std::string>();
      if (f["saving"].is_number()) {
        EXPECT_NE(f["saving"].get<std::int64_t>(), 0) << where;
      }
      if (f["cause_class"].is_null()) {
        causes_over = true;
        continue;
      }
      EXPECT_FALSE(causes_over) << where << " ranked below a finding that names no cause";
      const double l = f["likelihood"].get<double>();
      EXPECT_GT(l, 0) << where;
      EXPECT_LE(l, previous) << where << " ranked above a more likely cause";
      previous = l;
      EXPECT_FALSE(f["support"].empty()) << where << " names a cause with nothing for it";
    }
    if (args.front().ends_with(".yaml")) {
      std::vector<std::string> plan{"plan", args.front(), "--json"};
      std::ostringstream out, err;
      const int code = run(plan, out, err);
      ASSERT_TRUE(code <= 1 || code == 4) << err.str();  // 4: tight
      // MEM001 for a job that does not fit or fits only inside the safety margin.
      const bool fits = nlohmann::json::parse(out.str())["state"].get<std::string>() == "fits";
      EXPECT_EQ(find_rule(e.findings, "MEM001") != nullptr, !fits) << args.front();
    }
  }
}


// A pipe named like a recorded file in an --recorded folder is named, never opened (opening a
// FIFO blocks until a writer comes) and never passed over without a word.
TEST(ExplainRecorded, APipeNamedLikeARecordedFileIsNamed) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("vramscope-recorded-fifo-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto fifo = (dir / "memory_stats_rank0.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::ostringstream out, err;
  const int code = run({"explain", "--recorded", dir.string()}, out, err);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(code, 2) << err.str();
  EXPECT_NE(err.str().find(fifo), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("named pipe"), std::string::npos) << err.str();
}

// A memory_summary() pasted up to the row the user cared about: the rows before the cut are
// read, the missing ones named as "not in the paste", and nothing reads them as 0.
std::string summary_cut_before_reserved(const std::string& active_peak) {
  std::ifstream in(std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/observe/memory_summary_device0.txt");
  std::string text, line;
  for (int n = 0; n < 15 && std::getline(in, line); ++n) text += line + "\n";
  const std::size_t at = text.find("22528 MiB");
  if (at != std::string::npos) text.replace(at, 9, active_peak);
  return text;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(ExplainPartialPaste, NamesTheSummaryRowsNotInThePaste) {
  const std::string path = write_temp("summary-cut.txt", summary_cut_before_reserved("22528 MiB"));
  auto e = explain({"--stats", path});
  std::filesystem::remove(path);
  ASSERT_LE(e.code, 1) << e.err;
  EXPECT_NE(e.err.find(path + ":15: memory summary is cut off after this line; not in the paste, so unknown "
                              "(not 0): \"Requested memory\", \"GPU reserved memory\""),
            std::string::npos)
      << e.err;
  EXPECT_NE(e.err.find("this leaves undecided"), std::string::npos) << e.err;
  EXPECT_NE(e.err.find("its cache (reserved - allocated) and so fragmentation"), std::string::npos) << e.err;
  EXPECT_EQ(e.err.find("not read, explained without it"), std::string::npos) << e.err;  // read, not refused
  EXPECT_EQ(find_rule(e.findings, "FRAG001"), nullptr);  // no reserved: no gap to call fragmentation
}

TEST(ExplainPartialPaste, AFindingOnACutSummarySaysReservedIsNotInThePaste) {
  const std::string path = write_temp("summary-cut-active.txt", summary_cut_before_reserved("30720 MiB"));
  auto e = explain({"--stats", path});
  std::filesystem::remove(path);
  ASSERT_LE(e.code, 1) << e.err;
  const auto* f = find_rule(e.findings, "NCCL001");
  ASSERT_NE(f, nullptr) << e.findings.dump(2);
  const std::string evidence = (*f)["evidence"].dump();
  EXPECT_NE(evidence.find("active peak 30.00 GiB vs allocated peak 20.00 GiB (reserved not in the paste)"),
            std::string::npos)
      << evidence;
  EXPECT_EQ(evidence.find("reserved 0 B"), std::string::npos) << evidence;
}

}  // namespace
}  // namespace vramscope::cli
