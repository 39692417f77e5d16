// LitGPT's model code: the sliced cross-entropy of its fine-tuning step. Its fused qkv output and
// its RMSNorm before 6178c7cc are flags of `dims` that activations_layers.cpp reads
// (activations_parts.hpp lists the files of the other pieces).
#include "schedule/activations_parts.hpp"

#include <algorithm>

namespace vramscope::schedule::activation {

// LitGPT's fine-tuning step (finetune/lora.py: model(input_ids, lm_head_chunk_size=128),
// then utils.chunked_cross_entropy): the head runs on 128-token slices of each sequence. The
// model is a Fabric module, and Fabric converts every floating-point output of forward to
// the default dtype, fp32 (lightning/fabric/plugins/precision/half.py and amp.py,
// convert_output; wrapper.py _FabricModule.forward): the list of fp32 slices lives through
// backward, and cross-entropy per slice saves its fp32 log-softmax output. The slices in
// the compute dtype die when the converted list replaces them, before the loss allocates
// anything, so they never sit beside the log-softmax outputs and add no peak. Backward
// handles one slice at a time: the fp32 gradients of its log-softmax output and input,
// then the gradient of the conversion in the compute dtype.
unit_activations litgpt_head(const dims& d, const head_sizes& h) {
  unit_activations a;
  const std::uint64_t v = h.v;
  const std::uint64_t nv = h.nv;
  const std::uint64_t slice = d.batch * std::min<std::uint64_t>(128, d.seq) * v;
  a.saved.push_back(4 * nv);  // the fp32 logit slices
  a.saved.push_back(4 * nv);  // their log-softmax outputs
  a.backward_temps.insert(a.backward_temps.end(), {4 * slice, 4 * slice});
  if (d.c != 4) a.backward_temps.push_back(d.c * slice);
  return a;
}

}  // namespace vramscope::schedule::activation
