#include "schedule/layout.hpp"

#include "schedule/keep_last.hpp"

#include <vramscope/core/version.hpp>
#include <vramscope/model/modules.hpp>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace vramscope::schedule {

namespace {


int size_of(dtype t) { return static_cast<int>(bytes_of(t, 1)); }

bool is_norm(const model::tensor& t, model::unit_kind kind) {
  const bool named = t.name.find("norm") != std::string::npos ||
                     t.name.find(".ln_") != std::string::npos || t.name.rfind("ln_", 0) == 0;
  return t.shape.size() == 1 && named &&
         (kind == model::unit_kind::block || kind == model::unit_kind::norm);
}

// The block layer group a linear weight belongs to, by its module name across the families
// the model readers know; nullptr for anything else.
bool saved_inputs::* input_group(const std::string& name) {
  static const std::pair<const char*, bool saved_inputs::*> groups[] = {
      {"q_proj", &saved_inputs::qkv},        {"k_proj", &saved_inputs::qkv},
      {"v_proj", &saved_inputs::qkv},        {"qkv_proj", &saved_inputs::qkv},
      {"query_key_value", &saved_inputs::qkv}, {"c_attn", &saved_inputs::qkv},
      {"o_proj", &saved_inputs::o},          {"out_proj", &saved_inputs::o},
      {"attention.dense", &saved_inputs::o}, {"attn.c_proj", &saved_inputs::o},
      {"self_attn.dense", &saved_inputs::o},
      {"gate_proj", &saved_inputs::mlp},     {"up_proj", &saved_inputs::mlp},
      {"gate_up_proj", &saved_inputs::mlp},  {"fc1", &saved_inputs::mlp},
      {"dense_h_to_4h", &saved_inputs::mlp}, {"c_fc", &saved_inputs::mlp},
      {"down_proj", &saved_inputs::down},    {"fc2", &saved_inputs::down},
      {"dense_4h_to_h", &saved_inputs::down}, {"mlp.c_proj", &saved_inputs::down},
      {"lm_head", &saved_inputs::head},      {"embed_out", &saved_inputs::head},
      // T5 (SelfAttention / EncDecAttention .q .k .v .o, DenseReluDense .wi / .wi_0 / .wi_1, .wo)
      {"Attention.q.", &saved_inputs::qkv},  {"Attention.k.", &saved_inputs::qkv},
      {"Attention.v.", &saved_inputs::qkv},  {"Attention.o.", &saved_inputs::o},
      {"DenseReluDense.wi", &saved_inputs::mlp}, {"DenseReluDense.wo", &saved_inputs::down},
      // BERT (attention.output.dense before the MLP's output.dense, which it contains)
      {"attention.self.", &saved_inputs::qkv}, {"attention.output.dense", &saved_inputs::o},
      {"intermediate.dense", &saved_inputs::mlp}, {"output.dense", &saved_inputs::down},
  };
  // The same names come back for every layout of a model (what-if grids plan thousands), so
  // each distinct name is classified once per thread.
  thread_local std::unordered_map<std::string, bool saved_inputs::*> known;
  if (const auto it = known.find(name); it != known.end()) return it->second;
  bool saved_inputs::* found = nullptr;
  for (const auto& [part, member] : groups)
    if (name.find(part) != std::string::npos) {
      found = member;
      break;
    }
  if (known.size() > 100'000) known.clear();  // a bound for processes that see many models
  known.emplace(name, found);
  return found;
}

// Tensor parallelism splits the input features of the row-parallel layers (o, down) and the
// output features of the others.
bool row_parallel(const std::string& name) {
  const auto group = input_group(name);
  return group == &saved_inputs::o || group == &saved_inputs::down;
}

// Counts `t`, of layer group `group`, among the matrices reading a norm's output
// (saved_inputs::qkv_readers and mlp_readers). Routed experts read the dispatched copies of
// the tokens, not the norm output.
void count_reader(saved_inputs& in, const model::tensor& t, bool saved_inputs::*group,
                  bool expert) {
  if (expert || t.shape.size() != 2) return;
  if (group == &saved_inputs::qkv) ++in.qkv_readers;
  if (group == &saved_inputs::mlp) ++in.mlp_readers;
}

// A module of the MLP (IA3 scales its input rather than its output there, as PEFT's
// feedforward_modules do).
bool in_mlp(const std::string& name) {
  const auto group = input_group(name);
  return group == &saved_inputs::mlp || group == &saved_inputs::down;
}

// A frozen float tensor of `numel` values kept in `element_bytes`, computed with in
// `gathered_bytes` a value once unsharded.
frozen_tensor float_frozen(std::uint64_t numel, int element_bytes, int gathered_bytes) {
  frozen_tensor f;
  f.numel = f.elements = numel;
  f.element_bytes = element_bytes;
  f.stored = numel * static_cast<bytes>(element_bytes);
  f.gathered = numel * static_cast<bytes>(gathered_bytes);
  return f;
}

// PEFT methods whose adapter needs the layer's input for its gradient (LoRA's A, DoRA, LoHa's
// delta weight, OFT's rotated weight); LoRA-FA trains B on A's output, VeRA its vectors on the
// frozen projections' outputs, IA3 its vector on the scaled tensor.
bool adapter_saves_input(const std::string& method) {
  return method == "lora" || method == "dora" || method == "adalora" || method == "loha" ||
         method == "oft";
}

// PEFT methods whose layer runs its input through lora_dropout before A (peft/tuners/lora/layer.py
// Linear.forward: lora_B(lora_A(dropout(x)))).
bool applies_lora_dropout(const std::string& method) {
  return method == "lora" || method == "dora" || method == "adalora" || method == "lora_fa";
}

// What a PEFT method adds to one target matrix of shape (out, in): trainable tensors (element
// counts), frozen extras, and per-token activations beyond the base layer's. The counts are
// those PEFT prints with print_trainable_parameters (peft/tuners/<method>/layer.py).
struct adapter {
  std::vector<std::uint64_t> trainable;
  std::uint64_t frozen = 0;          // frozen adapter values (LoRA-FA's A), master dtype
  std::uint64_t saved_per_token = 0; // values saved for backward per token
  std::uint64_t transient = 0;       // values of a transient matrix in forward
};

adapter adapter_for(const std::string& method, std::uint64_t r, std::uint64_t out,
                    std::uint64_t in, bool mlp) {
  adapter a;
  if (method == "lora" || method == "adalora" || method == "dora") {
    a.trainable = {r * in, out * r};
    if (method == "adalora") a.trainable.push_back(r);  // lora_E, the singular values
    if (method == "dora") {
      // lora_magnitude_vector; forward recomputes the base output to rescale it (saved) and
      // the norm of W + s*BA row by row (a full weight-sized transient).
      a.trainable.push_back(out);
      a.saved_per_token = out;
      a.transient = 2 * out * in;
    }
  } else if (method == "lora_fa") {  // LoRA-FA's optimizer freezes A and trains B only
    a.trainable = {out * r};
    a.frozen = r * in;
  } else if (method == "loha") {  // two Hadamard factors, each a rank-r pair
    a.trainable = {r * in, out * r, r * in, out * r};
  } else if (method == "vera") {  // scaling vectors over shared frozen projections
    a.trainable = {r, out};
  } else if (method == "oft") {  // r blocks of (in/r)^2, stored as their upper triangles
    const std::uint64_t b = in / std::max<std::uint64_t>(1, r);
    a.trainable = {r * (b * (b - 1) / 2)};
  } else if (method == "ia3") {  // one vector; the scaled tensor is saved for its gradient
    a.trainable = {mlp ? in : out};
    a.saved_per_token = mlp ? in : out;
  }
  return a;
}

// Tensor parallelism splits the matrices of blocks and, unless the job leaves them whole
// (parallel.tp_embedding, parallel.tp_head), the vocabulary of embedding and head; norms and
// other vectors are replicated (Megatron-style layout). A text model's other embedding tables
// (GPT-2's learned positions) are replicated: Megatron-LM's position_embeddings is a plain
// torch.nn.Embedding beside the VocabParallelEmbedding (megatron/core/models/common/embeddings/
// language_model_embedding.py), and torch's tensor-parallel plans leave such tables alone.
std::uint64_t tp_split(const model::tensor& t, model::unit_kind kind, const job::parallel_spec& p,
                       int tp, std::uint64_t vocab) {
  const std::uint64_t n = t.numel();
  if (tp <= 1 || t.shape.size() < 2) return n;
  const bool vocabulary = vocab == 0 || t.shape[0] == vocab;
  const bool split = kind == model::unit_kind::block || kind == model::unit_kind::vision_block ||
                     (kind == model::unit_kind::embedding && p.tp_embedding && vocabulary) ||
                     (kind == model::unit_kind::head && p.tp_head);
  return split ? ceil_div(n, static_cast<std::uint64_t>(tp)) : n;
}

// A frozen tensor of `numel` elements (after the TP split) as this rank stores it.
// torchtune's QLoRA builders (quantize_base=True) give every linear of the blocks an NF4
// weight: LoRALinear where it is a target, FrozenNF4Linear where it is not
// (torchtune/models/llama3_2/_component_builders.py at 1814feb1: lora_llama3_2_self_attention's
// q/k/v/output projections and llama3_mlp; the Llama 2, 3 and 3.1, Mistral, Gemma, Gemma 2 and
// Phi-3 builders alike). The Qwen2 (Qwen2.5) and Qwen3 builders leave their untargeted linears
// nn.Linear in the model dtype (torchtune/models/qwen2 and qwen3/_component_builders.py). The
// output head is quantised only as a target (apply_lora_to_output).
bool torchao_quantises_untargeted(const model::model_spec& model) {
  return model.text.family.rfind("qwen", 0) != 0;
}

// `torchao_untargeted`: torchtune's builder makes this model's untargeted block linears NF4
// too (torchao_quantises_untargeted).
frozen_tensor make_frozen(const model::tensor& t, model::unit_kind kind, std::uint64_t numel,
                          const job::job_spec& job, const state_dtypes& d, bool target,
                          bool torchao_untargeted) {
  const auto& lora = job.lora;
  // transformers quantises every linear but the head; torchtune (torchao) the LoRA targets
  // and, where its builder says so, the other linears of the blocks, never an untargeted head.
  const bool torchao = lora.quantizer == "torchao";
  const bool quantised_here =
      !torchao || target || (torchao_untargeted && kind != model::unit_kind::head);
  if (lora.base_quantization && quantisable(t, kind, lora.quantize_skip) && quantised_here) {
    // The TP split divides the rows of the matrix; the packing is per value, so split the
    // full matrix's figures in the same proportion.
    frozen_tensor f;
    f.numel = numel;
    auto shape = t.shape;
    const std::uint64_t full = t.numel();
    if (numel != full && full > 0) shape[0] = ceil_div(shape[0] * numel, full);
    const auto q = quantised_bytes(*lora.base_quantization, shape, lora.double_quant || torchao);
    const bool four_bit = *lora.base_quantization != dtype::i8;
    if (torchao) {
      // torchao's NF4Tensor (torchao/dtypes/nf4tensor.py) always double-quantises, and its
      // scalers are inner tensors of the parameter: FSDP2 shards them with the packed values.
      f.element_bytes = 1;
      f.elements = q.packed + q.state;
    } else {
      // Packed 4-bit weights are elements of bnb_4bit_quant_storage, int8 ones int8; the
      // QuantState is an attribute of the parameter, so it stays whole on every rank.
      f.element_bytes = four_bit ? size_of(lora.quant_storage) : 1;
      f.elements = ceil_div(q.packed, static_cast<bytes>(f.element_bytes));
      f.quant_state = q.state;
    }
    f.stored = f.elements * static_cast<bytes>(f.element_bytes);
    f.gathered = f.stored;  // gathered packed; dequantised one matmul at a time
    f.quantised = true;
    return f;
  }
  return float_frozen(numel, d.frozen, std::min(d.frozen, d.compute));
}

// Tensors of a PEFT method that belong to the model rather than to a target: the virtual-token
// embedding of prompt tuning (num_virtual_tokens x hidden) and prefix tuning (its keys and
// values for every layer, num_virtual_tokens x layers x 2 x kv width), and VeRA's shared
// frozen projections (r x largest in, largest out x r). They are kept with the embedding unit.
void add_model_level_adapters(const model::model_spec& model, const job::job_spec& job,
                              layout& out, std::uint64_t max_out, std::uint64_t max_in) {
  const auto& lora = job.lora;
  if (!lora.enabled || out.units.empty()) return;
  auto& first = out.units.front();
  const auto tokens = static_cast<std::uint64_t>(lora.virtual_tokens);
  const auto& s = model.text;
  std::uint64_t extra = 0;
  if (lora.method == "prompt_tuning") extra = tokens * s.hidden;
  if (lora.method == "prefix_tuning") extra = tokens * s.layers * 2 * s.kv_heads * s.head_dim;
  if (extra > 0) {
    first.tensors.push_back(extra);
    first.trainable.push_back(extra);
  }
  if (lora.method == "vera" && max_out > 0)  // vera_A / vera_B buffers are created in fp32
    first.frozen.push_back(float_frozen(static_cast<std::uint64_t>(lora.rank) * (max_in + max_out), 4, 4));
}

}  // namespace

quantised_size quantised_bytes(dtype q, const std::vector<std::uint64_t>& shape, bool double_quant) {
  std::uint64_t numel = 1;
  for (auto s : shape) numel *= s;
  quantised_size out;
  if (q == dtype::i8) {
    // Int8Params: int8 values and SCB, one fp32 absmax per output row.
    out.packed = numel;
    out.state = (shape.empty() ? 1 : shape[0]) * 4;
    return out;
  }
  // Params4bit (bitsandbytes/nn/modules.py, functional.quantize_4bit): blocksize 64.
  out.packed = ceil_div(numel, 2);
  const std::uint64_t blocks = ceil_div(numel, 64);
  // compress_statistics (double quantisation) quantises the absmax with blocksize 256.
  out.state = double_quant ? blocks + ceil_div(blocks, 256) * 4 : blocks * 4;
  return out;
}

bool quantisable(const model::tensor& t, model::unit_kind kind, const std::vector<std::string>& skip) {
  using model::unit_kind;
  const auto module = model::kind_of(t, kind);  // nn.Linear (or the head), as PEFT sees it
  if (module != model::module_kind::linear && module != model::module_kind::head) return false;
  // A skip entry is a module path component; "lm_head" is the output head whatever the family
  // calls it (get_output_embeddings).
  for (const auto& s : skip)
    if ((s == "lm_head" && kind == unit_kind::head) || t.name == s + ".weight" ||
        t.name.find("." + s + ".") != std::string::npos || t.name.rfind(s + ".", 0) == 0)
      return false;
  return kind != unit_kind::norm && kind != unit_kind::vision_head;
}

bool float8_convertible(const model::tensor& t, model::unit_kind kind) {
  using model::unit_kind;
  if (model::kind_of(t, kind) != model::module_kind::linear || t.shape.size() != 2) return false;
  if (kind == unit_kind::norm || kind == unit_kind::embedding || kind == unit_kind::vision_embedding)
    return false;
  return t.shape[0] % 16 == 0 && t.shape[1] % 16 == 0;
}

rank_info make_rank_info(const job::job_spec& job, int rank) {
  rank_info r;
  r.rank_ = rank;
  r.world = job.world_size();
  r.tp = std::max(1, job.parallel.tp);
  r.pp = std::max(1, job.parallel.pp);
  r.pp_rank_ = rank / std::max(1, r.world / r.pp);
  r.cp = std::max(1, job.parallel.cp);
  r.ep = std::max(1, job.parallel.ep);
  r.ep_rank_ = (rank / r.tp) % r.ep;  // the ep ranks are consecutive data-parallel ranks
  r.dp_replicate = std::max(1, job.parallel.dp_replicate);
  // FSDP2 shards over the data-parallel and context-parallel ranks together (dp_shard_cp).
  r.dp_shard = (job.parallel.dp_shard > 0
                    ? job.parallel.dp_shard
                    : std::max(1, r.world / (r.tp * r.dp_replicate * r.pp * r.cp))) * r.cp;
  if (job.parallel.kind == job::strategy::ddp || job.parallel.kind == job::strategy::single) r.dp_shard = 1;
  if (job.parallel.kind == job::strategy::fsdp1 && job.parallel.fsdp_sharding == job::sharding::hybrid_shard)
    r.dp_shard = std::min(r.dp_shard, job.hardware.gpus_per_node);
  if (job.parallel.kind == job::strategy::fsdp1 && job.parallel.fsdp_sharding == job::sharding::no_shard)
    r.dp_shard = 1;
  r.local_rank_ = rank % std::max(1, job.hardware.gpus_per_node);
  return r;
}

parameter_split split_of(const layout& lay) {
  parameter_split out;
  out.trainable = lay.trainable_numel;
  for (const auto& u : lay.units) out.frozen += u.frozen_bytes + u.quant_state_bytes;
  return out;
}

dtype stored_dtype(const job::job_spec& job) {
  const auto& p = job.precision;
  switch (job.parallel.kind) {
    case job::strategy::fsdp1:
    case job::strategy::fsdp2:
    case job::strategy::jax: return p.master;
    case job::strategy::zero1:
    case job::strategy::zero2:
    case job::strategy::zero3:
    case job::strategy::megatron: return p.params;
    case job::strategy::ddp:
    case job::strategy::single: return p.autocast ? p.master : p.params;
  }
  return p.params;
}

state_dtypes make_state_dtypes(const job::job_spec& job) {
  const auto& p = job.precision;
  state_dtypes d;
  d.compute = size_of(p.params);
  d.reduce = size_of(p.reduce);
  d.state = size_of(job.optimizer.state);
  d.stored = size_of(stored_dtype(job));
  switch (job.parallel.kind) {
    case job::strategy::fsdp1:
    case job::strategy::fsdp2:
    case job::strategy::jax:
      d.grad = size_of(p.master);
      break;
    case job::strategy::zero1:
    case job::strategy::zero2:
    case job::strategy::zero3:
      d.grad = size_of(p.params);
      d.master = p.master != p.params ? size_of(p.master) : 0;
      break;
    case job::strategy::megatron:  // a bf16 model, an fp32 main_grad buffer, fp32 main params
      d.grad = size_of(p.reduce);
      d.master = p.master != p.params ? size_of(p.master) : 0;
      break;
    case job::strategy::ddp:
    case job::strategy::single:
      d.grad = d.stored;
      d.master = (!p.autocast && p.master != p.params) ? size_of(p.master) : 0;
      break;
  }
  // A frozen base (LoRA) stays in the dtype the model is held in: fp32 under autocast or
  // fp32 FSDP shards, the load dtype otherwise. Only the computation is in `params`.
  d.frozen = d.stored;
  return d;
}

bool shards_parameters(const job::job_spec& job) {
  switch (job.parallel.kind) {
    case job::strategy::fsdp1: return job.parallel.fsdp_sharding != job::sharding::no_shard;
    case job::strategy::fsdp2:
    case job::strategy::zero3:
    case job::strategy::jax: return true;
    default: return false;
  }
}

std::optional<std::uint64_t> expert_index(const std::string& name) {
  constexpr std::string_view key = ".experts.";
  const auto at = name.find(key);
  if (at == std::string::npos) return std::nullopt;
  std::uint64_t index = 0;
  std::size_t i = at + key.size();
  if (i >= name.size() || std::isdigit(static_cast<unsigned char>(name[i])) == 0) return std::nullopt;
  for (; i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) != 0; ++i)
    index = index * 10 + static_cast<std::uint64_t>(name[i] - '0');
  return index;
}

// The rows of LitGPT's fused qkv linear that carry LoRA (lit_gpt/lora.py, LoRAQKVLinear's
// enable_lora): the job's q_proj, k_proj and v_proj targets name them; a fused target
// (query_key_value, ...) stands for finetune/lora.py's defaults, lora_query and lora_value.
struct litgpt_qkv {
  std::uint64_t q = 0, k = 0, v = 0;  // adapted rows of each
  bool dropped = false;               // the one lora_dropout of the fused input is counted
};

void note_litgpt_qkv(litgpt_qkv& rows, const model::tensor& t) {
  const auto has = [&](const char* part) { return t.name.find(part) != std::string::npos; };
  if (has("q_proj")) rows.q = t.shape[0];
  else if (has("k_proj")) rows.k = t.shape[0];
  else if (has("v_proj")) rows.v = t.shape[0];
  else if (t.shape[0] > t.shape[1]) {  // fused: hidden query rows, then keys and values alike
    rows.q = t.shape[1];
    rows.v = (t.shape[0] - t.shape[1]) / 2;
  }
}

// LoRAQKVLinear.zero_pad (lit_gpt/lora.py) places the adapter's output rows into a zero
// (tokens, out) tensor with an out-of-place `result.index_copy(1, lora_ind, x.reshape(...))`
// when q, k or v is left out; IndexCopyBackward keeps `source` (its gradient is
// `grad.index_select(dim, index).expand_as(source)`): tokens x the adapted rows, in the compute
// dtype. With all three adapted zero_pad returns its input and keeps nothing.
bytes litgpt_zero_pad_per_token(const litgpt_qkv& rows, int tp, bytes compute) {
  const bool all = rows.q > 0 && rows.k > 0 && rows.v > 0;
  const std::uint64_t adapted = rows.q + rows.k + rows.v;
  if (all || adapted == 0) return 0;
  return ceil_div(adapted, static_cast<std::uint64_t>(std::max(1, tp))) * compute;
}

// Bytes a value of a quantised weight takes while its matmul dequantises it. bitsandbytes
// dequantises into the dtype the weight was quantised from (functional.dequantize_4bit: the
// QuantState's dtype) and MatMul4Bit casts that to the input's dtype, forward and backward
// (`dequantize_4bit(B, state).to(A.dtype)`); the uncast copy goes once the cast exists.
// Lightning's BitsandbytesPrecision, which LitGPT uses, quantises from fp16
// (fabric/plugins/precision/bitsandbytes.py, _Linear4bit.quantize: `.to(dtype=torch.half)`), so
// under bf16 both copies exist at once; transformers quantises from the load dtype, the compute
// dtype, and the cast is a no-op.
bytes dequantised_bytes(const job::job_spec& job, int compute) {
  const bool from_half = job.training.model_code == job::model_impl::litgpt &&
                         job.lora.quantizer == "bitsandbytes" && job.lora.base_quantization &&
                         *job.lora.base_quantization != dtype::i8;
  const bool cast = from_half && job.precision.params != dtype::f16;
  return static_cast<bytes>(compute) + (cast ? 2 : 0);
}

// The inputs of a unit's bitsandbytes 4-bit matmuls, per layer group: the widest input of
// each group (the group's matrices read one tensor).
struct ctx_inputs {
  std::uint64_t qkv = 0, o = 0, mlp = 0, down = 0, head = 0;
};

void note_ctx_input(ctx_inputs& c, bool saved_inputs::*group, std::uint64_t in) {
  std::uint64_t* slot = group == &saved_inputs::qkv    ? &c.qkv
                        : group == &saved_inputs::o    ? &c.o
                        : group == &saved_inputs::mlp  ? &c.mlp
                        : group == &saved_inputs::down ? &c.down
                        : group == &saved_inputs::head ? &c.head
                                                       : nullptr;
  if (slot != nullptr) *slot = std::max(*slot, in);
}

// unit_layout::bnb_ctx_inputs_per_token from each unit's groups. MatMul4Bit keeps its input only
// when it or the weight needs a gradient (any(ctx.needs_input_grad[:2])): a norm output of a
// unit's input that nothing before it trains (the first block's, where the embedding is frozen)
// is not kept; in a parallel block both norms read the unit's input, and where one norm feeds
// attention and MLP (Falcon-7B, Phi) both read the same tensor.
void set_ctx_inputs(layout& out, const std::vector<ctx_inputs>& rows, model::block_form form) {
  const bool parallel = form != model::block_form::sequential;
  const bool shared_norm = form == model::block_form::parallel_shared;
  bool grad_reaches = false;  // an earlier unit trains: its output's gradient is needed
  for (std::size_t i = 0; i < out.units.size(); ++i) {
    auto& ul = out.units[i];
    const auto& c = rows[i];
    const bool trains = !ul.trainable.empty();
    // After the unit's first matrices (and their adapters) the gradient is needed where the
    // unit trains anything; its first norm's output only where an earlier unit trains.
    std::uint64_t values = 0;
    if (grad_reaches || trains) values = c.o + c.down + c.head + (parallel ? 0 : c.mlp);
    if (grad_reaches) values += c.qkv + (parallel && !(shared_norm && c.qkv > 0) ? c.mlp : 0);
    ul.bnb_ctx_inputs_per_token = values * static_cast<bytes>(out.dtypes.compute);
    grad_reaches = grad_reaches || trains;
  }
}

// What make_layout reads from each tensor's name (expert_index, input_group), in the order of
// model.tensors. Every layout of a what-if grid lays out the same model: the answers are kept
// per thread for as long as the names are the same (checked, name by name, on each call).
struct name_facts {
  std::optional<std::uint64_t> expert;
  bool saved_inputs::*group = nullptr;
};

const std::vector<name_facts>& name_facts_of(const model::model_spec& model) {
  thread_local std::vector<std::string> names;
  thread_local std::vector<name_facts> facts;
  const auto& ts = model.tensors;
  const bool same =
      names.size() == ts.size() &&
      std::equal(ts.begin(), ts.end(), names.begin(),
                 [](const model::tensor& t, const std::string& n) { return t.name == n; });
  if (same) return facts;
  names.clear();
  facts.clear();
  for (const auto& t : ts) {
    names.push_back(t.name);
    facts.push_back({expert_index(t.name), input_group(t.name)});
  }
  return facts;
}

layout make_layout(const model::model_spec& model, const job::job_spec& job, const rank_info& r) {
  layout out;
  out.dtypes = make_state_dtypes(job);
  const auto& lora = job.lora;
  // Adapter pairs per tensor (model/modules.hpp); build_program has validated the targets.
  const bool per_target = lora.enabled && lora.uses_targets();
  const auto targets = per_target ? model::lora_targets(model, lora.targets) : model::lora_target_set{};
  VRAMSCOPE_EXPECTS(targets, "lora.targets not validated: " + (targets ? "" : targets.error().message));
  out.units.reserve(model.units.size());
  for (const auto& u : model.units) {
    unit_layout ul;
    ul.name = u.name;
    ul.kind = u.kind;
    if (lora.enabled) {  // nothing trains but what the method adds
      ul.inputs = saved_inputs{false, false, false, false, false, false};
      ul.inputs.norm_weights = lora.method == "ln_tuning";
    }
    out.units.push_back(std::move(ul));
  }
  // A model lists its tensors unit by unit, so the search starts at the last unit found.
  std::size_t cursor = 0;
  auto find_unit = [&](const std::string& name) -> unit_layout* {
    const std::size_t n = out.units.size();
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (cursor + k) % n;
      if (out.units[i].name == name) {
        cursor = i;
        return &out.units[i];
      }
    }
    return nullptr;
  };
  const bool ln_tuning = lora.method == "ln_tuning";
  // Each tensor's unit, found once; room for each unit's tensors at once (every layout of a
  // what-if grid grows these lists).
  std::vector<unit_layout*> unit_of_tensor;
  unit_of_tensor.reserve(model.tensors.size());
  std::vector<std::size_t> per_unit(out.units.size(), 0);
  for (const auto& t : model.tensors) {
    unit_layout* ul = find_unit(t.unit);
    unit_of_tensor.push_back(ul);
    if (ul) ++per_unit[static_cast<std::size_t>(ul - out.units.data())];
  }
  for (std::size_t i = 0; i < out.units.size(); ++i) {
    out.units[i].tensors.reserve(per_unit[i]);
    out.units[i].trainable.reserve(per_unit[i]);
    out.units[i].expert.reserve(per_unit[i]);
    out.units[i].float8.reserve(per_unit[i]);
  }
  std::uint64_t max_out = 0, max_in = 0;
  const bool litgpt = job.training.model_code == job::model_impl::litgpt;
  std::vector<litgpt_qkv> qkv_rows(litgpt ? out.units.size() : 0);
  std::vector<ctx_inputs> ctx_rows(out.units.size());
  const auto& facts = name_facts_of(model);
  const bool torchao_untargeted = torchao_quantises_untargeted(model);
  for (std::size_t ti = 0; ti < model.tensors.size(); ++ti) {
    const auto& t = model.tensors[ti];
    unit_layout* ul = unit_of_tensor[ti];
    if (!ul) continue;
    // A routed expert's tensors split over the experts' own tensor-parallel degree (parallel.etp).
    const auto e = facts[ti].expert;
    const int split = e && r.ep > 1 ? job::expert_tp(job.parallel) : r.tp;
    const std::uint64_t n = tp_split(t, ul->kind, job.parallel, split, model.text.vocab);
    const bool trained_norm = ln_tuning && is_norm(t, ul->kind);
    if (!lora.enabled || trained_norm) {
      // Under expert parallelism a rank holds the routed experts e with e % ep == its place.
      if (e && r.ep > 1 && *e % static_cast<std::uint64_t>(r.ep) != static_cast<std::uint64_t>(r.ep_rank()))
        continue;
      ul->tensors.push_back(n);
      ul->trainable.push_back(n);
      if (ul->expert.size() != ul->trainable.size() - 1)  // a no-op resize costs 36 instructions
        ul->expert.resize(ul->trainable.size() - 1, false);
      ul->expert.push_back(e.has_value());
      count_reader(ul->inputs, t, facts[ti].group, e.has_value());
      // torchtitan's MoE experts are not nn.Linear (torchao leaves them); Megatron-LM's are
      // Transformer Engine grouped linears, which run in float8 like the others.
      const bool f8 = job.precision.float8 != job::float8_recipe::none &&
                      (!e || job.transformer_engine_float8()) && float8_convertible(t, ul->kind);
      if (ul->float8.size() != ul->trainable.size() - 1)
        ul->float8.resize(ul->trainable.size() - 1, false);
      ul->float8.push_back(f8);
      if (f8) {
        const bool row = row_parallel(t.name);
        const auto tp = static_cast<std::uint64_t>(r.tp);
        ul->float8_linears.push_back({row ? ceil_div(t.shape[1], tp) : t.shape[1],
                                      row ? t.shape[0] : ceil_div(t.shape[0], tp), n});
      }
      continue;
    }
    // LoRA: the base tensor is frozen; each target matrix gains A (r x in) and B (out x r),
    // trainable and kept in the master dtype (adapters are upcast to fp32 by default).
    // Adapter pairs on this tensor (two where a tied head and embedding share it).
    const int pairs = per_target ? targets->adapters[static_cast<std::size_t>(&t - model.tensors.data())] : 0;
    const bool target = pairs > 0;
    const auto f = make_frozen(t, ul->kind, n, job, out.dtypes, target, torchao_untargeted);
    // With lora_dropout each adapted module drops its own copy of the input (nn.Dropout, one
    // per module): A keeps that copy instead of the input itself, and the dropout keeps its
    // bool mask for the input's gradient.
    const bool dropped = target && lora.dropout > 0 && applies_lora_dropout(lora.method);
    const auto group = facts[ti].group;
    // LitGPT computes q, k and v with one LoRAQKVLinear: one lora_dropout, one dropped copy.
    litgpt_qkv* fused = litgpt && target && group == &saved_inputs::qkv && t.shape.size() == 2
                            ? &qkv_rows[static_cast<std::size_t>(ul - out.units.data())]
                            : nullptr;
    if (fused) note_litgpt_qkv(*fused, t);
    const bool drop_counted = fused && fused->dropped;
    if (fused && dropped) fused->dropped = true;
    // bitsandbytes' matmuls keep their input whenever it needs a gradient (MatMul4Bit and
    // MatMul8bitLt save A for the backward), frozen weight or not; MatMul4Bit from 0.43.2 keeps
    // none (bitsandbytes 9e753741: ctx.tensors = (None, B), its backward never reads A), which
    // LitGPT's jobs say by their release (0.5.5 on pins bitsandbytes 0.44 and later).
    const bool keeps_a = f.quantised && lora.quantizer == "bitsandbytes" &&
                         !(litgpt && !job.framework.litgpt.empty() &&
                           version_number(job.framework.litgpt) >= version_number("0.5.5") &&
                           *lora.base_quantization != dtype::i8);
    if (group != nullptr && ((target && adapter_saves_input(lora.method) && !dropped) || keeps_a))
      ul->inputs.*group = true;
    if (dropped && !drop_counted) {
      const std::uint64_t in = row_parallel(t.name) ? ceil_div(t.shape[1], static_cast<std::uint64_t>(r.tp)) : t.shape[1];
      const bytes copy = adapter_saves_input(lora.method) ? in * static_cast<bytes>(out.dtypes.compute) : 0;
      ul->adapter_saved_per_token += static_cast<bytes>(pairs) * (copy + in);
    }
    if (keeps_a && *lora.base_quantization != dtype::i8 && group != nullptr) {
      const std::uint64_t in = row_parallel(t.name)
                                   ? ceil_div(t.shape[1], static_cast<std::uint64_t>(r.tp))
                                   : t.shape[1];
      note_ctx_input(ctx_rows[static_cast<std::size_t>(ul - out.units.data())], group, in);
    }
    const bytes per_value = dequantised_bytes(job, out.dtypes.compute);
    if (f.quantised && n * per_value > ul->largest_dequantised) {
      ul->largest_dequantised = n * per_value;
      const bool cast = per_value > static_cast<bytes>(out.dtypes.compute);
      ul->largest_dequantised_uncast = cast ? 2 * n : 0;  // the fp16 copy
    }
    // torch.autocast casts a frozen float matrix for each matmul and autograd keeps the cast
    // for the input gradient (only leaf tensors that require grad are cached instead).
    const bool embedding = ul->kind == model::unit_kind::embedding || ul->kind == model::unit_kind::vision_embedding;
    if (!f.quantised && !embedding && job.precision.autocast && t.shape.size() == 2 &&
        out.dtypes.frozen > out.dtypes.compute)
      ul->autocast_frozen_bytes += n * static_cast<bytes>(out.dtypes.compute);
    ul->frozen.push_back(f);
    for (int pair = 0; pair < pairs; ++pair) {
      const auto tp = static_cast<std::uint64_t>(r.tp);
      const auto a = adapter_for(lora.method, static_cast<std::uint64_t>(lora.rank), t.shape[0],
                                 t.shape[1], in_mlp(t.name));
      for (auto v : a.trainable) {
        ul->tensors.push_back(ceil_div(v, tp));
        ul->trainable.push_back(ceil_div(v, tp));
      }
      if (a.frozen > 0) {
        const int master = size_of(job.precision.master);
        ul->frozen.push_back(float_frozen(ceil_div(a.frozen, tp), master, master));
      }
      ul->adapter_saved_per_token += ceil_div(a.saved_per_token, tp) * static_cast<bytes>(out.dtypes.compute);
      ul->adapter_transient = std::max<bytes>(ul->adapter_transient,
                                              ceil_div(a.transient, tp) * static_cast<bytes>(out.dtypes.compute));
      max_out = std::max(max_out, t.shape[0]);
      max_in = std::max(max_in, t.shape[1]);
    }
  }
  for (std::size_t i = 0; i < qkv_rows.size(); ++i)
    out.units[i].adapter_saved_per_token +=
        litgpt_zero_pad_per_token(qkv_rows[i], r.tp, static_cast<bytes>(out.dtypes.compute));
  set_ctx_inputs(out, ctx_rows, model.text.form);
  add_model_level_adapters(model, job, out, max_out, max_in);
  // FSDP1 with use_orig_params flattens a unit's frozen and trainable parameters into one
  // FlatParameter, which requires grad when any of them does, and in forward the module's
  // weights are views of it: autograd takes the frozen base weights of a unit with adapters for
  // weights that need a gradient and keeps every matmul's and norm's input, as in full
  // fine-tuning (its gradient over the whole FlatParameter is fsdp1.cpp's). Measured on an
  // H100 (bench/data/full-h100.jsonl, fsdp1-lora): planned as frozen, these inputs were missing,
  // 12 % of the allocated peak.
  if (lora.enabled && job.parallel.kind == job::strategy::fsdp1 && job.parallel.use_orig_params) {
    const bool one_unit = job.parallel.wrap == "none";
    const bool any_trains = std::any_of(out.units.begin(), out.units.end(),
                                        [](const unit_layout& ul) { return !ul.trainable.empty(); });
    for (auto& ul : out.units)
      if (!ul.trainable.empty() || (one_unit && any_trains)) ul.inputs = saved_inputs{};
  }
  for (auto& ul : out.units) {
    ul.expert.resize(ul.trainable.size(), false);
    for (auto n : ul.tensors) ul.numel += n;
    for (auto n : ul.trainable) ul.trainable_numel += n;
    for (const auto& f : ul.frozen) {
      ul.frozen_bytes += f.stored;
      ul.frozen_gathered_bytes += f.gathered;
      ul.quant_state_bytes += f.quant_state;
    }
    out.numel += ul.numel;
    out.trainable_numel += ul.trainable_numel;
  }
  if (lora.enabled) out.dtypes.stored = out.dtypes.grad = size_of(job.precision.master);
  return out;
}

namespace {

// The training loop's sizes, which no layout reads, set to fixed values.
job::training_spec layout_training(job::training_spec t) {
  t.micro_batch = 1;
  t.seq_len = 1;
  t.gradient_accumulation = 1;
  t.activation_checkpointing = job::checkpointing::none;
  t.checkpoint_every = 1;
  t.steps = 1;
  return t;
}

// Whether layout_job(job) == key, for a key layout_job made, without copying `job`. Every
// member of job_spec is named (a member added to job_spec stops this compiling until it is
// placed here), and all but those left out of a key (an inline model's keys, provenance and the
// evaluation, which no layout reads) are compared.
bool same_layout_job(const job::job_spec& key, const job::job_spec& job) {
  const auto& [model, model_config, hardware, parallel, precision, optimizer, training, lora, init,
               checkpoint, eval, framework, env, provenance] = job;
  return hardware == key.hardware && parallel == key.parallel && precision == key.precision &&
         optimizer == key.optimizer && layout_training(training) == key.training &&
         lora == key.lora && init == key.init && checkpoint == key.checkpoint &&
         framework == key.framework && model == key.model && env == key.env;
}

}  // namespace

job::job_spec layout_job(const job::job_spec& job) {
  const auto& [model, model_config, hardware, parallel, precision, optimizer, training, lora, init,
               checkpoint, eval, framework, env, provenance] = job;
  job::job_spec k;
  k.model = model;
  k.hardware = hardware;
  k.parallel = parallel;
  k.precision = precision;
  k.optimizer = optimizer;
  k.training = layout_training(training);
  k.lora = lora;
  k.init = init;
  k.checkpoint = checkpoint;
  k.framework = framework;
  k.env = env;
  return k;
}

std::shared_ptr<const layout> shared_layout(const model::model_spec& model,
                                            const job::job_spec& job, const rank_info& r,
                                            const std::shared_ptr<const model::model_spec>& shared) {
  struct kept {
    // The model, held: the shared constant object it came as, else a copy of its own. A held
    // object keeps its address from any other, and only a shared one can be passed again.
    std::shared_ptr<const model::model_spec> model;
    job::job_spec job;
    rank_info rank;
    bool place_read = false;
    std::shared_ptr<const layout> lay;
  };
  // A grid varies the strategy too, and plans ranks 0 and 1 of each row.
  constexpr std::size_t entries = 8;
  thread_local std::vector<kept> cache;
  thread_local std::size_t oldest = 0;
  for (const auto& k : cache)
    if (k.rank.same_coordinates(r) && same_layout_job(k.job, job) &&
        (k.model.get() == &model || *k.model == model)) {
      if (k.place_read && r.place_read != nullptr) *r.place_read = true;
      return k.lay;
    }
  auto key = layout_job(job);
  bool read = false;
  rank_info probe = r;
  probe.place_read = &read;
  auto lay = std::make_shared<const layout>(make_layout(model, key, probe));
  if (read && r.place_read != nullptr) *r.place_read = true;
  probe.place_read = nullptr;
  auto held = shared != nullptr && shared.get() == &model
                  ? shared
                  : std::make_shared<const model::model_spec>(model);
  keep_last(cache, oldest, entries, kept{std::move(held), std::move(key), probe, read, lay});
  return lay;
}

}  // namespace vramscope::schedule
