// Per-operator selective activation checkpointing (torchtitan's selective_ac_option "op"):
// between full checkpointing and none, by exactly what its policy keeps per block.
#include <vramscope/job/job_reader.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/predict/prediction.hpp>

#include <gtest/gtest.h>

#include <string>

namespace vramscope::predict {
namespace {

bytes activations_with(const std::string& ac) {
  auto m = model::load_model("llama-3.2-1b");
  EXPECT_TRUE(m);
  auto j = job::parse_job_yaml("model: llama-3.2-1b\nparallel: { strategy: single }\n"
                               "precision: bf16-true\n"
                               "training: { micro_batch: 2, seq_len: 4096, activation_checkpointing: " +
                                   ac + " }\n",
                               "test.yaml");
  EXPECT_TRUE(j) << (j ? "" : j.error().to_string());
  if (!m || !j) return 0;
  auto p = plan(*m, *j);
  EXPECT_TRUE(p);
  return p && !p->ranks.empty() ? p->ranks[0].parts.activations : 0;
}

TEST(PerOpCheckpointing, KeepsEveryOtherMatmulAndTheAttentionOutput) {
  const bytes none = activations_with("none");
  const bytes full = activations_with("full");
  const bytes op = activations_with("op");
  EXPECT_LT(full, op);
  EXPECT_LT(op, none);
  // Llama-3.2-1B: hidden 2048, kv width 512, MLP 8192, 32 heads, 16 blocks; 8192 tokens.
  const bytes n = 2 * 4096;
  const bytes kept = 2 * n * 2048 + 2 * n * 512 + 2 * n * 2048 + 4 * 2 * 32 * 4096 +
                     2 * n * 8192 + 2 * n * 2048;  // q, v, attention out, logsumexp, gate, down
  // All blocks but the one in backward hold their kept outputs at the peak.
  EXPECT_GE(op - full, 15 * kept);
  EXPECT_LE(op - full, 16 * kept);
}

TEST(TorchtitanLoss, KeepsOnlyTheFp32LogSoftmaxForBackward) {
  // torchtitan deletes the bf16 logits before backward and has no shifted copy: at the loss
  // it holds one fp32 (tokens x vocab) tensor where transformers < 4.46 holds three.
  auto m = model::load_model("llama-3.2-1b");
  ASSERT_TRUE(m);
  auto plan_with = [&](const char* loss) {
    auto j = job::parse_job_yaml(std::string("model: llama-3.2-1b\nparallel: { strategy: single }\n"
                                             "precision: bf16-true\nframework: { transformers: \"4.45\" }\n"
                                             "training: { micro_batch: 1, seq_len: 4096, activation_checkpointing: full, loss: ") +
                                     loss + " }\n",
                                 "test.yaml");
    EXPECT_TRUE(j) << (j ? "" : j.error().to_string());
    auto p = plan(*m, *j);
    EXPECT_TRUE(p);
    return p->ranks[0].peak.allocated;
  };
  // Neither loop keeps the model's output through backward (Trainer.compute_loss returns the
  // loss alone; torchtitan deletes `pred`): both reach the same backward peak, the saved fp32
  // log-softmax beside the NLL and log-softmax gradients, although transformers < 4.46 makes
  // more fp32 copies in forward.
  EXPECT_EQ(plan_with("hf"), plan_with("torchtitan"));
}

TEST(PerOpCheckpointing, HasItsYamlNames) {
  for (const char* name : {"op", "selective_op", "per-op"}) {
    auto j = job::parse_job_yaml(std::string("training: { activation_checkpointing: ") + name + " }\n",
                                 "test.yaml");
    ASSERT_TRUE(j) << name;
    EXPECT_EQ(j->training.activation_checkpointing, job::checkpointing::op);
  }
}

}  // namespace
}  // namespace vramscope::predict
