// torchtune's loss: the chunked cross-entropy over the chunked output of its decoder
// (activations_parts.hpp lists the files of the other pieces).
#include "schedule/activations_parts.hpp"

#include <algorithm>

namespace vramscope::schedule::activation {

// torchtune's CEWithChunkedOutputLoss (torchtune/modules/loss/ce_chunked_output_loss.py) over
// TransformerDecoder.chunked_output (torchtune/modules/transformer.py): the output projection
// runs on each of `chunks` tensor_split slices of the sequence and the model returns the list,
// so every logit chunk, in the model dtype, lives until the recipe's `del logits` after the loss
// (recipes/full_finetune_single_device.py, _loss_step). The loss upcasts one chunk at a time
// (`logits.float()`, a no-op for fp32 logits) and cross_entropy saves that chunk's fp32
// log-softmax output; the upcast copy is transient. Backward walks the chunks one by one: the
// NLL and log-softmax gradients (fp32) and the gradient of the cast of one chunk at a time.
//
// Under training.compile_loss torchtune compiles the loss's per-chunk cross-entropy
// (training.compile_loss: `loss.compute_cross_entropy = torch.compile(...)`): the upcast and the
// log-softmax fuse into the kernel, and the partitioner keeps the chunk's logits (alive anyway in
// the list) and each row's log-sum-exp instead of the fp32 log-softmax; backward writes the
// chunk's gradient in the logits' dtype directly.
unit_activations chunked_head(const dims& d, std::uint64_t v, int chunks, bool compiled) {
  unit_activations a;
  const std::uint64_t k = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(chunks), 1, d.seq);
  const std::uint64_t largest = d.batch * ceil_div(d.seq, k) * v;  // elements of the first chunk
  for (std::uint64_t i = 0; i < k; ++i) {
    // tensor_split: the first seq % k slices hold one token more
    const std::uint64_t rows = d.batch * (d.seq / k + (i < d.seq % k ? 1 : 0));
    const std::uint64_t elements = rows * v;
    a.saved.push_back(compiled ? 4 * rows : 4 * elements);  // log-sum-exp, or log-softmax output
    a.forward_temps.push_back(d.c * elements);              // the chunk's logits
  }
  if (compiled) {
    a.backward_temps.push_back(d.c * largest);
    return a;
  }
  const bool upcast = d.c != 4;
  if (upcast) a.forward_temps.push_back(4 * largest);
  a.backward_temps.insert(a.backward_temps.end(), {4 * largest, 4 * largest});
  if (upcast) a.backward_temps.push_back(d.c * largest);
  return a;
}

}  // namespace vramscope::schedule::activation
