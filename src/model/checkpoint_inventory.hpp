#pragma once
// Turning safetensors headers into an inventory: checking a config's inventory against the
// weights, and inferring units for weights that come without a config.

#include <string>

#include <vramscope/model/model_spec.hpp>
#include <vramscope/model/safetensors.hpp>

namespace vramscope::model::detail {

/// Checks `spec` (built from the config at `config_source`) against `weights`. The first
/// difference is the error: a tensor the config describes that the weights lack, a shape that
/// differs, or a tensor of the weights the config does not describe. Known non-parameter
/// buffers (rotary inv_freq, GPT-2 / GPT-NeoX causal-mask "attn.bias") are ignored, and a head
/// stored although the config ties it is a note. A prefix the weights add or drop uniformly
/// ("transformer." on GPT-2) is accepted, and the tensors take the weights' names. On success
/// the tensors take the weights' dtypes, `spec.type` becomes the dtype holding most bytes, and
/// the units are recomputed.
status reconcile(model_spec& spec, const std::string& config_source,
                 const safetensors_checkpoint& weights);

/// The dtype holding the most bytes of `spec`'s tensors. Requires: at least one tensor.
dtype dominant_dtype(const model_spec& spec);

/// The inventory of weights without a config (model_type "safetensors"): units inferred from
/// the names (docs/models.md, "Weights without a config").
model_spec inventory_from_checkpoint(const safetensors_checkpoint& weights, std::string name);

}  // namespace vramscope::model::detail
