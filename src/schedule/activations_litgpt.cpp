// LitGPT's model code: the sliced cross-entropy of its fine-tuning step. Its fused qkv output and
// its RMSNorm before 6178c7cc are flags of `dims` that activations_layers.cpp reads
// (activations_parts.hpp lists the files of the other pieces).
#include "schedule/activations_parts.hpp"

#include <algorithm>

namespace vramscope::schedule::activation {

// LitGPT's fine-tuning step (finetune/lora.py: model(input_ids, lm_head_chunk_size=128),
// then utils.chunked_cross_entropy): the head runs on 128-token slices of each sequence. The
// model is a Fabric module, and Fabric converts every floating-point output of forward to
// the default dtype, fp32 (lightning/fabric/plugins/precision/half.py, amp.py and
// bitsandbytes.py, convert_output; wrapper.py _FabricModule.forward): the list of fp32 slices
// lives through backward, and cross-entropy per slice saves its fp32 log-softmax output. The
// conversion makes the whole fp32 list while the list in the compute dtype is still held
// (apply_to_collection builds a new list); that one dies as the converted list replaces it,
// before the loss allocates anything (saved_from). Backward handles one slice at a time: the
// fp32 gradients of its log-softmax output and input, then the gradient of the conversion in
// the compute dtype.
unit_activations litgpt_head(const dims& d, const head_sizes& h) {
  unit_activations a;
  const std::uint64_t v = h.v;
  const std::uint64_t nv = h.nv;
  const std::uint64_t slice = d.batch * std::min<std::uint64_t>(128, d.seq) * v;
  a.saved.push_back(4 * nv);  // the fp32 logit slices
  a.saved.push_back(4 * nv);  // their log-softmax outputs
  if (d.c != 4) {             // the slices in the compute dtype, converted
    a.saved_from.push_back(d.c * nv);
    a.saved_from_at = 0;
  }
  a.backward_temps.insert(a.backward_temps.end(), {4 * slice, 4 * slice});
  if (d.c != 4) a.backward_temps.push_back(d.c * slice);
  return a;
}

// LitGPT's CausalSelfAttention.scaled_dot_product_attention with attention-logit
// soft-capping (litgpt/model.py, v0.4.13 and later; Gemma 2) does not call SDPA: `q @ k.mT *
// scale`, then `torch.tanh(scores / cap) * cap`, `scores + mask` (the mask in q's dtype),
// `softmax(scores, dim=-1, dtype=torch.float).to(q.dtype)` and `scores @ v`. A temporary of an
// expression goes when the expression is done, the tensor `scores` names when the name is
// rebound; tanh keeps its output for backward, softmax its fp32 output
// (a 16-bit input is upcast into a copy first), and the matmul with v the probabilities in the
// compute dtype: one 16-bit tensor of the scores' shape more than transformers' eager path.
void litgpt_softcapped_scores_steps(unit_activations& a, const dims& d, std::uint64_t scores) {
  const std::uint64_t s = d.c * scores;
  if (!a.saved_steps.empty()) {  // one list a unit: a second attention keeps the same tensors
    a.saved.insert(a.saved.end(), {s, 4 * scores});
    if (d.c != 4) a.saved.push_back(s);
    return;
  }
  step_list p;
  const auto raw = p.alloc(s);  // q @ k.mT
  const auto scaled = p.alloc(s);
  p.free(raw);
  const auto divided = p.alloc(s);
  p.alloc(s);  // tanh, kept
  p.free(divided);
  const auto capped = p.alloc(s);
  p.free(scaled);  // `scores` rebound to the capped scores
  const auto masked = p.alloc(s);
  p.free(capped);
  std::size_t upcast = 0;
  if (d.c != 4) upcast = p.alloc(4 * scores);
  p.alloc(4 * scores);  // the softmax output, kept
  if (d.c != 4) p.free(upcast);
  if (d.c != 4) p.alloc(s);  // the probabilities in the compute dtype, kept
  p.free(masked);
  a.saved_steps_at = a.saved.size();
  a.saved.push_back(s);
  a.saved.push_back(4 * scores);
  if (d.c != 4) a.saved.push_back(s);
  a.saved_steps = std::move(p.steps);
}

}  // namespace vramscope::schedule::activation

namespace vramscope::schedule {

// A head that bitsandbytes quantised under LitGPT (Lightning's BitsandbytesPrecision converts
// lm_head too): each 128-token slice's matmul dequantises the whole weight
// (MatMul4Bit.forward), so the dequantised weight exists while the slices are made, before the
// list in the compute dtype is complete, and goes before the fp32 conversion (gathered_from). In
// backward autograd runs the nodes that became ready with the highest sequence number first:
// every slice's cross-entropy (as before), then every conversion's backward, which turns the
// fp32 logit gradients into the compute dtype, then every slice's matmul, which dequantises the
// weight again for the input gradient (MatMul4Bit.backward) beside the slices' gradients in
// the compute dtype.
void litgpt_dequantised_head(unit_activations& a, bytes dequantised, bytes uncast) {
  VRAMSCOPE_EXPECTS(a.saved.size() >= 2 && a.backward_steps.empty(),
                    "litgpt_dequantised_head of a head litgpt_head did not make");
  const bool converted = !a.saved_from.empty();
  const bytes compute_logits = converted ? a.saved_from[0] : 0;
  // `dequantize_4bit(B, state).to(A.dtype)`: the fp16 weight, then its cast, two tensors.
  const bytes cast = dequantised - uncast;
  if (uncast > 0) a.gathered_from.push_back(uncast);
  a.gathered_from.push_back(cast);
  const std::size_t n = a.saved.size();
  auto& st = a.backward_steps;
  // The cross-entropy's temporaries of one slice, beside everything saved.
  for (std::size_t k = 0; k < a.backward_temps.size(); ++k)
    st.push_back({a.backward_temps[k], 0, k + 1 == a.backward_temps.size()});
  const std::size_t temps = a.backward_temps.size();
  for (std::size_t k = 0; k < temps; ++k) st.push_back({0, n + k});
  st.push_back({0, 1});  // the log-softmax outputs go; the fp32 gradients take their place...
  if (converted) st.push_back({compute_logits, 0});  // ...and become the compute dtype's
  const std::size_t grads = n + st.size() - 1;
  // The input gradient's matmul: the fp16 weight, its cast, the fp16 copy goes, the matmul
  // runs, the cast goes.
  std::size_t fp16 = 0;
  if (uncast > 0) {
    st.push_back({uncast, 0});
    fp16 = n + st.size() - 1;
  }
  st.push_back({cast, 0, uncast == 0});
  const std::size_t weight = n + st.size() - 1;
  if (uncast > 0) {
    st.push_back({0, fp16});
    st.push_back({0, 0, true});
  }
  st.push_back({0, weight});
  if (converted) st.push_back({0, grads});
  a.backward_temps.clear();
}

}  // namespace vramscope::schedule
