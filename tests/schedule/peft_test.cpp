// Trainable-parameter counts of PEFT methods on Llama-3.2-3B, as PEFT's
// print_trainable_parameters reports them in PEFT's method-comparison suite (the published
// figures of bench/data/published/records.jsonl, records PM02-PM16).
#include "schedule/layout.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vramscope::schedule {
namespace {

const model::model_spec& llama3b() {
  static const model::model_spec m = [] {
    auto r = model::load_model("llama-3.2-3b");
    EXPECT_TRUE(r);
    return r ? *r : model::model_spec{};
  }();
  return m;
}

std::uint64_t trainable(const std::string& method, int rank, std::vector<std::string> targets,
                        int virtual_tokens = 20) {
  job::job_spec j;
  j.parallel.kind = job::strategy::single;
  j.hardware.gpus_per_node = 1;
  j.lora.enabled = true;
  j.lora.method = method;
  j.lora.rank = rank;
  j.lora.targets = std::move(targets);
  j.lora.virtual_tokens = virtual_tokens;
  return make_layout(llama3b(), j, make_rank_info(j, 0)).trainable_numel;
}

const std::vector<std::string> qv{"q_proj", "v_proj"};
const std::vector<std::string> all7{"q_proj", "k_proj", "v_proj", "o_proj",
                                    "gate_proj", "up_proj", "down_proj"};

TEST(Peft, LoraFamily) {
  EXPECT_EQ(trainable("lora", 32, qv), 9'175'040u);
  EXPECT_EQ(trainable("lora", 64, qv), 18'350'080u);
  EXPECT_EQ(trainable("lora", 10, {"gate_proj", "up_proj", "down_proj"}), 9'461'760u);
  EXPECT_EQ(trainable("dora", 32, qv), 9'289'728u);
  EXPECT_EQ(trainable("lora_fa", 32, qv), 3'670'016u);
  EXPECT_EQ(trainable("adalora", 64, qv), 18'353'664u);  // init_r 64
  EXPECT_EQ(trainable("loha", 32, qv), 18'350'080u);
}

TEST(Peft, VectorAndOrthogonalMethods) {
  EXPECT_EQ(trainable("vera", 256, qv), 129'024u);
  EXPECT_EQ(trainable("oft", 32, qv), 8'171'520u);
  EXPECT_EQ(trainable("ia3", 1, {"k_proj", "v_proj", "down_proj"}), 286'720u);
  EXPECT_EQ(trainable("ia3", 1, all7), 630'784u);
}

TEST(Peft, PromptPrefixAndNormTuning) {
  EXPECT_EQ(trainable("prompt_tuning", 1, qv, 200), 614'400u);
  EXPECT_EQ(trainable("prefix_tuning", 1, qv, 200), 11'468'800u);
  EXPECT_EQ(trainable("ln_tuning", 1, qv), 175'104u);
}

TEST(Peft, DoraSavesMoreThanLora) {
  job::job_spec j;
  j.parallel.kind = job::strategy::single;
  j.lora.enabled = true;
  j.lora.rank = 32;
  const auto lora = make_layout(llama3b(), j, make_rank_info(j, 0));
  j.lora.method = "dora";
  const auto dora = make_layout(llama3b(), j, make_rank_info(j, 0));
  EXPECT_EQ(lora.units[1].adapter_saved_per_token, 0u);
  EXPECT_EQ(dora.units[1].adapter_saved_per_token, (3072u + 1024u) * 2u);  // q and v outputs, bf16
  EXPECT_EQ(dora.units[1].adapter_transient, 2u * 3072u * 3072u * 2u);
}

}  // namespace
}  // namespace vramscope::schedule
