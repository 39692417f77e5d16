#pragma once
// The pieces activations_for (activations.hpp, the interface) puts together, a file per model
// code:
//   activations_units.cpp         activations_for: a unit's activations by its kind, a block's
//                                 layers composed, the output head handed to its loop's loss
//   activations_layers.cpp        the layers every model code has: norms, attention, the MLP,
//                                 mixture-of-experts routing (LitGPT's and Megatron-LM's
//                                 differences in them are flags of `dims`)
//   activations_transformers.cpp  Hugging Face transformers: its Llama layer, final RMSNorm and
//                                 eager attention in op order, and its loss
//   activations_torchtitan.cpp    torchtitan: per-operator selective checkpointing, the
//                                 vocabulary-parallel loss and the compiled loss
//   activations_torchtune.cpp     torchtune: the chunked cross-entropy
//   activations_litgpt.cpp        LitGPT: the sliced cross-entropy of its fine-tuning step
// A new model code gets a file of its own, its functions declared here and called from
// activations_units.cpp (docs/architecture.md, "Where things go").

#include <cstddef>
#include <cstdint>
#include <vector>

#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>

#include "schedule/activations.hpp"

namespace vramscope::schedule::activation {

using job::attention_impl;

struct dims {
  std::uint64_t n, h, i, heads, kv, batch, seq;  // tokens, hidden, MLP width, q heads, kv width
  std::uint64_t c;                                // compute dtype bytes
  std::uint64_t r;                                // residual-stream dtype bytes (fp32 under autocast)
  std::uint64_t tp, res;                          // tp size; residual-stream split (SP)
  bool litgpt = false;       // LitGPT's GPT class (training.model_code: litgpt)
  bool torchtune = false;    // torchtune's TransformerDecoder (training.model_code: torchtune)
  bool litgpt_bf16_norm = false;  // lit-gpt before 6178c7cc: RMSNorm in the stream's dtype
  bool mean_saves = false;   // torch.mean keeps its input for backward (torch < 2.2)
  bool local_inputs = false; // Megatron-LM under sequence parallelism: linears keep their shard
  // Transformer Engine's float8 recipe (job_spec::transformer_engine_float8), none otherwise.
  job::float8_recipe te_float8 = job::float8_recipe::none;
};

// What a linear keeps of its input of `elements` values for its weight gradient. A Transformer
// Engine linear in float8 keeps the quantized input it ran the matmul on, only the layout the
// weight gradient's matmul reads (linear.py: `inputmat.update_usage(rowwise_usage=False,
// columnwise_usage=True)`): one byte a value, with one e8m0 scale per 32 values (MXFP8) or an
// fp32 scale per 128 (blockwise); per-tensor scaling has one scale for all. Otherwise the
// input in the compute dtype.
inline bytes linear_input(const dims& d, std::uint64_t elements) {
  switch (d.te_float8) {
    case job::float8_recipe::none:
      return d.c * elements;
    case job::float8_recipe::mxfp8:
      return elements + ceil_div(elements, std::uint64_t{32});
    case job::float8_recipe::blockwise:
      return elements + 4 * ceil_div(elements, std::uint64_t{128});
    default:
      return elements;
  }
}

// A forward that keeps nothing for backward, as a list of steps (forward_step).
// Entries are numbered from `base` (a backward's list begins with the unit's saved tensors).
class step_list {
 public:
  explicit step_list(std::size_t base = 0) : base_(base) {}
  std::size_t alloc(bytes b, bool gemm = false) {
    steps.push_back({b, 0, gemm});
    return base_ + steps.size() - 1;
  }
  void weight_cast(bytes b) { steps.push_back({b, 0, false, true}); }
  void free(std::size_t entry) { steps.push_back({0, entry}); }
  // A matmul whose output another part of the plan makes (a weight's gradient, the strategy's).
  void gemm() { steps.push_back({0, 0, true}); }
  std::vector<forward_step> steps;

 private:
  std::size_t base_ = 0;
};

// The output head's sizes on one rank, which every loss reads (head() in activations_units.cpp).
struct head_sizes {
  bool sharded_head = false;    // the head's rows split over tensor-parallel ranks
  bool vocab_parallel = false;  // the loss runs on vocabulary-sharded logits
  bool whole_logits = false;    // tensor-parallel ranks each hold logits of the whole vocabulary
  std::uint64_t lv = 0;         // the rank's rows of the head
  std::uint64_t v = 0;          // the logits' columns on the rank
  std::uint64_t nv = 0;         // the logits' elements on the rank
};

// activations_layers.cpp
void add_norm(std::vector<bytes>& saved, const dims& d, const model::stack_shape& s, bool liger,
              bool weight_trains, bool output_saved, bool input_shared = false, int readers = 1);
attention_impl sdpa_kernel(const dims& d, const job::job_spec& job);
void add_attention(unit_activations& a, const dims& d, const model::stack_shape& s,
                   const job::job_spec& job, bool o_input);
void add_mlp(unit_activations& a, const dims& d, bool gated, std::uint32_t act_saved, bool liger,
             bool down_input);
std::uint64_t routed_rows(std::uint64_t tokens, const model::stack_shape& s,
                          const job::job_spec& job);
void add_routing(unit_activations& a, const dims& d, const model::stack_shape& s,
                 const job::job_spec& job, const saved_inputs& in);

// activations_transformers.cpp
void eager_scores_steps(unit_activations& a, const dims& d, std::uint64_t scores);
bool llama_steps_apply(const dims& d, const model::stack_shape& s, const job::job_spec& job);
void llama_block_steps(unit_activations& a, const dims& d);
bool autocast_steps_apply(const dims& d, const model::stack_shape& s, const job::job_spec& job,
                          const saved_inputs& in);
void autocast_llama_block_steps(unit_activations& a, const dims& d, const model::stack_shape& s);
std::vector<forward_step> rms_norm_unit_steps(const dims& d, bool weight_trains,
                                              bool output_saved);
unit_activations transformers_head(const dims& d, const model::stack_shape& s,
                                   const job::job_spec& job, const head_sizes& h);

// activations_torchtitan.cpp
std::vector<bytes> per_op_saved(const dims& d, const model::stack_shape& s,
                                const job::job_spec& job);
unit_activations loss_parallel(std::uint64_t c, std::uint64_t nv);
unit_activations compiled_loss_head(const dims& d, const head_sizes& h);

// activations_torchtune.cpp
unit_activations chunked_head(const dims& d, std::uint64_t v, int chunks, bool compiled);

// activations_litgpt.cpp
unit_activations litgpt_head(const dims& d, const head_sizes& h);
// LitGPT's attention with soft-capped scores, from the scores on, in op order (saved_steps).
void litgpt_softcapped_scores_steps(unit_activations& a, const dims& d, std::uint64_t scores);

}  // namespace vramscope::schedule::activation
