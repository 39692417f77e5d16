#pragma once
// How a training job is run: model, hardware, parallel layout, precision, optimizer, training
// shape, adapters, initialisation, framework and environment. This is the resolved form of the
// YAML job spec (docs/job-spec.md): every field has its default filled in, and validation has
// already checked ranges and combinations.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/dtype.hpp>
#include <vramscope/core/units.hpp>
#include <vramscope/core/version.hpp>

namespace vramscope::job {

enum class strategy { ddp, fsdp1, fsdp2, zero1, zero2, zero3, jax, single, megatron };
// DeepSpeed's ZeRO stages (1 to 3), and 0 for every other strategy.
constexpr int zero_stage(strategy s) {
  return s == strategy::zero3 ? 3 : s == strategy::zero2 ? 2 : s == strategy::zero1 ? 1 : 0;
}
constexpr bool is_zero(strategy s) { return zero_stage(s) > 0; }
constexpr bool is_fsdp(strategy s) { return s == strategy::fsdp1 || s == strategy::fsdp2; }
enum class sharding { full_shard, shard_grad_op, no_shard, hybrid_shard };  // FSDP1
enum class prefetch { pre, post, none };                                    // FSDP1 backward
// adamw_8bit, paged_adamw, paged_adamw_8bit: bitsandbytes AdamW8bit, PagedAdamW(32bit), PagedAdamW8bit
enum class optimizer_kind { adamw, adam, sgd, sgd_momentum, adafactor, adamw_8bit, paged_adamw, paged_adamw_8bit };
// op: per-operator selective (torchtitan); core_attention: Megatron-LM's selective recompute, the
// attention's scores, softmax and dropout recomputed in backward (--recompute-granularity
// selective)
enum class checkpointing { none, full, selective, op, core_attention };
enum class attention_impl { flash, efficient, math, eager };
// Float8 training recipes. Under PyTorch strategies they are torchao's
// (Float8LinearConfig.from_recipe_name; torchtitan's float8.recipe_name): nn.Linear layers run
// their matmuls in float8 with dynamic scales per tensor, or per row ("rowwise_with_gw_hp" keeps
// the weight gradient's matmul in high precision). Under strategy megatron they are Transformer
// Engine's (Megatron-LM's --fp8-format / --fp8-recipe): one scale per tensor (delayed or current
// scaling: tensorwise), per 128-value block (blockwise) or per 32 values (mxfp8).
enum class float8_recipe { none, tensorwise, rowwise, rowwise_with_gw_hp, blockwise, mxfp8 };
// chunked: torchtune's CEWithChunkedOutputLoss (logits returned in training.loss_chunks chunks);
// litgpt: LitGPT's head over 128-token slices with a cross-entropy per slice in the logits' dtype
enum class loss_impl { hf, liger_fused, torchtitan, chunked, litgpt };
// Whose modeling code runs the model: Hugging Face transformers' (the layout the planner's
// activations follow), LitGPT's own GPT class (lit_gpt/model.py and lit_gpt/lora.py of
// October 2023), whose fused qkv, RMSNorm and LoRA layers keep other tensors for backward, or
// torchtune's TransformerDecoder (torchtune/modules/attention.py), whose attention expands
// grouped keys and values to every head before the kernel.
enum class model_impl { hf, litgpt, torchtune };
// Pipeline schedules as torch.distributed.pipelining names them (ScheduleGPipe, Schedule1F1B,
// ScheduleInterleaved1F1B, ScheduleInterleavedZeroBubble, ScheduleZBVZeroBubble,
// ScheduleDualPipeV): which micro-batches' activations a stage holds at once. The last three
// split each backward into an input-gradient and a weight-gradient pass; the last two place
// stages in a V (rank r holds stages r and 2 pp - 1 - r).
enum class pp_schedule {
  gpipe,
  one_f_one_b,
  interleaved_1f1b,
  interleaved_zero_bubble,
  zbv_zero_bubble,
  dualpipev
};
/// Whether schedule `s` runs several virtual stages on each rank (a PipelineScheduleMulti).
inline bool multi_stage(pp_schedule s) {
  return s != pp_schedule::gpipe && s != pp_schedule::one_f_one_b;
}
/// Whether `s` places stages in a V (torchtitan's "v" style, exactly 2 stages per rank).
inline bool v_shaped(pp_schedule s) {
  return s == pp_schedule::zbv_zero_bubble || s == pp_schedule::dualpipev;
}
/// Whether `s` splits backward passes into an input-gradient and a weight-gradient pass.
inline bool splits_backward(pp_schedule s) {
  return s == pp_schedule::interleaved_zero_bubble || v_shaped(s);
}
enum class weight_load { all_ranks, rank0, random, none };  // how weights reach the GPU
enum class state_dict_kind { none, full, sharded };        // checkpoint saving

/// The safety margin every verdict keeps below a GPU's usable memory (hardware.margin): a plan
/// whose busiest GPU keeps less headroom than max(fraction x usable, at_least) is "tight". The
/// model cannot see run-to-run variation (input lengths, allocator rounding that depends on the
/// order of frees, library workspaces chosen at run time), so a plan that fits by a few MiB may
/// still run out of memory. Default: the larger of 5 % and 1 GiB.
struct safety_margin {
  double fraction = 0.05;  // of usable memory
  bytes at_least = 1_GiB;

  friend bool operator==(const safety_margin&, const safety_margin&) = default;
};

struct hardware_spec {
  std::string gpu = "H100-80GB";  // catalog name (see gpu_catalog.hpp)
  bytes capacity = 0;             // total memory of one GPU; from the catalog unless overridden
  bytes driver_reserved = 0;      // of it, what the driver keeps from every process; catalog's
                                  // unless set (hardware.driver_reserved)
  int gpus_per_node = 8;
  int nodes = 1;
  int compute_capability = 0;     // major * 10 + minor (90 = sm_90); from the catalog unless set
  safety_margin margin;           // hardware.margin

  friend bool operator==(const hardware_spec&, const hardware_spec&) = default;
};

/// What processes can use of one GPU: the total less the driver's reservation. It is what
/// cudaMemGetInfo and torch ("total capacity") report as the device's memory.
inline bytes usable_capacity(const hardware_spec& hw) {
  return hw.capacity > hw.driver_reserved ? hw.capacity - hw.driver_reserved : 0;
}

/// The margin in bytes: max(fraction x usable_capacity, at_least), at most usable_capacity.
inline bytes margin_bytes(const hardware_spec& hw) {
  const bytes usable = usable_capacity(hw);
  const auto share = static_cast<bytes>(hw.margin.fraction * static_cast<double>(usable));
  const bytes margin = share > hw.margin.at_least ? share : hw.margin.at_least;
  return margin < usable ? margin : usable;
}

struct parallel_spec {
  strategy kind = strategy::fsdp2;
  int dp_replicate = 1;  // HSDP replicas (FSDP2) / DDP replicas of a sharded group
  int dp_shard = 0;      // 0 = all remaining ranks (world / (tp * dp_replicate))
  int tp = 1;
  bool sequence_parallel = false;
  // Which ends of the model tensor parallelism shards on the vocabulary: the input embedding
  // (RowwiseParallel on it) and the output head (ColwiseParallel). A plan of the blocks only
  // leaves them whole on every TP rank.
  bool tp_embedding = true;
  bool tp_head = true;
  // Whether the loss runs on the head's vocabulary-sharded logits (torch's loss_parallel(),
  // Megatron's vocab-parallel cross-entropy); otherwise the head gathers its output to the
  // whole vocabulary on every TP rank (ColwiseParallel with output_layouts=Replicate()). Unset:
  // true for torchtitan's loss (its default under tp > 1) and Megatron, false for the rest
  // (job_spec::vocab_parallel_loss).
  std::optional<bool> loss_parallel;
  // Pipeline parallelism: `pp` stages (outermost mesh dimension, as torchtitan orders it), the
  // micro-batches of a step (training.gradient_accumulation, each training.micro_batch) run
  // through them on `pp_schedule`; multi-stage schedules give each rank `pp_stages_per_rank`
  // virtual stages (0 = derived: 2 for interleaved_1f1b, interleaved_zero_bubble,
  // zbv_zero_bubble and dualpipev, else 1).
  int pp = 1;
  pp_schedule pp_sched = pp_schedule::one_f_one_b;
  int pp_stages_per_rank = 0;
  // torchtitan's pipeline_parallel_layers_per_stage: the virtual stages sized by layer count,
  // ceil((blocks + 2) / pp_layers_per_stage) of them (the embedding and the output weigh one
  // block each), pp_stages_per_rank = that / pp once the model is known
  // (job::complete_with_model). 0: not given.
  int pp_layers_per_stage = 0;
  // Context parallelism (torch.distributed.tensor.experimental.context_parallel, ring
  // attention): each rank of a `cp` group holds training.seq_len / cp tokens of every sequence;
  // FSDP2 shards parameters over dp_shard x cp ranks, as torchtitan's dp_shard_cp mesh does.
  int cp = 1;
  // Expert parallelism (torchtitan's expert_parallel_degree): the routed experts of each MoE
  // layer are split over `ep` ranks taken from the dp_shard x cp ranks, tokens reach them by
  // all-to-all, and FSDP2 shards each rank's experts over dp_shard x cp / ep ranks.
  int ep = 1;
  // Expert tensor parallelism: the tensor-parallel degree of the routed experts (torchtitan's
  // expert_tensor_parallel_degree, Megatron-LM's --expert-tensor-parallel-size); 0: tp. Below
  // tp, the expert-parallel ranks take tensor-parallel ranks too: ep x etp divides
  // dp_shard x cp x tp (torchtitan's "dp + all tp -> ep" at etp 1, Megatron's parallel folding).
  int etp = 0;
  // FSDP1
  sharding fsdp_sharding = sharding::full_shard;
  prefetch backward_prefetch = prefetch::pre;
  bool forward_prefetch = false;
  bool limit_all_gathers = true;
  bool use_orig_params = true;
  bool sync_module_states = false;
  bool device_id = true;          // FSDP1 device_id given: CPU modules moved to GPU before sharding
  std::string wrap = "block";     // "block" (one unit per transformer block) or "none"
  // FSDP2: modules fully_shard'ed as units of their own besides the blocks, "embedding" and
  // "head" (torchtune's custom_sharded_layers: ['tok_embeddings', 'output']); else they sit in
  // the root unit
  std::vector<std::string> shard_separately;
  // FSDP2
  int reshard_after_forward = 1;  // 1 = true, 0 = false, N > 1 = reshard to groups of N ranks
  // FSDP1 / FSDP2: gradient accumulation inside no_sync() (Lightning no_backward_sync,
  // accelerate's accumulate) or with FSDP2 set_requires_gradient_sync(False): unsharded
  // gradients are kept between micro-batches and reduced at the last one.
  bool no_sync = false;
  // FSDP1 / FSDP2 / ZeRO
  bool cpu_offload = false;        // FSDP params+grads+optimizer state to CPU
  bool async_tp = false;           // torchtitan's enable_async_tensor_parallel: the compiled
                                   // blocks' TP collectives run as symmetric-memory fused ops
  bool float8_all_gather = false;  // FSDP2: float8 linear weights all-gathered in float8
                                   // (torchao enable_fsdp_float8_all_gather, tensorwise only)
  bool offload_optimizer = false;  // ZeRO
  bool offload_param = false;      // ZeRO-3
  // DDP
  // bucket_cap_mb as passed to DistributedDataParallel; unset: not passed, so torch's 25 MiB with
  // a 1 MiB first bucket (a value passed caps the first bucket too).
  std::optional<double> bucket_cap_mb;
  bool gradient_as_bucket_view = false;
  bool static_graph = false;
  // ZeRO (DeepSpeed config names, in elements)
  std::uint64_t reduce_bucket_size = 500'000'000;
  std::uint64_t allgather_bucket_size = 500'000'000;
  std::uint64_t prefetch_bucket_size = 50'000'000;
  std::uint64_t max_live_parameters = 1'000'000'000;
  std::uint64_t sub_group_size = 1'000'000'000;  // ZeRO-3's optimizer steps in sub-groups
  bool contiguous_gradients = true;
  // Megatron-LM: --use-distributed-optimizer shards the fp32 main parameters and the optimizer
  // state over the data-parallel ranks (its gradient buffer stays whole)
  bool distributed_optimizer = false;
  // JAX
  int fsdp_devices = 1;  // size of the FSDP mesh axis (OpenPI's fsdp_devices)

  friend bool operator==(const parallel_spec&, const parallel_spec&) = default;
};

/// The tensor-parallel degree of the routed experts: parallel.etp, or tp where that is 0.
inline int expert_tp(const parallel_spec& p) { return p.etp > 0 ? p.etp : (p.tp > 1 ? p.tp : 1); }

struct precision_spec {
  dtype params = dtype::bf16;  // dtype parameters are computed in (unsharded / autocast dtype)
  dtype master = dtype::f32;   // dtype of the stored trainable weights the optimizer updates
  dtype reduce = dtype::f32;   // gradient reduction dtype
  dtype buffers = dtype::f32;
  bool autocast = false;       // torch.autocast: fp32 weights cast to `params` on the fly
  float8_recipe float8 = float8_recipe::none;  // torchao Float8Linear in place of nn.Linear

  friend bool operator==(const precision_spec&, const precision_spec&) = default;
};

/// True for the bitsandbytes optimizers (adamw_8bit, paged_adamw, paged_adamw_8bit), which
/// decide their state dtypes themselves.
constexpr bool is_bitsandbytes(optimizer_kind kind) {
  return kind == optimizer_kind::adamw_8bit || kind == optimizer_kind::paged_adamw ||
         kind == optimizer_kind::paged_adamw_8bit;
}

struct optimizer_spec {
  optimizer_kind kind = optimizer_kind::adamw;
  dtype state = dtype::f32;  // dtype of moment tensors; resolve_job derives it (bitsandbytes: fp32)
  bool fused = false;        // fused/foreach implementations allocate temporaries differently
  bool foreach_impl = true;
  // torchtune's optimizer_in_bwd: one optimizer per parameter, stepped by a
  // post-accumulate-grad hook that then frees the gradient (torchtune/training/memory.py,
  // register_optim_in_bwd_hooks). single and fsdp2 only, without gradient accumulation.
  bool in_backward = false;

  friend bool operator==(const optimizer_spec&, const optimizer_spec&) = default;
};

struct training_spec {
  std::uint64_t micro_batch = 1;
  std::uint64_t seq_len = 2048;
  int gradient_accumulation = 1;
  checkpointing activation_checkpointing = checkpointing::none;
  int checkpoint_every = 2;  // selective: checkpoint every Nth block
  // full: only the first N blocks of each pipeline stage (virtual stage) are recomputed, the
  // others keep their activations (Megatron-LM's --recompute-method block
  // --recompute-num-layers N, transformer_block.py _checkpointed_forward); 0: every block.
  int checkpoint_blocks = 0;
  attention_impl attention = attention_impl::flash;
  loss_impl loss = loss_impl::hf;
  model_impl model_code = model_impl::hf;  // whose modeling code (docs/schedule.md, "LitGPT")
  int loss_chunks = 8;         // chunked: CEWithChunkedOutputLoss num_output_chunks
  bool liger_kernels = false;  // Liger RMSNorm, SwiGLU, RoPE
  // torch.compile of the model's blocks (torchtitan compile.enable, torchtune compile, HF
  // torch_compile): pointwise chains fuse, so norms and activation functions save only their
  // inputs, as Liger's kernels do (docs/schedule.md, "torch.compile")
  bool compile = false;
  // torch.compile of the loss function (torchtitan's build_cross_entropy_loss when "loss" is
  // among compile.components; torchtune's compile_loss): its upcast and log-softmax fuse, and
  // it keeps its input logits and the rows' log-sum-exp for backward (docs/schedule.md)
  bool compile_loss = false;
  bool padding_mask = false;   // a padding attention mask is passed (no native GQA in SDPA)
  // torchtune's enable_activation_offloading: tensors saved in the model's forward go to
  // pinned host memory (torchtune/training/_activation_offloading.py, OffloadActivations).
  bool activation_offloading = false;
  // Megatron-LM's --moe-expert-capacity-factor: each expert takes at most
  // ceil(tokens x top-k / experts x factor) tokens (moe_utils.get_capacity); unset: dropless.
  // With moe_pad_to_capacity (--moe-pad-expert-input-to-capacity) every expert's input is
  // padded to that capacity (docs/schedule.md, "Expert capacity").
  std::optional<double> moe_capacity_factor;
  bool moe_pad_to_capacity = false;
  int steps = 2;               // training steps simulated
  // Variable-length training (docs/job-spec.md, "Variable lengths"): where each step's sequence
  // length comes from. "fixed": seq_len every step; "uniform": drawn from seq_len_min..seq_len;
  // "buckets": drawn from length_buckets ("LENGTH:WEIGHT"); "histogram": drawn from the
  // length,count rows of length_file (CSV or JSON). Draws are seeded by length_seed, so a job
  // replays the same lengths every time (schedule/lengths.hpp).
  std::string lengths = "fixed";
  std::uint64_t seq_len_min = 0;  // uniform: the shortest length; 0 = not given
  std::vector<std::string> length_buckets;
  std::string length_file;
  int length_seed = 0;

  friend bool operator==(const training_spec&, const training_spec&) = default;
};

struct lora_spec {
  bool enabled = false;
  // The PEFT method (docs/job-spec.md, "lora"): lora, dora, lora_fa, adalora, loha, vera, oft,
  // ia3, prompt_tuning, prefix_tuning, ln_tuning. `rank` is each method's r (AdaLoRA's
  // init_r, OFT's number of blocks).
  std::string method = "lora";
  int virtual_tokens = 20;  // prompt / prefix tuning: num_virtual_tokens

  /// Whether the method puts an adapter on each of `targets` (prompt and prefix tuning add
  /// model-level tensors; LN tuning trains the norms).
  [[nodiscard]] bool uses_targets() const {
    return method != "prompt_tuning" && method != "prefix_tuning" && method != "ln_tuning";
  }
  int rank = 16;
  double alpha = 32;
  double dropout = 0;  // lora_dropout: > 0 keeps a dropped copy of each target's input and its mask
  std::vector<std::string> targets = {"q_proj", "v_proj"};
  std::optional<dtype> base_quantization;  // int8 / nf4 frozen base weights (QLoRA)
  std::string quantizer = "bitsandbytes";  // "bitsandbytes" (transformers / PEFT) or "torchao"
                                           // (torchtune's NF4Tensor)
  bool double_quant = false;               // bnb_4bit_use_double_quant: 8-bit absmax
  // Linear modules left unquantised (transformers' llm_int8_skip_modules; its default skips
  // the output head; Lightning's BitsandbytesPrecision converts every Linear: []).
  std::vector<std::string> quantize_skip = {"lm_head"};
  dtype quant_storage = dtype::u8;         // bnb_4bit_quant_storage: element type of packed
                                           // 4-bit weights (bf16 lets FSDP flatten and shard them)

  friend bool operator==(const lora_spec&, const lora_spec&) = default;
};

struct init_spec {
  bool meta_device = false;                 // non-loading ranks build on the meta device
  weight_load load = weight_load::all_ranks;
  std::string map_location = "cpu";         // torch.load map_location: "cpu", "cuda", "none"
  bool set_device_first = true;             // torch.cuda.set_device(local_rank) before CUDA work
  bytes early_tensors = 0;                  // tensors created on the default GPU before set_device

  friend bool operator==(const init_spec&, const init_spec&) = default;
};

/// Checkpointing outside the training step (docs/schedule.md, "Outside the training step").
struct checkpoint_spec {
  state_dict_kind save = state_dict_kind::none;
  /// FSDP FullStateDictConfig (and get_model_state_dict's StateDictOptions.cpu_offload): each
  /// gathered tensor goes to host memory as it is made, and only rank 0 keeps the state dict.
  /// Defaults are accelerate's and Lightning's (torch's own class defaults to false, false).
  bool offload_to_cpu = true;
  bool rank0_only = true;
  /// Resuming: torch.load of a training checkpoint (weights and optimizer state) after init.
  bool resume = false;
  std::string resume_map_location = "cpu";  // "cpu", "cuda" (the rank's device), "none"
  bool resume_kept = true;  // the loaded dict stays referenced through training

  friend bool operator==(const checkpoint_spec&, const checkpoint_spec&) = default;
};

/// Evaluation after the training steps (docs/schedule.md, "Outside the training step").
struct eval_spec {
  bool enabled = false;
  int micro_batch = 0;          // 0: training.micro_batch
  int steps = 1;                // evaluation batches planned
  bool no_grad = true;          // torch.no_grad() / inference_mode around the forward
  bool accumulate_logits = false;  // predictions gathered and kept on the GPU (HF Trainer)
  int accumulation_steps = 0;   // eval_accumulation_steps: moved to host every N steps (0: never)

  friend bool operator==(const eval_spec&, const eval_spec&) = default;
};

struct framework_spec {
  std::string name = "torch";       // "torch" or "jax"
  std::string version = "2.6";      // torch or jax version
  std::string cuda = "12.4";
  std::string transformers = "4.46";
  std::string jaxlib;               // defaults to `version` for jax
  // LitGPT's version where training.model_code is litgpt: "" is the lit-gpt of October 2023
  // (before its RMSNorm computed in fp32, lit-gpt 6178c7cc); any litgpt release (0.1 on) has it
  std::string litgpt;
  // bitsandbytes' version where a LoRA base is quantised to int8 by it: "" is a current release
  // (see saves_int8_copies)
  std::string bitsandbytes;

  friend bool operator==(const framework_spec&, const framework_spec&) = default;
};

/// Where the values of a job came from. Used only for messages (a validation error points at
/// the YAML line that set the field) and so that resolve_job can re-derive defaults after an
/// override. Not part of the job's meaning: to_yaml / to_json do not write it.
struct job_provenance {
  std::string source;                         // file the job was read from ("" when built in code)
  std::map<std::string, diagnostic> set_at;   // dotted path -> where it was set (message empty)
  std::vector<std::string> derived;           // dotted paths resolve_job filled in

  friend bool operator==(const job_provenance&, const job_provenance&) = default;
};

/// One key of a model given inline rather than by name: `model:` written as a map of Hugging
/// Face config.json keys, or a model an importer built from a framework's arguments (Megatron-LM's
/// --num-layers, --hidden-size, ...). The keys go to model::parse_config_json in this order.
struct model_key {
  model_key() = default;
  model_key(std::string k, std::string j, diagnostic w, std::string why_unknown = {})
      : key(std::move(k)),
        json(std::move(j)),
        where(std::move(w)),
        unknown(std::move(why_unknown)) {}

  std::string key;   // "hidden_size"
  std::string json;  // the value as JSON text: "4096", "\"llama\"", "true", "{\"type\": \"yarn\"}"
  diagnostic where;  // the line that wrote it (message empty; empty source when built in code)
  /// Why an importer could not read the value from its file (json "null"), with what to give:
  /// a Megatron tokenizer whose vocabulary is only in its files. The job keeps every other fact
  /// the file fixes; loading the model for a plan refuses at `where` with this message.
  std::string unknown;

  friend bool operator==(const model_key&, const model_key&) = default;
};

/// A fully resolved job.
struct job_spec {
  /// A preset name or a config.json / checkpoint path; with model_config, the inline model's
  /// name (its "_name_or_path" key, else "inline <model_type> config").
  std::string model = "llama-3.1-8b";
  /// The model's config.json keys when it is given inline; empty when `model` names it.
  std::vector<model_key> model_config;
  hardware_spec hardware;
  parallel_spec parallel;
  precision_spec precision;
  optimizer_spec optimizer;
  training_spec training;
  lora_spec lora;
  init_spec init;
  checkpoint_spec checkpoint;
  eval_spec eval;
  framework_spec framework;
  std::map<std::string, std::string> env;
  job_provenance provenance;

  /// nodes * gpus_per_node (JAX: one process per node sees every GPU of it).
  [[nodiscard]] int world_size() const { return hardware.nodes * hardware.gpus_per_node; }

  /// Whether the loss runs on the head's vocabulary-sharded logits over `tp` ranks (the job's
  /// parallel.tp): tp > 1 with a sharded head, and parallel.loss_parallel, by default on for
  /// torchtitan's loss (enable_loss_parallel = not disable_loss_parallel) and Megatron
  /// (vocab_parallel_cross_entropy).
  [[nodiscard]] bool vocab_parallel_loss(int tp) const {
    if (tp <= 1 || !parallel.tp_head) return false;
    if (parallel.loss_parallel) return *parallel.loss_parallel;
    return training.loss == loss_impl::torchtitan || parallel.kind == strategy::megatron;
  }

  /// Whether float8 training runs through Transformer Engine's modules (Megatron-LM's
  /// --fp8-format builds its linears as TE modules) rather than torchao's Float8Linear.
  [[nodiscard]] bool transformer_engine_float8() const {
    return precision.float8 != float8_recipe::none && parallel.kind == strategy::megatron;
  }

  /// Whether saving a full state dict copies every int8 weight of a LoRA base twice on the GPU:
  /// bitsandbytes 0.38.0 to 0.39.0 (its commits cc608c04 to f734076e, fixed in 0.39.1) made
  /// Linear8bitLt._save_to_state_dict clone the weight and store a row-major copy of it
  /// (undo_layout) whenever the weight is held in the tiled layout that the first forward on a
  /// GPU of compute capability 7.5 or more (igemmlt) converts it to. PEFT's adapter save builds
  /// the whole model's state dict (get_peft_model_state_dict: model.state_dict()), so saving
  /// only the adapter pays it too. Planned where each rank holds the whole base (single, ddp).
  [[nodiscard]] bool saves_int8_copies() const {
    const int bnb = version_number(framework.bitsandbytes);
    return checkpoint.save == state_dict_kind::full && lora.enabled &&
           lora.base_quantization == dtype::i8 && lora.quantizer == "bitsandbytes" &&
           !framework.bitsandbytes.empty() && bnb >= version_number("0.38") &&
           bnb < version_number("0.39.1") && hardware.compute_capability >= 75 &&
           (parallel.kind == strategy::single || parallel.kind == strategy::ddp);
  }

  /// The value of environment variable `key` in `env`, or "" when unset.
  [[nodiscard]] std::string env_value(const std::string& key) const {
    const auto it = env.find(key);
    return it == env.end() ? std::string() : it->second;
  }

  friend bool operator==(const job_spec&, const job_spec&) = default;
};

/// The same job on a GPU without limit: the allocator never runs out and no memory fraction caps
/// it, so its plan shows what the job needs rather than the state at an out-of-memory error (the
/// plan of a job that does not fit ends there). JAX's pool grows on demand instead of being
/// preallocated as a fraction of the GPU. Used by `fit` and `compare` for a row's need and by
/// `explain` to price a fix for a job that does not fit.
inline job_spec with_unlimited_memory(job_spec job) {
  job.hardware.capacity = bytes{1} << 60;  // far above any GPU, far below wrapping in sums
  job.hardware.driver_reserved = 0;
  if (job.parallel.kind == strategy::jax || job.framework.name == "jax")
    job.env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false";
  return job;
}

}  // namespace vramscope::job
