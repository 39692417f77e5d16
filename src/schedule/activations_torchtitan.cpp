// torchtitan's model code and loss: per-operator selective checkpointing, the loss over
// vocabulary-sharded logits and the compiled loss (activations_parts.hpp lists the files of the
// other pieces).
#include "schedule/activations_parts.hpp"

#include <algorithm>

namespace vramscope::schedule::activation {

// Per-operator selective checkpointing as torchtitan applies it (selective_ac_option "op",
// torchtitan/models/llama3/infra/parallelize.py _custom_policy): the outputs of the ops in its
// save list are kept (flash / efficient attention, and aten.mm) except every second matmul of
// the block, counted in forward order; everything else is recomputed in backward. A decoder
// block's matmuls run q, k, v, o, then gate (w1), up (w3), down (w2) for a gated MLP or fc1,
// fc2: the 1st, 3rd, 5th and 7th are kept (q, v, gate, down; q, v, fc1 without a gate).
std::vector<bytes> per_op_saved(const dims& d, const model::stack_shape& s, const job::job_spec& job) {
  std::vector<bytes> out;
  const std::uint64_t heads = std::max<std::uint64_t>(1, d.heads / d.tp);
  out.push_back(d.c * d.n * d.h / d.tp);   // q projection output
  out.push_back(d.c * d.n * d.kv / d.tp);  // v projection output
  const auto impl = s.eager_attention ? attention_impl::eager : job.training.attention;
  if (impl == attention_impl::flash || impl == attention_impl::efficient) {
    out.push_back(d.c * d.n * d.h / d.tp);           // attention output
    out.push_back(4 * d.batch * heads * d.seq);      // logsumexp
  }
  dims mlp = d;
  if (s.experts > 0) mlp.n = routed_rows(d.n, s, job);
  out.push_back(d.c * mlp.n * d.i / d.tp);          // gate (or fc1) output
  if (s.gated_mlp) out.push_back(d.c * mlp.n * d.h);  // down_proj output (before its reduction)
  return out;
}

// torchtitan's loss under tensor parallelism runs inside `loss_parallel()` (train_context;
// parallelisms: enable_loss_parallel = tp > 1 and not training.disable_loss_parallel), over the
// vocabulary-sharded logits, `nv` elements a rank. DTensor's custom handlers replace the
// log-softmax and NLL kernels (torch/distributed/tensor/parallel/loss.py). Forward,
// `_log_softmax`: `shifted = x - x_max` (fp32, alive until the handler returns),
// `torch.exp(shifted)` (freed once summed), then `result = shifted - shifted_logsumexp`, the
// saved output. Backward, `_nll_loss_and_log_softmax_backward` on that output:
// `grad_input = torch.zeros_like(x)`, then `(grad_input + torch.exp(x)) * grad_output`: the
// zeros, the exp and the sum are alive together beside the saved output (16 bytes a logit;
// the product then takes the exp's place); `_log_softmax_backward_data` only returns its
// input.
unit_activations loss_parallel(std::uint64_t c, std::uint64_t nv) {
  unit_activations a;
  a.saved_from = {c * nv, 4 * nv, 4 * nv};      // logits, fp32 upcast, shifted
  a.saved_scratch = {4 * nv};                   // exp(shifted)
  a.saved = {4 * nv};                           // log-softmax output
  a.backward_temps = {4 * nv, 4 * nv, 4 * nv};  // zeros, exp(x), their sum
  return a;
}

// torchtitan's loss compiled (training.compile_loss; components/loss.py,
// build_cross_entropy_loss: torch.compile of cross_entropy(pred.flatten(0, 1).float(), labels)):
// the upcast and the log-softmax fuse into the kernel, the partitioner keeps the bf16 logits it
// was given and each row's log-sum-exp, and backward writes the logits' gradient in their dtype.
// A compiled plain cross-entropy of the other loops is planned as eager (torchtune's model
// hands the loss fp32 logits, which it keeps as the eager loss keeps its fp32 output).
unit_activations compiled_loss_head(const dims& d, const head_sizes& h) {
  unit_activations a;
  const std::uint64_t nv = h.nv;
  a.saved.insert(a.saved.end(), {d.c * nv, 4 * d.n});  // logits, log-sum-exp per row
  a.backward_temps.push_back(d.c * nv);                 // their gradient
  return a;
}

}  // namespace vramscope::schedule::activation
