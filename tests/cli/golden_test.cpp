// Golden tests of the text reports: what each command prints for the examples, the five cases and
// the README's transcripts, compared byte for byte with tests/data/golden/ and README.md. A change
// to a report (or to a number in it) shows up as a diff here to be looked at; when it is meant,
// regenerate with
//
//   VRAMSCOPE_UPDATE_GOLDEN=1 build/tests/cli/vramscope_cli_tests --gtest_filter='Golden*'
//
// and commit the files with the change (README.md's transcripts are not rewritten: edit them).
// Commands run from the source folder, so the paths they print are the relative ones a user
// types.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/cli.hpp"

namespace vramscope::cli {
namespace {

using testing::invoke;

const std::filesystem::path source_dir = VRAMSCOPE_SOURCE_DIR;

// Runs a command from the source folder, as the README and the docs show it.
testing::cli_result invoke_from_source(const std::vector<std::string>& args) {
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(source_dir);
  auto r = invoke(args);
  std::filesystem::current_path(previous);
  return r;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool updating() {
  const char* v = std::getenv("VRAMSCOPE_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

struct golden_case {
  const char* file;  // under tests/data/golden/
  std::vector<std::string> args;
  int code;  // the exit status the command must give
};

std::vector<golden_case> golden_cases() {
  const std::string c = "examples/cases/";
  std::vector<std::string> case2_stats{"explain", c + "2-fsdp1-meta-init/job.yaml", "--stats"};
  for (int rank = 0; rank < 8; ++rank)
    case2_stats.push_back(c + "2-fsdp1-meta-init/memory_stats_rank" + std::to_string(rank) + ".json");
  return {
      {"plan-llama-3.1-8b-fsdp2.txt", {"plan", "examples/llama-3.1-8b-fsdp2.yaml"}, 0},
      {"plan-llama-3.1-70b-lora-fsdp2.txt", {"plan", "examples/llama-3.1-70b-lora-fsdp2.yaml"}, 0},
      {"plan-llama-3.1-70b-qlora-fsdp1-2x24gb.txt",
       {"plan", "examples/llama-3.1-70b-qlora-fsdp1-2x24gb.yaml"},
       0},
      {"plan-torchtitan-llama3-70b-pp-tp-fsdp.txt",
       {"plan", "--from", "examples/recipes/torchtitan-llama3-70b-pp-tp-fsdp.toml"},
       0},
      {"plan-torchtitan-llama3-8b-float8.txt",
       {"plan", "--from", "examples/recipes/torchtitan-llama3-8b-float8.toml"},
       0},
      {"plan-torchtitan-qwen3-30b-a3b-ep.txt",
       {"plan", "--from", "examples/recipes/torchtitan-qwen3-30b-a3b-ep.toml"},
       0},
      {"plan-torchtune-llama3.1-70b-lora.txt",
       {"plan", "--from", "examples/recipes/torchtune-llama3.1-70b-lora.yaml"},
       0},
      {"plan-megatron-gpt3-175b.txt",
       {"plan", "--from", "examples/recipes/megatron-gpt3-175b.sh"},
       0},
      {"plan-megatron-llama2-7b.txt",
       {"plan", "--from", "examples/recipes/megatron-llama2-7b.sh"},
       0},
      {"plan-case1-jax-preallocation.txt", {"plan", c + "1-jax-preallocation/job.yaml"}, 0},
      {"plan-case2-fsdp1-meta-init.txt", {"plan", c + "2-fsdp1-meta-init/job.yaml"}, 0},
      {"plan-case2-fsdp1-meta-init-fixed.txt", {"plan", c + "2-fsdp1-meta-init/job-fixed.yaml"}, 0},
      {"plan-case3-fsdp-options.txt", {"plan", c + "3-fsdp-options/job.yaml"}, 0},
      {"plan-case4-fsdp2-tp-record-stream.txt", {"plan", c + "4-fsdp2-tp-record-stream/job.yaml"}, 0},
      {"plan-case5-ddp-gpu0.txt", {"plan", c + "5-ddp-gpu0/job.yaml"}, 0},
      {"explain-case1-jax-preallocation.txt",
       {"explain", c + "1-jax-preallocation/job.yaml", "--smi", c + "1-jax-preallocation/nvidia-smi.txt"},
       0},
      {"explain-case2-fsdp1-meta-init.txt", case2_stats, 0},
      {"explain-case3-fsdp-options.txt", {"explain", c + "3-fsdp-options/job.yaml"}, 0},
      {"explain-case4-fsdp2-tp-record-stream.txt",
       {"explain", c + "4-fsdp2-tp-record-stream/job.yaml", "--stats",
        c + "4-fsdp2-tp-record-stream/memory_stats_rank0.json"},
       0},
      {"explain-case5-ddp-gpu0.txt",
       {"explain", c + "5-ddp-gpu0/job.yaml", "--smi", c + "5-ddp-gpu0/nvidia-smi.txt"},
       0},
      {"explain-rules.txt", {"explain", "--rules"}, 0},
      {"compare-micro-batch.txt",
       {"compare", "examples/llama-3.1-8b-fsdp2.yaml", "--vary", "training.micro_batch=1,2,4,8"},
       0},
      {"fit-try.txt",
       {"fit", "examples/llama-3.1-8b-fsdp2.yaml", "--try", "parallel.strategy=fsdp2,zero3",
        "--try", "training.micro_batch=1..4"},
       0},
      {"inspect-llama-3.1-8b.txt", {"inspect", "llama-3.1-8b"}, 0},
      {"models.txt", {"models"}, 0},
      {"snapshot-h100-torch211.txt",
       {"snapshot", "tests/data/observe/h100_torch211/snapshot.pickle"},
       0},
  };
}

TEST(Golden, TextReportsAreAsRecorded) {
  const auto dir = source_dir / "tests/data/golden";
  for (const auto& g : golden_cases()) {
    SCOPED_TRACE(g.file);
    const auto r = invoke_from_source(g.args);
    EXPECT_EQ(r.code, g.code) << r.err;
    const auto path = dir / g.file;
    if (updating()) {
      std::ofstream(path, std::ios::binary) << r.out;
      continue;
    }
    ASSERT_TRUE(std::filesystem::exists(path))
        << path << " is missing; VRAMSCOPE_UPDATE_GOLDEN=1 writes it";
    EXPECT_EQ(r.out, read_text(path))
        << "the report changed; if that is meant, regenerate tests/data/golden (see the top of "
           "tests/cli/golden_test.cpp) and review the diff";
  }
}

// Every golden file is one of the cases above: none is left behind when a case is removed.
TEST(Golden, NoStaleFiles) {
  std::vector<std::string> known;
  for (const auto& g : golden_cases()) known.emplace_back(g.file);
  for (const auto& entry : std::filesystem::directory_iterator(source_dir / "tests/data/golden")) {
    const auto name = entry.path().filename().string();
    if (name == "README.md") continue;
    EXPECT_NE(std::find(known.begin(), known.end(), name), known.end()) << name;
  }
}

// A transcript in README.md: a code block whose first line is "$ vramscope ..." (or
// "$ build/tools/vramscope ..."), then exactly what the command prints.
struct transcript {
  std::size_t line;
  std::vector<std::string> args;
  std::string output;
};

std::vector<transcript> transcripts_of(const std::string& text) {
  enum class state { outside, first_line, transcript, other_block };
  std::vector<transcript> out;
  std::istringstream in(text);
  std::string line;
  std::size_t number = 0;
  state at = state::outside;
  while (std::getline(in, line)) {
    ++number;
    if (line.starts_with("```")) {
      at = at == state::outside ? state::first_line : state::outside;
      continue;
    }
    if (at == state::first_line) {
      at = state::other_block;
      for (const std::string prefix : {"$ vramscope ", "$ build/tools/vramscope "})
        if (line.starts_with(prefix)) {
          transcript t{number, {}, {}};
          std::istringstream words(line.substr(prefix.size()));
          for (std::string w; words >> w;) t.args.push_back(w);
          out.push_back(std::move(t));
          at = state::transcript;
        }
    } else if (at == state::transcript) {
      out.back().output += line + "\n";
    }
  }
  return out;
}

TEST(Golden, ReadmeTranscriptsAreWhatTheProgramPrints) {
  const auto readme = read_text(source_dir / "README.md");
  const auto found = transcripts_of(readme);
  ASSERT_GE(found.size(), 2u) << "README.md shows plan's and fit's output";
  for (const auto& t : found) {
    SCOPED_TRACE("README.md:" + std::to_string(t.line));
    const auto r = invoke_from_source(t.args);
    EXPECT_LE(r.code, 1) << r.err;
    EXPECT_EQ(r.out, t.output) << "README.md's transcript no longer matches: update it";
  }
}

}  // namespace
}  // namespace vramscope::cli
