// Verdicts a user can act on: three states (fits, tight, does not fit) with the safety margin
// (hardware.margin) in plan, compare, fit and their JSON and HTML; the whole step's need on the
// plan page, figure for figure as in the JSON of the same run; compare across strategies from
// a real accelerate config; warnings that honour --set and come grouped.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vramscope/core/units.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "support/cli.hpp"

namespace vramscope::cli {
namespace {

using vramscope::testing::invoke;
using vramscope::testing::job_file;
using namespace vramscope::testing::html;

const std::string source = VRAMSCOPE_SOURCE_DIR;
const std::string example = source + "/examples/llama-3.1-8b-fsdp2.yaml";
const std::string accelerate_fsdp =
    source + "/tests/data/realworld/accelerate/accelerate_fsdp.yaml";

nlohmann::json plan_json(const std::vector<std::string>& args, int expected_code) {
  std::vector<std::string> all{"plan"};
  all.insert(all.end(), args.begin(), args.end());
  all.push_back("--json");
  const auto r = invoke(all);
  EXPECT_EQ(r.code, expected_code) << r.err;
  return nlohmann::json::parse(r.out);
}

// ---- three states ----

TEST(Verdict, TheDefaultMarginIsFivePercentAndAtLeastOneGiB) {
  const auto p = plan_json({example}, 0);
  const auto capacity = p["gpus"][0]["capacity"].get<std::uint64_t>();
  EXPECT_EQ(p["margin"].get<std::uint64_t>(),
            std::max<std::uint64_t>(
                static_cast<std::uint64_t>(0.05 * static_cast<double>(capacity)), 1_GiB));
  EXPECT_EQ(p["state"], "fits");
  // On a small GPU the floor decides: 5 % of 16 GiB is below 1 GiB.
  const auto small = plan_json({example, "--set", "hardware.gpu_memory=16GiB", "--set",
                                "model=llama-3.2-1b", "--set", "training.seq_len=512"},
                               0);
  EXPECT_EQ(small["margin"].get<std::uint64_t>(), 1_GiB);
}

TEST(Verdict, AHeadroomBelowTheMarginIsTightAndExitsFour) {
  const auto fits = plan_json({example}, 0);
  const auto headroom = fits["headroom"].get<std::int64_t>();
  ASSERT_GT(headroom, static_cast<std::int64_t>(2_MiB));
  // The margin just above the headroom: tight; just below: fits. Nothing else changes.
  const std::string above = std::to_string(headroom + static_cast<std::int64_t>(1_MiB)) + "B";
  const std::string below = std::to_string(headroom - static_cast<std::int64_t>(1_MiB)) + "B";
  const auto tight = plan_json({example, "--set", "hardware.margin=" + above}, 4);
  EXPECT_EQ(tight["state"], "tight");
  EXPECT_TRUE(tight["fits"].get<bool>()) << "tight still fits as planned";
  EXPECT_EQ(tight["verdict"].get<std::string>().rfind("tight: busiest GPU 0 at ", 0), 0u)
      << tight["verdict"];
  EXPECT_NE(tight["margin_reason"].get<std::string>().find("run-to-run variation"),
            std::string::npos);
  EXPECT_EQ(plan_json({example, "--set", "hardware.margin=" + below}, 0)["state"], "fits");
  // The text says tight last but for its reason, and exits 4.
  const auto text = invoke({"plan", example, "--set", "hardware.margin=" + above});
  EXPECT_EQ(text.code, 4) << text.err;
  const auto verdict = text.out.find("\ntight: busiest GPU 0 at ");
  ASSERT_NE(verdict, std::string::npos) << text.out;
  EXPECT_NE(text.out.find("allocator behaviour the plan cannot see", verdict), std::string::npos);
}

TEST(Verdict, AShareOfUsableMemorySetsTheMargin) {
  const auto p = plan_json({example, "--set", "hardware.margin=10%"}, 0);
  const auto capacity = p["gpus"][0]["capacity"].get<double>();
  EXPECT_EQ(p["margin"].get<std::uint64_t>(), static_cast<std::uint64_t>(0.1 * capacity));
  EXPECT_EQ(p["job"]["hardware"]["margin"], "10%");
  EXPECT_EQ(plan_json({example, "--set", "hardware.margin=0"}, 0)["margin"], 0);
}

TEST(Verdict, ABadMarginIsBadInputNamingTheField) {
  for (const char* bad : {"hardware.margin=lots", "hardware.margin=60%", "hardware.margin=-1%"}) {
    const auto r = invoke({"plan", example, "--set", bad});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("hardware.margin"), std::string::npos) << r.err;
  }
}

TEST(Verdict, HelpDocumentsTheExitCodes) {
  for (const char* command : {"plan", "fit"}) {
    const auto r = invoke({"help", command});
    EXPECT_NE(r.out.find("0 fits, 4 tight"), std::string::npos) << command << r.out;
    EXPECT_NE(r.out.find("1 does not fit"), std::string::npos) << command;
  }
  EXPECT_NE(invoke({"help"}).out.find("  4  the job fits, but inside the safety margin"),
            std::string::npos);
}

// ---- compare and fit ----

TEST(VerdictCompare, EachRowSaysFitsTightOrNo) {
  const auto r = invoke({"compare", example, "--vary", "training.micro_batch=1,3,4", "--set",
                         "hardware.margin=20GiB", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["state"], "fits");   // 38.63 GiB of 79.18: 40 GiB headroom
  EXPECT_EQ(rows[1]["state"], "tight");  // 65.86 GiB: 13.32 GiB headroom, under 20 GiB
  EXPECT_EQ(rows[2]["state"], "does_not_fit");
  const auto text = invoke(
      {"compare", example, "--vary", "training.micro_batch=1,3", "--set", "hardware.margin=20GiB"});
  EXPECT_NE(text.out.find("tight, 13.32 GiB headroom"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("less headroom than the 20.00 GiB safety margin"), std::string::npos)
      << text.out;
}

TEST(VerdictFit, MaximizesUnderTheMargin) {
  // Without a margin micro-batch 3 fits with 13.32 GiB; a 15 GiB margin makes it tight.
  const auto r = invoke({"fit", example, "--set", "hardware.margin=15GiB"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("largest training.micro_batch that fits with a 15.00 GiB margin: 2"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("training.micro_batch=3 is tight: device 65.86 GiB of 79.18 GiB"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("assumes activation checkpointing full"), std::string::npos) << r.out;
  // Nothing fits outside a margin as large as the GPU's spare memory at micro-batch 1: tight.
  const auto none = invoke({"fit", example, "--set", "hardware.margin=45GiB", "--json"});
  EXPECT_EQ(none.code, 4) << none.out;
  const auto j = nlohmann::json::parse(none.out);
  EXPECT_TRUE(j["largest"].is_null());
  EXPECT_EQ(j["miss"]["state"], "tight");
}

TEST(VerdictFit, TryListsTightRowsApartAndRanksPerToken) {
  const auto r = invoke({"fit", example, "--try", "training.micro_batch=1..3", "--set",
                         "hardware.margin=20GiB", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["fits"].size(), 2u);
  ASSERT_EQ(j["tight"].size(), 1u);
  EXPECT_EQ(j["tight"][0]["settings"][0], "training.micro_batch=3");
  // Per token, micro-batch 2 sends about half of micro-batch 1's bytes: it ranks first.
  EXPECT_EQ(j["fits"][0]["settings"][0], "training.micro_batch=2");
  EXPECT_LT(j["fits"][0]["network_bytes_per_token"].get<double>(),
            j["fits"][1]["network_bytes_per_token"].get<double>());
}

// ---- the page draws what the JSON says ----

struct drawn_gpu {
  std::string gpus;
  std::uint64_t device = 0, capacity = 0, processes = 0;
};

// Every <g class="gpu"> of the page with its attributes and the sum of its process bars.
std::vector<drawn_gpu> drawn_gpus(const std::string& page) {
  static const std::regex group(
      R"re(<g class="gpu" data-gpus="([0-9-]+)" data-device="(\d+)" data-capacity="(\d+)">([\s\S]*?)</g>)re");
  static const std::regex bar(R"re(<rect class="process" data-bytes="(\d+)")re");
  std::vector<drawn_gpu> out;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), group);
       it != std::sregex_iterator(); ++it) {
    drawn_gpu g{(*it)[1], std::stoull((*it)[2]), std::stoull((*it)[3]), 0};
    const std::string inside = (*it)[4];
    for (auto b = std::sregex_iterator(inside.begin(), inside.end(), bar);
         b != std::sregex_iterator(); ++b)
      g.processes += std::stoull((*b)[1]);
    out.push_back(g);
  }
  return out;
}

std::string html_escaped(std::string text) {
  std::string out;
  for (char c : text)
    out += c == '&'   ? "&amp;"
           : c == '<' ? "&lt;"
           : c == '>' ? "&gt;"
           : c == '"' ? "&quot;"
                      : std::string(1, c);
  return out;
}

// Plans `args` to JSON and to a page, then checks every figure drawn against the JSON.
void expect_page_agrees_with_json(const job_file& job, const std::vector<std::string>& sets,
                                  int code) {
  std::vector<std::string> args{"plan", job.path()};
  args.insert(args.end(), sets.begin(), sets.end());
  auto with_html = args;
  with_html.insert(with_html.end(), {"--html", job.html()});
  ASSERT_EQ(invoke(with_html).code, code);
  const auto j = plan_json({args.begin() + 1, args.end()}, code);
  const std::string page = read_page(job.html());
  expect_self_contained(page);
  // The verdict, word for word, in its state's colour.
  const std::string kind = j["state"] == "fits"    ? "fits"
                           : j["state"] == "tight" ? "tight"
                                                   : "nofit";
  EXPECT_NE(page.find("<p class=\"verdict " + kind + "\">" +
                      html_escaped(j["verdict"].get<std::string>())),
            std::string::npos)
      << j["verdict"];
  // Each GPU row: its device figure, its capacity, and the bars that add up to it.
  const auto gpus = drawn_gpus(page);
  ASSERT_FALSE(gpus.empty());
  for (const auto& g : gpus) {
    const int first = std::stoi(g.gpus.substr(0, g.gpus.find('-')));
    const auto& jg = j["gpus"][static_cast<std::size_t>(first)];
    EXPECT_EQ(g.device, jg["device"].get<std::uint64_t>()) << g.gpus;
    EXPECT_EQ(g.capacity, jg["capacity"].get<std::uint64_t>()) << g.gpus;
    EXPECT_EQ(g.processes, g.device) << g.gpus;
    EXPECT_NE(page.find(format_bytes(g.device) + " of " + format_bytes(g.capacity)),
              std::string::npos);
  }
  // The margin band.
  EXPECT_NE(page.find("<rect class=\"margin\" data-bytes=\"" + j["margin"].dump() + "\""),
            std::string::npos);
  // The whole step's need, drawn against capacity exactly when the JSON has it.
  static const std::regex need_group(
      R"re(<g class="need" data-gpu="(\d+)" data-need="(\d+)" data-capacity="(\d+)">)re");
  std::smatch m;
  const bool drawn = std::regex_search(page, m, need_group);
  ASSERT_EQ(drawn, j.contains("whole_step_need")) << page.substr(0, 400);
  if (drawn) {
    const auto need = j["whole_step_need"].get<std::uint64_t>();
    const auto capacity = std::stoull(m[3]);
    EXPECT_EQ(std::stoull(m[2]), need);
    EXPECT_EQ(capacity + j["shortfall"].get<std::uint64_t>(), need);
    EXPECT_NE(page.find("<rect class=\"need\" data-bytes=\"" + std::to_string(need) + "\""),
              std::string::npos);
    EXPECT_NE(page.find("needs " + format_bytes(need) + ", short by " +
                        format_bytes(j["shortfall"].get<std::uint64_t>())),
              std::string::npos);
    EXPECT_NE(page.find("the whole step needs about " + format_bytes(need)), std::string::npos);
  }
  // Each simulated rank's caption gives its peaks as the JSON does.
  for (const auto& r : j["ranks"]) {
    if (r["like_rank"] != r["rank"]) continue;
    const auto& peak = r["peak"];
    EXPECT_NE(
        page.find("peak: " + format_bytes(peak["allocated"].get<std::uint64_t>()) + " allocated, " +
                  format_bytes(peak["reserved"].get<std::uint64_t>()) + " reserved, " +
                  format_bytes(peak["device"].get<std::uint64_t>()) + " on the GPU"),
        std::string::npos)
        << "rank " << r["rank"];
  }
}

TEST(VerdictHtml, EveryFigureDrawnIsTheJsonOfTheSameRun) {
  // Does not fit: eager attention at 2 x 8,192 tokens (the whole step needs far more).
  const job_file oom(
      "model: llama-3.2-1b\n"
      "training: { micro_batch: 2, seq_len: 8192, attention: eager }\n");
  expect_page_agrees_with_json(oom, {}, 1);
  // Fits, on two alike GPUs.
  const job_file fits(
      "model: llama-3.2-1b\n"
      "hardware: { gpu: A100-80GB, gpus_per_node: 2 }\n"
      "parallel: { strategy: fsdp2 }\n"
      "training: { seq_len: 1024 }\n");
  expect_page_agrees_with_json(fits, {}, 0);
  // Tight: the same job with a margin larger than its headroom.
  const auto headroom = plan_json({fits.path()}, 0)["headroom"].get<std::uint64_t>();
  expect_page_agrees_with_json(
      fits, {"--set", "hardware.margin=" + std::to_string(headroom + 1_MiB) + "B"}, 4);
}

// ---- compare across strategies from a real config ----

TEST(VerdictCompare, StrategiesFromAccelerateFsdpTemplateTranslateTheirOptions) {
  const auto r = invoke({"compare", "--from", accelerate_fsdp, "--set", "model=llama-3.2-1b",
                         "--vary", "parallel.strategy=fsdp1,fsdp2,zero3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("refused"), std::string::npos) << r.out;
  // The FSDP1 options without a counterpart are dropped, each with a note.
  EXPECT_NE(r.out.find("note: parallel.strategy=fsdp2: parallel.sync_module_states dropped "
                       "(applies to fsdp1 only"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("note: parallel.strategy=zero3: parallel.sync_module_states dropped"),
            std::string::npos)
      << r.out;
  const auto json = invoke({"compare", "--from", accelerate_fsdp, "--set", "model=llama-3.2-1b",
                            "--vary", "parallel.strategy=fsdp1,fsdp2", "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto rows = nlohmann::json::parse(json.out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].contains("notes")) << "the config's own strategy keeps its options";
  ASSERT_TRUE(rows[1].contains("notes"));
}

TEST(VerdictCompare, ACounterpartIsCarriedOver) {
  const job_file job(
      "model: llama-3.2-1b\n"
      "parallel: { strategy: fsdp1, fsdp_sharding: shard_grad_op }\n"
      "training: { seq_len: 1024 }\n");
  const auto r = invoke({"compare", job.path(), "--vary", "parallel.strategy=fsdp1,fsdp2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("note: parallel.strategy=fsdp2: parallel.fsdp_sharding=shard_grad_op "
                       "becomes parallel.reshard_after_forward=false"),
            std::string::npos)
      << r.out;
  // The same as asking FSDP2 for it directly.
  const auto direct = plan_json(
      {job.path(), "--set", "parallel.strategy=fsdp2", "--set", "parallel.fsdp_sharding=full_shard",
       "--set", "parallel.reshard_after_forward=false"},
      0);
  const auto rows = nlohmann::json::parse(
      invoke({"compare", job.path(), "--vary", "parallel.strategy=fsdp2", "--json"}).out);
  EXPECT_EQ(rows[0]["device"], direct["gpus"][0]["device"]);
}

TEST(VerdictCompare, ZeroOffloadBecomesFsdpCpuOffload) {
  const job_file job(
      "model: llama-3.2-1b\n"
      "parallel: { strategy: zero3, offload_optimizer: true, offload_param: true }\n"
      "training: { seq_len: 1024 }\n");
  const auto r = invoke({"compare", job.path(), "--vary", "parallel.strategy=zero3,fsdp2,ddp"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("note: parallel.strategy=fsdp2: parallel.offload_optimizer=true and "
                       "parallel.offload_param=true become parallel.cpu_offload=true\n"),
            std::string::npos)
      << r.out;
  // Replaced by their counterpart, they are not also said to be dropped; DDP has none.
  EXPECT_EQ(r.out.find("parallel.strategy=fsdp2: parallel.offload_param dropped"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("note: parallel.strategy=ddp: parallel.offload_param dropped (applies to "
                       "zero3 only)\n"),
            std::string::npos)
      << r.out;
}

TEST(VerdictCompare, ARefusedRowSaysWhyAndTheOthersArePlanned) {
  const auto r = invoke({"compare", example, "--vary", "parallel.tp=1,3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("parallel.tp=3"), std::string::npos);
  const auto refused = r.out.find("refused: ");
  ASSERT_NE(refused, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("parallel.tp=1 "), std::string::npos);
  // Every row refused: the first refusal is the answer, as bad input.
  const auto all = invoke({"compare", example, "--vary", "parallel.tp=3"});
  EXPECT_EQ(all.code, 2);
  EXPECT_EQ(all.err.rfind("vramscope compare: ", 0), 0u) << all.err;
}

TEST(VerdictFit, TryListsRefusedRowsWithWhy) {
  const auto r = invoke({"fit", example, "--try", "parallel.tp=1,3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("refused: parallel.tp=3: "), std::string::npos) << r.out;
}

// ---- noise ----

// Names of no release vramscope knows (a fork's options) take one line between them, as
// unknown options do.
TEST(VerdictNotes, OptionsOfNoKnownReleaseAreGrouped) {
  job_file config("[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\n"
                  "pack_samples = true\nmask_non_assistant = true\n");
  const auto toml = config.path() + ".toml";
  std::filesystem::copy_file(config.path(), toml);
  const auto r = invoke({"plan", "--from", toml});
  EXPECT_NE(r.err.find("warning: 2 options of no release vramscope knows, ignored: "
                       "training.pack_samples, training.mask_non_assistant"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("unknown option"), std::string::npos) << r.err;
}

// A check run on the job as imported and again as planned says its note once.
TEST(VerdictNotes, ANoteIsSaidOnce) {
  // Tensor parallelism of 8 on nodes of 6 GPUs (jsrun's resource sets).
  const auto r = invoke({"plan", "--from",
                         source + "/tests/data/realworld/megatron/"
                                  "sajalvt_2024_mds_gpt3_6_7b_moe2_ep2_summit_jsrun_96gpu_tp8.sh",
                         "--verbose"});
  const std::string note = "tensor-parallel collectives cross nodes";
  const auto first = r.err.find(note);
  ASSERT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(note, first + 1), std::string::npos) << r.err;
}

TEST(VerdictNotes, SetSettlesAnAssumptionAndLikeWarningsAreGrouped) {
  const std::string zero3 =
      source + "/tests/data/realworld/deepspeed/llamafactory_ds_z3_config.json";
  // The config names no model: the assumption is said, grouped with the others (the GPU, the
  // sequence length, the number of GPUs), and in full with --verbose.
  const auto plain = invoke({"plan", "--from", zero3});
  EXPECT_NE(plain.err.find("values the config does not give were assumed: the model ("),
            std::string::npos)
      << plain.err;
  EXPECT_NE(plain.err.find("the GPU (H100-80GB)"), std::string::npos) << plain.err;
  const auto plain_verbose = invoke({"plan", "--from", zero3, "--verbose"});
  EXPECT_NE(plain_verbose.err.find("does not name the model"), std::string::npos);
  // --set model= settles it: it is not said, not even with --verbose.
  const auto set = invoke({"plan", "--from", zero3, "--set", "model=llama-3.2-1b"});
  EXPECT_EQ(set.err.find("the model ("), std::string::npos) << set.err;
  EXPECT_NE(set.err.find("the GPU (H100-80GB)"), std::string::npos) << set.err;
  EXPECT_EQ(invoke({"plan", "--from", zero3, "--set", "model=llama-3.2-1b", "--verbose"})
                .err.find("does not name the model"),
            std::string::npos);
  // One line per kind: the seven "auto" options take one line (the DeepSpeed option list knows
  // the monitor sections, so only comms_config.verbose, near no DeepSpeed option, is left: one,
  // said in full).
  EXPECT_NE(set.err.find("warning: 7 options are \"auto\" (filled in at launch): train_batch_size, "),
            std::string::npos)
      << set.err;
  EXPECT_NE(set.err.find("\"comms_config.verbose\" is not among the options of the DeepSpeed "
                         "releases vramscope knows"),
            std::string::npos)
      << set.err;
  // --verbose prints each warning on its own line with its place; without it, like warnings
  // take one line with their count.
  const auto verbose =
      invoke({"plan", "--from", zero3, "--set", "model=llama-3.2-1b", "--verbose"});
  const auto lines = [](const std::string& text) {
    return std::count(text.begin(), text.end(), '\n');
  };
  EXPECT_GE(lines(verbose.err), lines(set.err));
  if (lines(verbose.err) > lines(set.err)) {
    EXPECT_NE(set.err.find("--verbose shows each warning"), std::string::npos) << set.err;
  }
  // The answer is the last line of the output.
  const auto last = set.out.substr(set.out.rfind('\n', set.out.size() - 2) + 1);
  EXPECT_TRUE(last.starts_with("fits:") || last.starts_with("tight:") ||
              last.starts_with("does not fit:") || last.starts_with("the whole step needs"))
      << last;
}

// ---- what the answer depends on ----

TEST(VerdictHeading, NamesTensorParallelismAndPipelineStages) {
  const auto r =
      invoke({"plan", "--from", source + "/examples/recipes/torchtitan-llama3-70b-pp-tp-fsdp.toml",
              "--set", "hardware.nodes=8"});
  ASSERT_NE(r.code, 2) << r.err;
  const auto heading = r.out.substr(0, r.out.find('\n'));
  EXPECT_NE(heading.find("torch fsdp2 + tp 8"), std::string::npos) << heading;
  EXPECT_NE(heading.find(" + pp 4 "), std::string::npos) << heading;
  EXPECT_NE(r.out.find("\nper stage "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nstage 0: ranks 0-"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nstage 3: ranks "), std::string::npos) << r.out;
}

// ---- a new user's five questions, each answered on one screen ----

// The lines a terminal shows of `text`, wrapped at `columns`.
std::size_t screen_lines(const std::string& text, std::size_t columns) {
  std::size_t lines = 0, start = 0;
  while (start < text.size()) {
    const auto end = std::min(text.find('\n', start), text.size());
    lines += std::max<std::size_t>(1, (end - start + columns - 1) / columns);
    start = end + 1;
  }
  return lines;
}

struct answered {
  int code;
  std::string text;  // what the terminal shows: warnings, then the answer
};

answered ask(const std::vector<std::string>& args) {
  const auto r = invoke(args);
  return {r.code, r.err + r.out};
}

void expect_one_screen(const answered& a) {
  EXPECT_LE(screen_lines(a.text, 120), 40u) << a.text;
}

TEST(FiveQuestions, SeventyBLoraOnEightA100s) {
  const auto a = ask({"plan", source + "/examples/llama-3.1-70b-lora-fsdp2.yaml"});
  ASSERT_EQ(a.code, 0) << a.text;
  expect_one_screen(a);
  // The assumptions the answer rests on, and the margin it cleared.
  for (const char* said : {"8 x A100-80GB", "lora r16 (frozen base fp32)",
                           "activation checkpointing full", "micro-batch 1 x 2048 tokens",
                           "safety margin)"})
    EXPECT_NE(a.text.find(said), std::string::npos) << said << "\n" << a.text;
}

TEST(FiveQuestions, LargestMicroBatchOfASevenBFullFineTuneUnderZero3) {
  const job_file job(
      "model: llama-2-7b\nhardware: { gpu: A100-80GB, gpus_per_node: 8 }\n"
      "parallel: { strategy: zero3 }\nprecision: bf16-mixed\ntraining: { seq_len: 4096 }\n");
  const auto a = ask({"fit", job.path()});
  ASSERT_EQ(a.code, 0) << a.text;
  expect_one_screen(a);
  for (const char* said : {"largest training.micro_batch that fits with a", "GiB margin: ",
                           "assumes activation checkpointing none", "sequence length 4096"})
    EXPECT_NE(a.text.find(said), std::string::npos) << said << "\n" << a.text;
}

TEST(FiveQuestions, WhyAnOutOfMemoryErrorHappened) {
  const auto a = ask({"explain", source + "/tests/data/realworld/oom/pytorch_16417_torch2.txt"});
  ASSERT_EQ(a.code, 1) << a.text;
  expect_one_screen(a);
  // The first finding names its cause, its weight and the fix.
  const auto first = a.text.substr(0, a.text.find("\n\n"));
  EXPECT_NE(first.find("(does_not_fit: "), std::string::npos) << first;
  EXPECT_NE(first.find("\n  fix: "), std::string::npos) << first;
}

TEST(FiveQuestions, WhichGpuRunsOutFirstInATorchtitanToml) {
  const auto a = ask(
      {"plan", "--from", source + "/examples/recipes/torchtitan-llama3-70b-pp-tp-fsdp.toml"});
  ASSERT_NE(a.code, 2) << a.text;
  expect_one_screen(a);
  for (const char* said : {"the GPU (H100-80GB)", "busiest GPU 0 at", "safety margin",
                           "\nper GPU (what nvidia-smi will show):", "GPUs 24-31"})
    EXPECT_NE(a.text.find(said), std::string::npos) << said << "\n" << a.text;
}

TEST(FiveQuestions, FsdpOneAgainstTwoFromAnAccelerateConfig) {
  const auto a = ask({"compare", "--from", accelerate_fsdp, "--vary",
                      "parallel.strategy=fsdp1,fsdp2", "--set", "model=llama-3.1-8b"});
  ASSERT_NE(a.code, 2) << a.text;
  expect_one_screen(a);
  for (const char* said : {"parallel.strategy=fsdp1 ", "parallel.strategy=fsdp2 ",
                           "sync_module_states dropped", "safety margin", "were assumed: the GPU"})
    EXPECT_NE(a.text.find(said), std::string::npos) << said << "\n" << a.text;
}

}  // namespace
}  // namespace vramscope::cli
