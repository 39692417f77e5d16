// Megatron-LM's arguments that the importer's own rows (import_megatron.cpp) do not name, each
// classified by itself: no effect on a training step's GPU memory (why: a comment above each
// list), or not modelled with the reason its note gives. Only the argparse groups whose every
// flag is about logging, restarts or other scripts are classified as a group
// (megatron_quiet_groups). The flags are those of tests/data/options/megatron_options.txt
// (megatron/training/arguments.py at d98e8a64dd and core_r0.11.0, and megatron/arguments.py of
// the releases 2.6, 2.0 and 1.0); a flag of another group without a row here is a failure of the
// option-list test.
#include "import/megatron/megatron_args.hpp"
#include "import/megatron/megatron_arguments.hpp"

#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <utility>

namespace vramscope::job::detail {

namespace {

// Groups whose every flag leaves the step's GPU memory as it is, and why.
constexpr std::pair<std::string_view, std::string_view> quiet_groups[] = {
    {"_add_logging_args", "what is logged and where"},
    {"_add_one_logger_args", "NVIDIA's job telemetry"},
    {"_add_ft_package_args", "the fault-tolerance watchdog"},
    {"_add_inprocess_restart_args", "restarting a failed job in-process"},
    {"_add_msc_args", "the object-storage client for data and checkpoints"},
    {"_add_workload_inspector_server_args", "a profiling server"},
    {"_add_straggler_detector_args", "timing of slow ranks"},
    {"_add_rerun_machine_args", "re-running a step to check its results"},
    {"_add_validation_args", "when to evaluate: a forward pass of the training micro batch"},
    {"_add_config_logger_args", "dumping configs to files"},
    {"_add_autoresume_args", "a cluster's resume signal"},
    // Read only by the scripts the importer refuses (pretrain_vision_*.py, pretrain_ict.py,
    // pretrain_retro.py), never by pretrain_gpt.py.
    {"_add_vision_args", "the vision scripts' options"},
    {"_add_biencoder_args", "the ICT retriever's options"},
    {"_add_retro_args", "RETRO's options"},
};

std::vector<option> build_rows() {
  std::vector<option> out;
  const auto quiet = [&](std::initializer_list<const char*> flags) {
    for (const char* f : flags) out.push_back({f, no_effect()});
  };
  const auto unplanned = [&](std::initializer_list<const char*> flags, const char* reason) {
    for (const char* f : flags) out.push_back({f, not_modelled(reason)});
  };
  const auto read = [&](std::initializer_list<const char*> flags) {
    for (const char* f : flags) out.push_back({f, handled()});
  };

  // --- _add_checkpointing_args: formats, paths and intervals of saves and loads, which happen
  // between steps.
  quiet({"--override-ckpt-iteration", "--dist-ckpt-format", "--dist-ckpt-workers",
         "--ckpt-drop-redundant-extra-state", "--persistent-save-interval",
         "--non-persistent-save-interval", "--non-persistent-ckpt-type",
         "--non-persistent-global-ckpt-dir", "--non-persistent-local-ckpt-dir",
         "--non-persistent-local-ckpt-algo", "--ckpt-step", "--no-initialization",
         "--no-use-tokenizer-model-from-checkpoint-args", "--exit-on-missing-checkpoint",
         "--ckpt-convert-format", "--ckpt-convert-save",
         "--ckpt-convert-update-legacy-dist-opt-format", "--no-ckpt-fully-parallel-save",
         "--dist-ckpt-strictness"});
  unplanned({"--use-mp-args-from-checkpoint-args"},
            "the parallel sizes are copied from the checkpoint in --load over the script's; "
            "planned with the script's");

  // --- _add_data_args. The dataset's files, caches, workers and sampling, and BERT's, T5's and
  // fill-in-the-middle's token transformations, which keep the sequence length.
  quiet({"--phase-transition-iterations", "--data-args-path", "--per-split-data-args-path",
         "--per-dataset-sequences-path", "--dataloader-fast-cache-load",
         "--dataloader-defer-npy-index-mmap", "--sample-rate", "--mask-prob", "--short-seq-prob",
         "--num-dataset-builder-threads", "--object-storage-cache-path",
         "--mid-level-dataset-surplus", "--allow-ambiguous-pad-tokens", "--fim-data", "--fim-rate",
         "--fim-spm-rate", "--fim-split-sample", "--fim-fragment-rate", "--fim-no-prefix",
         "--fim-prefix-token", "--fim-middle-token", "--fim-suffix-token", "--fim-pad-token",
         "--fim-eod-token", "--s3-cache-path",
         // the ICT retriever's length (pretrain_ict.py, refused)
         "--retriever-seq-length"});
  // --seq-length when that is absent (validate_args: args.seq_length = args.encoder_seq_length)
  read({"--encoder-seq-length"});
  unplanned({"--dataloader-inter-document-masking"},
            "attention masks between the documents packed in a sequence");

  // --- _add_distributed_args.
  // Communication order, overlap and process groups: the same buffers.
  quiet({"--no-overlap-p2p-communication", "--overlap-p2p-communication-warmup-flush",
         "--ddp-num-buckets", "--ddp-pad-buckets-for-high-nccl-busbw",
         "--overlap-param-gather-with-optimizer-step", "--no-align-param-gather",
         "--no-align-grad-reduce", "--disable-symmetric-registration", "--create-all-gather-group",
         "--no-gradient-reduce-div-fusion", "--fake-process-group",
         "--no-scatter-gather-tensors-in-pipeline", "--use-ring-exchange-p2p", "--local-rank",
         "--lazy-mpu-init", "--nccl-communicator-config-path", "--use-tp-pp-dp-mapping",
         // replicas of local checkpoints, on other machines' disks
         "--replication", "--replication-jump", "--replication-factor"});
  unplanned({"--ddp-reduce-scatter-with-fp32-accumulation",
             "--gtp-remat-reduce-scatter-with-fp32-accumulation",
             "--ddp-param-name-patterns-for-fp32-local-accumulation"},
            "fp32 copies of gradients for their reduction");
  unplanned(
      {"--megatron-fsdp-version", "--no-use-layer-wise-param-layout",
       "--outer-dp-sharding-strategy", "--enable-full-sharding-in-hsdp",
       "--torch-fsdp2-no-reshard-after-forward", "--keep-fp8-transpose-cache",
       "--gtp-remat-nccl-ub", "--gtp-expert-remat-nccl-ub", "--suggested-communication-unit-size"},
      "Megatron's FSDP; strategy megatron plans its DDP with the distributed optimizer");
  unplanned({"--num-distributed-optimizer-instances"},
            "the distributed optimizer sharded within each of several data-parallel groups, "
            "not over the whole data-parallel size");
  unplanned({"--encoder-tensor-model-parallel-size", "--encoder-pipeline-model-parallel-size",
             "--pipeline-model-parallel-split-rank"},
            "an encoder's own parallel sizes (encoder-decoder models)");
  unplanned({"--microbatch-group-size-per-virtual-pipeline-stage"},
            "how many micro-batches the interleaved schedule keeps in flight");
  unplanned({"--wgrad-deferral-limit"},
            "the output layer's inputs kept for its deferred weight gradients");
  unplanned({"--hierarchical-context-parallel-sizes"},
            "context-parallel communication in levels (a2a+p2p buffers)");

  // --- _add_experimental_args.
  quiet({"--enable-experimental"});  // a switch other flags check; nothing by itself
  unplanned({"--spec"}, "which spec builds the GPT layers: fused or separate norms and linears");
  read({"--yaml-cfg"});  // refused at its line (import_megatron.cpp)
  unplanned({"--megatron-fsdp-main-params-dtype", "--megatron-fsdp-main-grads-dtype",
             "--megatron-fsdp-enable-fine-grained-param-gather"},
            "Megatron's FSDP; strategy megatron plans its DDP with the distributed optimizer");
  unplanned({"--hybrid-attention-ratio", "--hybrid-mlp-ratio"}, "Mamba hybrid layers");
  unplanned({"--linear-attention-freq"}, "linear-attention layers");

  // --- _add_heterogeneous_args, _add_kitchen_quantization_arguments.
  unplanned({"--heterogeneous-layers-config-path", "--heterogeneous-layers-config-encoded-json"},
            "layers of different shapes, from a config");
  unplanned({"--kitchen-config-file", "--kitchen-recipe-number"}, "quantized training recipes");

  // --- _add_initialization_args: which random weights, not how many.
  quiet({"--data-parallel-random-init"});

  // --- _add_learning_rate_args: the schedule.
  quiet({"--warmup", "--lr-wsd-decay-style", "--lr-wsd-decay-samples", "--lr-wsd-decay-iters",
         "--override-opt_param-scheduler", "--use-checkpoint-opt_param-scheduler"});
  // training.py: forward_only under torch.no_grad(), and the distributed optimizer turned off.
  unplanned({"--freeze-all-layers"}, "forward passes only: no gradients and no optimizer step");

  // --- _add_logits_distillation_args. Saving the step's own logits writes them to disk; the
  // loader's threads and prefetch are on the host.
  quiet({"--logits-save-top-k", "--logits-save-top-p", "--logits-save-top-p-min-k",
         "--logits-save-dir", "--logits-save-dtype", "--logits-load-decode-threads",
         "--logits-load-prefetch-factor", "--logits-load-msc-prefetch-depth",
         "--logits-load-kd-loss-alpha", "--logits-load-ignore-errors"});
  unplanned({"--logits-load-dir"}, "a teacher's top-k logits loaded for distillation");

  // --- _add_mixed_precision_args.
  quiet({"--apply-query-key-layer-scaling"});  // a scale on the scores (softmax in fp32)
  unplanned({"--fp16-lm-cross-entropy", "--output-logit-dtype"}, "the logits' dtype in the loss");
  unplanned({"--reuse-grad-buf-for-mxfp8-param-ag"}, "MXFP8 parameter gathers");
  unplanned({"--mamba-training-ssm-states-dtype"}, "Mamba hybrid layers");
  unplanned({"--fp32-residual-connection"}, "the residual stream kept in fp32");

  // --- _add_mla_args: RoPE constants and inference caches.
  quiet({"--rotary-scaling-factor", "--mscale", "--mscale-all-dim", "--cache-mla-latents",
         "--mla-down-proj-fusion"});

  // --- _add_moe_args. Routing arithmetic on a tokens x experts score matrix, and the grouped
  // GEMM's implementation: the experts' weights and tokens are the same.
  quiet({"--moe-router-score-function", "--moe-router-pre-softmax", "--moe-router-num-groups",
         "--moe-router-group-topk", "--moe-router-topk-scaling-factor",
         "--moe-router-enable-expert-bias", "--moe-router-bias-update-rate",
         "--moe-use-legacy-grouped-gemm", "--moe-input-jitter-eps", "--moe-per-layer-logging"});
  unplanned({"--moe-use-upcycling", "--moe-upcycling-granularity"},
            "a dense checkpoint converted into an MoE model");
  unplanned({"--moe-layer-recompute"}, "recomputation of the MoE layers");
  unplanned({"--moe-extended-tp"}, "expert tensor parallelism other than the tensor-parallel size");

  // --- _add_network_size_args.
  // --num-layers when that is absent (validate_args: args.num_layers = args.encoder_num_layers),
  // and the rotary embedding by its older name (args.position_embedding_type = 'rope').
  read({"--encoder-num-layers", "--use-rotary-position-embeddings"});
  unplanned({"--decoder-num-layers"}, "an encoder-decoder model's decoder");
  // Sliding windows compute fewer scores of the same tensors; RoPE and YaRN constants; T5's
  // and BERT's options (pretrain_t5.py and pretrain_bert.py are refused); older GeLU and ONNX
  // workarounds; the residual's order.
  quiet({"--window-size", "--window-attn-skip-freq", "--yarn-original-max-position-embeddings",
         "--yarn-beta-fast", "--yarn-beta-slow", "--yarn-correction-range-round-to-int",
         "--no-yarn-correction-range-round-to-int", "--relative-attention-num-buckets",
         "--relative-attention-max-distance", "--no-rope-freq", "--rotary-interleaved",
         "--openai-gelu", "--onnx-safe", "--bert-no-binary-head",
         "--apply-residual-connection-post-layernorm"});
  unplanned({"--no-position-embedding"},
            "no learned position table (releases before its deprecation); planned from "
            "--position-embedding-type");

  // --- _add_regularization_args: the optimizers' hyper-parameters. Muon keeps one momentum
  // buffer whatever they are; Lion's betas, the weight decay's targets.
  quiet({"--apply-wd-to-qk-layernorm", "--muon-momentum", "--muon-no-split-qkv", "--muon-nesterov",
         "--muon-scale-mode", "--muon-fp32-matmul-prec", "--muon-coefficient-type",
         "--muon-num-ns-steps", "--muon-use-syrk", "--muon-extra-scale-factor", "--lion-beta1",
         "--lion-beta2", "--no-weight-decay-cond-type"});
  unplanned({"--muon-tp-mode"}, "Muon's orthogonalisation on gathered tensor-parallel matrices");
  unplanned({"--muon-scalar-optimizer"}, "the optimizer of the parameters Muon does not step");

  // --- _add_rl_args. Every flag but the switch only sets up the reinforcement-learning loop,
  // which --perform-rl-step turns on (and which is noted there).
  unplanned({"--perform-rl-step"},
            "the reinforcement-learning loop: rollouts by an inference engine beside the "
            "trained model");
  quiet({"--rl-prompts-per-eval",
         "--grpo-prompts-per-step",
         "--grpo-group-size",
         "--rl-generation-lag",
         "--rl-max-inflight-requests",
         "--rl-submission-granularity",
         "--rl-consumption-granularity",
         "--rl-durable-rollout-bank",
         "--rl-rollout-bank-dir",
         "--rl-rollout-bank-max-bytes",
         "--grpo-iterations",
         "--grpo-clamp-eps-lower",
         "--grpo-clamp-eps-upper",
         "--grpo-kl-beta",
         "--grpo-entropy-term-weight",
         "--grpo-filter-groups-with-same-reward",
         "--langrl-env-config",
         "--rl-default-temperature",
         "--rl-default-top-p",
         "--rl-default-top-k",
         "--rl-offload-optimizer-during-inference",
         "--rl-kv-cache-management-mode",
         "--rl-persist-cuda-graphs",
         "--rl-partial-rollouts",
         "--rl-inference-logprobs-is-correction",
         "--rl-importance-sampling-truncation-coef",
         "--rl-use-sequence-packing",
         "--rl-sequence-packing-max-sequences-per-bin",
         "--rl-sequence-packing-algo",
         "--rl-training-cuda-graphs",
         "--rl-inference-tensor-model-parallel-size",
         "--rl-inference-pipeline-model-parallel-size",
         "--rl-inference-expert-model-parallel-size",
         "--rl-inference-expert-tensor-model-parallel-size",
         "--rl-inference-model-unified-memory-level",
         "--rl-offload-inference-model-weights-when-idle",
         "--refit-method",
         "--rl-verify-model-weights-swap",
         "--rl-skip-bos-token",
         "--rl-profile",
         "--rl-profile-dir",
         "--rl-inference-parsers"});

  // --- _add_sft_args: the dataset's prompt format; sequences keep --seq-length.
  quiet({"--sft", "--sft-tokenizer-prompt-format"});

  // --- _add_tokenizer_args.
  unplanned({"--vocab-extra-ids", "--tiktoken-num-special-tokens", "--tiktoken-special-tokens"},
            "tokens added to the tokenizer's vocabulary, beyond the vocabulary planned");

  // --- _add_training_args.
  // Checks, dumps and CPU-GPU synchronisation; a deprecated flag Megatron ignores; the garbage
  // collector on the host; the global batch shrunk when ranks drop out (the micro batch stays).
  quiet({"--check-for-large-grads", "--result-rejected-tracker-filename", "--rope-type",
         "--dump-param-to-param-group-map", "--decrease-batch-size-if-needed",
         "--check-for-spiky-loss", "--memory-snapshot-path",
         "--check-weight-hash-across-dp-replicas-interval", "--train-sync-interval",
         "--no-async-tensor-model-parallel-allreduce", "--no-manual-gc-eval"});
  // Settings of --tp-comm-overlap's userbuffers (noted at that flag) and of
  // --optimizer-cpu-offload's host copies (noted at that flag): nothing without them.
  quiet({"--tp-comm-overlap-cfg", "--disable-tp-comm-overlap-ag", "--disable-tp-comm-overlap-rs",
         "--tp-comm-overlap-rs-dgrad", "--disable-tp-comm-bulk-dgrad",
         "--disable-tp-comm-bulk-wgrad", "--tp-comm-bootstrap-backend",
         "--disable-tp-comm-split-ag", "--disable-tp-comm-split-rs",
         "--use-torch-optimizer-for-cpu-offload", "--overlap-cpu-optimizer-d2h-h2d",
         "--no-pin-cpu-grads", "--no-pin-cpu-params"});
  unplanned({"--optimizer-cuda-graph"}, "a CUDA graph of the optimizer step (its private pool)");
  unplanned({"--no-clone-scatter-output-in-embedding"},
            "the embedding's scattered output kept alive instead of cloned");

  // --- _add_transformer_engine_args.
  quiet({"--te-rng-tracker", "--inference-rng-tracker"});  // random-number state
  unplanned({"--fp4-param-gather", "--no-fp8-wgrad", "--te-precision-config-file"},
            "Transformer Engine FP8/FP4 training: float8 weight copies and activations");

  // --- _add_inference_args. CUDA graphs serve training too (TransformerConfig's
  // enable_cuda_graph, cuda_graph_scope); the rest configures the inference engine, which a
  // training step does not build.
  unplanned({"--enable-cuda-graph", "--cuda-graph-scope", "--cuda-graph-modules"},
            "CUDA graphs of the layers (their private memory pools)");
  quiet({"--inference-batch-times-seqlen-threshold",
         "--max-tokens-to-oom",
         "--output-bert-embeddings",
         "--bert-embedder-type",
         "--use-legacy-static-engine",
         "--inference-max-requests",
         "--inference-max-seq-length",
         "--inference-dynamic-batching",
         "--inference-dynamic-batching-buffer-size-gb",
         "--inference-dynamic-batching-paused-buffer-size-gb",
         "--inference-dynamic-batching-mamba-memory-ratio",
         "--inference-dynamic-batching-block-size",
         "--inference-dynamic-batching-max-requests",
         "--inference-dynamic-batching-max-tokens",
         "--inference-dynamic-batching-num-cuda-graphs",
         "--inference-dynamic-batching-track-paused-request-events",
         "--inference-dynamic-batching-track-generated-token-events",
         "--decode-only-cuda-graphs",
         "--inference-cuda-graph-all-prefills",
         "--inference-cuda-graph-max-tokens",
         "--inference-dynamic-batching-unified-memory-level",
         "--enable-chunked-prefill",
         "--num-speculative-tokens",
         "--inference-dynamic-batching-prefix-caching",
         "--inference-dynamic-batching-prefix-caching-eviction-policy",
         "--inference-dynamic-batching-prefix-caching-coordinator-policy",
         "--inference-dynamic-batching-prefix-caching-routing-alpha",
         "--inference-dynamic-batching-prefix-caching-mamba-gb",
         "--inference-dynamic-batching-cuda-graph-mixed-prefill-count",
         "--inference-dynamic-batching-cuda-graph-sizing-distribution",
         "--inference-dynamic-batching-sampling-backend",
         "--use-same-sampling-seed-across-dp-ranks",
         "--inference-dynamic-batching-async-sched-mode",
         "--inference-dynamic-batching-logprobs-mode",
         "--inference-logging-step-interval",
         "--inference-text-gen-server-logging",
         "--inference-wandb-logging",
         "--mamba-inference-conv-states-dtype",
         "--mamba-inference-ssm-states-dtype",
         "--inference-use-synchronous-zmq-collectives",
         "--inference-disable-ep-consensus",
         "--inference-shards",
         "--flash-decode"});

  // --- Megatron-LM 2.0 and 1.0 (2020-2021): softmax kernel fusions of the same tensors, the
  // fp16 loss scale's floor, REALM's retrieval options (the ICT script is refused); and the
  // gradients' all-reduce in fp32.
  quiet({"--no-scaled-masked-softmax-fusion", "--scaled-upper-triang-masked-softmax-fusion",
         "--min-scale", "--report-topk-accuracies", "--faiss-use-gpu"});
  unplanned({"--fp32-allreduce"}, "fp32 copies of gradients for their reduction");

  // --- Flags Megatron-LM generates from its config dataclasses (ArgumentGroupFactory,
  // tests/data/options/megatron_config_options.txt), those no row above names.
  // CheckpointConfig, DistributedInitConfig, FaultInjectorConfig, LoggerConfig, ProfilingConfig,
  // SchedulerConfig and ValidationConfig: saves and loads between steps, process-group setup,
  // fault injection for tests, logging, profiler switches, the learning-rate schedule, and when
  // to evaluate; TrainingConfig's exit signals, garbage collection and skipped iterations.
  quiet(
     {"--save-params-interval", "--save-activations-interval", "--save-tokens-per-expert-interval",
      "--save-wgrads-interval", "--save-dgrads-interval", "--save-retain-interval",
      "--load-main-params-from-ckpt", "--disable-use-tokenizer-model-from-checkpoint-args",
      "--async-strategy", "--use-persistent-ckpt-worker", "--async-ckpt-cpu-priority",
      "--async-ckpt-io-priority", "--async-ckpt-use-cpu-shm",
      "--ckpt-fully-parallel-load-exchange-algo", "--ckpt-fully-parallel-load-per-rank-objects",
      "--ckpt-fully-parallel-save-process-group", "--ckpt-fully-parallel-load-process-group",
      "--ckpt-pg-tensors-cache-path", "--ckpt-pg-tensors-cache-create",
      "--no-ckpt-load-validate-sharding-integrity",
      "--disable-ckpt-load-validate-sharding-integrity", "--no-strict-fsdp-dtensor-load",
      "--disable-strict-fsdp-dtensor-load", "--dist-ckpt-save-pre-mcore-014",
      "--dist-ckpt-optim-fully-reshardable", "--distrib-optim-fully-reshardable-mem-efficient",
      "--no-save-tokenizer-assets", "--disable-save-tokenizer-assets", "--verify-integrity",
      "--disable-align-grad-reduce", "--disable-gloo-process-groups", "--use-sharp",
      "--sharp-enabled-group", "--high-priority-stream-groups",
      "--distributed-timeout-seconds-after-init", "--flight-recorder-dump-path",
      "--flight-recorder-trace-buffer-size", "--no-flight-recorder-dump-on-timeout",
      "--disable-flight-recorder-dump-on-timeout", "--flight-recorder-include-stack-trace",
      "--no-flight-recorder-include-only-active", "--disable-flight-recorder-include-only-active",
      "--no-flight-recorder-extra-dump-on-exec", "--disable-flight-recorder-extra-dump-on-exec",
      "--disable-jit-fuser", "--fault-injector-ranks", "--fault-injector-num-ranks",
      "--fault-injector-fault-types", "--fault-injector-fault-probabilities",
      "--fault-injector-fault-delay", "--fault-injector-delay-start-iteration",
      "--fault-injector-mtti-seconds", "--fault-injector-offset-seconds", "--fault-injector-seed",
      "--disable-log-loss-scale-to-tensorboard", "--log-memory-interval",
      "--log-device-memory-used", "--log-max-attention-logit", "--wandb-entity", "--log-energy",
      "--moe-routing-trace-path", "--moe-routing-trace-max-training-iters",
      "--moe-routing-trace-capture-logits", "--moe-routing-trace-capture-hidden-states",
      "--moe-routing-trace-dump-weights", "--pytorch-profiler-collect-shapes",
      "--pytorch-profiler-collect-callstack", "--pytorch-profiler-collect-chakra",
      "--record-shapes", "--nvtx-ranges", "--override-opt-param-scheduler",
      "--use-checkpoint-opt-param-scheduler", "--start-eval-at-iter", "--eval-global-batch-size",
      "--eval-micro-batch-size", "--test-mode", "--full-validation", "--multiple-validation-sets",
      "--validation-set-names", "--gpu-sniff-test-interval", "--exit-signal",
      "--exit-signal-handler-for-dataloader", "--exit-signal-handler-for-training",
      "--disable-manual-gc-eval", "--iterations-to-skip"});
  // TokenizerConfig: the tokenizer's files, special tokens and ids, which leave its vocabulary
  // size to --vocab-size / the files; --padded-vocab-size is read by read_vocab (its rows).
  // --null-tokenizer-vocab-includes-eod (pull/4740): d98e8a64dd's NullTokenizer already counts its
  // end-of-document token within --vocab-size (eod_id = vocab_size - 1), as the plan reads it.
  quiet(
     {"--tokenizer-metadata", "--tokenizer-special-tokens", "--tokenizer-sentencepiece-legacy",
      "--no-tokenizer-sentencepiece-ignore-extra-whitespaces",
      "--disable-tokenizer-sentencepiece-ignore-extra-whitespaces", "--tokenizer-hf-no-use-fast",
      "--tokenizer-hf-no-include-special-tokens", "--null-tokenizer-eod-id",
      "--null-tokenizer-pad-id", "--chat-template", "--use-gigatoken",
      "--null-tokenizer-vocab-includes-eod"});
  read({"--padded-vocab-size"});
  unplanned({"--no-pad-vocab-size", "--disable-pad-vocab-size"},
            "the vocabulary left unpadded when --padded-vocab-size is not given; planned padded");
  // TransformerConfig: communication backends and streams, kernel and fusion choices that keep
  // the same tensors, initialisation and loss scales, inference-only switches, and numerics
  // (batch-invariant and reduced-precision matmuls) that change no tensor's size.
  quiet(
     {"--pipeline-model-parallel-comm-backend", "--no-tp-comm-bulk-wgrad",
      "--no-tp-comm-bulk-dgrad", "--no-tp-comm-overlap-ag", "--no-tp-comm-overlap-rs",
      "--no-tp-comm-split-ag", "--no-tp-comm-split-rs", "--cross-entropy-fusion-impl",
      "--mtp-loss-scaling-factor", "--flash-attention-version", "--qk-clip", "--qk-clip-alpha",
      "--qk-clip-threshold", "--dsa-indexer-loss-coeff", "--dsa-kernel-backend",
      "--embedding-init-method-std", "--use-mup", "--mup-width-mult", "--mup-base-hidden-size",
      "--mup-embedding-mult", "--mup-output-mult", "--mup-base-head-dim", "--mup-attn-scale-power",
      "--disable-bf16-reduced-precision-matmul", "--use-fused-weighted-squared-relu",
      "--fused-residual-rmsnorm", "--use-transformer-engine-op-fuser", "--fp8-quantizer-factory",
      "--kitchen-attention-backend", "--fp4-quantizer-factory", "--high-priority-a2a-comm-stream",
      "--moe-flex-dispatcher-backend", "--moe-permute-fusion-into-hybridep",
      "--moe-pad-experts-for-cuda-graph-inference", "--moe-router-fusion",
      "--moe-flex-dispatcher-num-sms", "--moe-deepep-num-sms", "--moe-hybridep-num-sms",
      "--moe-hybridep-num-blocks-permute", "--moe-hybridep-num-blocks-unpermute",
      "--moe-hybridep-num-sms-preprocessing", "--moe-ncclep-zero-copy",
      "--inference-cuda-graph-scope", "--mhc-init-gating-factor",
      "--disable-clone-scatter-output-in-embedding", "--batch-invariant-mode",
      "--batch-invariant-backend", "--use-te-activation-func", "--symmetric-ar-type",
      "--nccl-all-reduce-for-prefill", "--inference-fuse-tp-communication",
      "--inference-disable-triton-nvls-kernels", "--inference-grouped-gemm-backend",
      "--inference-moe-disable-fused-quant-kernels", "--inference-moe-token-dispatcher-type",
      "--gdp-cutedsl-kernel"});
  unplanned(
     {"--tensor-parallel-num-weight-shards", "--expert-tensor-parallel-num-weight-shards",
      "--overlap-moe-expert-parallel-comm", "--delay-wgrad-compute",
      "--overlap-dispatch-backward-with-experts-wgrad", "--ep-overlap-early-attn-memory-release",
      "--cpu-offloading-retain-pinned-cpu-buffers", "--gtp-remat-opt-in-modules",
      "--mhc-recompute-layer-num", "--disable-mamba-mem-eff-path",
      "--gdp-num-chunk-states-to-recompute", "--mlp-chunks-for-prefill",
      "--mlp-chunks-for-training", "--fine-grained-activation-offloading", "--offload-modules",
      "--min-offloaded-tensor-size", "--delay-offload-until-cuda-graph",
      "--delta-offload-bytes-across-pp-ranks", "--activation-offload-fraction",
      "--moe-paged-stash", "--moe-paged-stash-page-size",
      "--moe-paged-stash-buffer-size-factor-cuda", "--moe-paged-stash-buffer-size-factor-cpu",
      "--fine-grained-offloading-max-inflight-offloads"},
      "activation offloading, chunking, weight sharding or overlap that changes which tensors "
      "are resident; planned as without it");
  unplanned({"--cuda-graph-warmup-steps", "--external-cuda-graph", "--cuda-graph-impl"},
            "CUDA graphs keep a private memory pool");
  unplanned(
     {"--max-seqlen-per-dp-cp-rank", "--hybrid-context-parallel", "--mtp-standalone",
      "--mtp-use-repeated-layer", "--mtp-detach-heads", "--mtp-hsm",
      "--mtp-hybrid-override-pattern", "--softmax-type", "--glu-linear-offset",
      "--activation-func-clamp-value", "--qk-l2-norm", "--attention-output-gate",
      "--experimental-attention-variant", "--dsa-indexer-n-heads", "--dsa-indexer-head-dim",
      "--dsa-indexer-topk", "--dsa-indexer-topk-freq", "--dsa-indexer-skip-topk-offset",
      "--dsa-indexer-use-sparse-loss", "--dsa-indexer-rope-interleaved",
      "--no-dsa-indexer-rotate-activation", "--disable-dsa-indexer-rotate-activation",
      "--no-dsa-indexer-scoring-relu", "--disable-dsa-indexer-scoring-relu",
      "--dsa-indexer-k-norm-epsilon", "--dsa-indexer-k-norm-fp32", "--linear-conv-kernel-dim",
      "--linear-key-head-dim", "--linear-value-head-dim", "--linear-num-key-heads",
      "--linear-num-value-heads", "--disable-fp8-wgrad", "--fp8-output-proj",
      "--num-layers-at-start-in-bf16", "--num-layers-at-end-in-bf16", "--use-kitchen-attention",
      "--use-grouped-gemm-for-shared-expert", "--moe-shared-expert-glu-interleave-size",
      "--moe-enable-routing-replay", "--moe-router-padding-for-quantization",
      "--moe-router-padding-for-fp8", "--moe-router-quantile-balancing-ema",
      "--moe-router-force-load-balancing", "--moe-router-force-biased",
      "--use-grouped-gemm-for-dense-mlp", "--moe-use-grouped-tensor",
      "--moe-single-grouped-weight", "--moe-single-grouped-bias", "--moe-enable-deepep",
      "--moe-hybridep-pad-uneven-dispatch-inputs", "--moe-apply-probs-on-input",
      "--moe-latent-size", "--moe-dispatch-fwd-dtype", "--moe-combine-bwd-dtype",
      "--moe-mlp-glu-interleave-size", "--moe-expert-rank-capacity-factor",
      "--enable-mhc-connections", "--mhc-num-residual-streams", "--mhc-sinkhorn-iterations",
      "--mrope-section", "--is-hybrid-model", "--mamba-state-dim", "--mamba-head-dim",
      "--mamba-num-groups", "--mamba-num-heads", "--gdp-num-householder"},
      "a layer, attention, MoE or precision variant of TransformerConfig that vramscope does not "
      "model; planned as the standard GPT layer");

  // --- Forks users launch (tests/data/options/megatron_forks_options.txt). The ABCI
  // Megatron-DeepSpeed fork: --use-mpi reads the ranks from Open MPI's environment; wandb names.
  // HetPipe: the task's and the profiler log's names, a SQuAD cache folder.
  quiet({"--use-mpi", "--wandb-id", "--wandb-name", "--task_name", "--log_dir", "--cache-dir"});
  unplanned({"--use-relu"}, "ReLU in place of GeLU keeps another activation");
  unplanned({"--partition_vector", "--hetpipe", "--sprecompute"},
            "HetPipe's own split of the layers over uneven pipeline stages and its recompute; "
            "planned as --num-layers / pp on every stage");
  // Holmes: --hetero-mode is refused by the importer (one job over several GPU types); the rest
  // of its group is read only under it.
  read({"--hetero-mode"});
  quiet({"--hetero-device-types", "--hetero-current-device-type", "--hetero-micro-batch-sizes",
         "--hetero-pipeline-stages", "--use-hetnet"});
  // MegatronApp (MegaFBD): --forward-backward-disaggregating is refused by the importer (forward
  // and backward passes on separate ranks); --ignore-forward-tensor-parallel acts only with it.
  read({"--forward-backward-disaggregating"});
  quiet({"--ignore-forward-tensor-parallel"});
  // MS-AMP's patch: --msamp is refused by the importer (FP8 weights, an 8-bit optimizer state).
  read({"--msamp"});
  // Pai-Megatron-Patch's "patch" group (megatron_patch/arguments.py): data, evaluation,
  // generation and multimodal data options; then what changes the model or its memory, which
  // the patch's own model builders read.
  quiet({"--max-padding-length",
         "--dataset",
         "--epochs",
         "--keep-last",
         "--data-dir",
         "--train-data",
         "--valid-data",
         "--patch-tokenizer-type",
         "--transformer-timers",
         "--text-generate-input-file",
         "--text-generate-output-file",
         "--text-generate-gt-file",
         "--time",
         "--eval-dev",
         "--input-len",
         "--generation-length",
         "--top-p",
         "--top-k",
         "--out-seq-length",
         "--temperature",
         "--repetition_penalty",
         "--repetition-penalty",
         "--mm-use-im-start-end",
         "--mm-use-im-patch-token",
         "--image-folder",
         "--image-aspect-ratio",
         "--version",
         "--cvcuda-image-processing",
         "--task-list",
         "--verbosity",
         "--adaptive-seq-len",
         "--eval-fp32",
         "--num-fewshot",
         "--convert-checkpoint-from-megatron-to-transformers",
         "--train-mode",
         "--dataset-config",
         "--prompt-path",
         "--allow-missing-vision-projection-checkpoint",
         "--dataloader-save",
         "--online-evaluation-config",
         "--tokenizer-prompt-format",
         "--special-tokens",
         "--image-tag-type",
         "--use-llama2-rotary-position-embeddings",
         "--use-mistral-rotary-position-embeddings",
         "--rotary-scale-factor",
         "--use-te"});
  unplanned({"--n-head-kv", "--transformer-type", "--intermediate-size", "--use-alibi-mask",
             "--use-normhead", "--attention-head-type", "--position-encoding-2d", "--z-loss-weight",
             "--sliding-window", "--disable-bias-linear-fc", "--disable-bias-attn-fc",
             "--source-seq-len", "--target-seq-len"},
            "a model option of Pai-Megatron-Patch's own model builders; planned as the "
            "arguments Megatron-LM reads describe the model");
  unplanned({"--extra-vocab-size"},
            "tokens Pai-Megatron-Patch adds to the tokenizer's vocabulary, beyond the "
            "vocabulary planned");
  unplanned({"--disable-parallel-output"},
            "the output layer's logits gathered over the tensor-parallel ranks, a vocabulary-"
            "wide buffer not planned");
  unplanned(
      {"--expert-tensor-parallelism", "--moe", "--moe-topk", "--router-type",
       "--moe-input-feature-slicing", "--shared-moe-ffn-hidden-size", "--enable-shared-expert",
       "--num-shared-experts", "--qk-nope-head-dim", "--qk-rope-head-dim"},
      "Pai-Megatron-Patch's own mixture-of-experts or attention layout; planned as the "
      "Megatron-LM options describe the layers");
  unplanned({"--optimizer-offload-policy", "--optimizer-offload-auto-threshold",
             "--optimizer-offload-chunk-size"},
            "Pai-Megatron-Patch's optimizer offload (HybridAdam), whose states in host memory "
            "are not planned");
  unplanned({"--tune-mm-mlp-adapter", "--freeze-clip-vision-tower", "--freeze-llm", "--freeze-LM",
             "--freeze-ViT", "--mm-vision-select-layer", "--vision-tower", "--mm-projector-type",
             "--image-size", "--spatial-merge-size", "--temporal-patch-size", "--patch-size",
             "--num-frames", "--use-tiling", "--max-num-tiles", "--use-thumbnail",
             "--vision-model-type", "--disable-vision-class-token", "--dataloader-seq-length"},
            "a vision-language model's vision side (its encoder, projection, image tiles and "
            "which parts train), which the language model's plan does not hold");

  // The groups classified whole.
  for (const auto& argument : megatron_arguments) {
    const auto& group = argument.second;
    if (std::any_of(std::begin(quiet_groups), std::end(quiet_groups),
                    [&](const auto& g) { return g.first == group; }))
      out.push_back({std::string(argument.first), no_effect()});
  }
  return out;
}

}  // namespace

const std::vector<option>& megatron_argument_rows() {
  static const std::vector<option> rows = build_rows();
  return rows;
}

bool megatron_quiet_group(std::string_view group) {
  return std::any_of(std::begin(quiet_groups), std::end(quiet_groups),
                     [&](const auto& g) { return g.first == group; });
}

}  // namespace vramscope::job::detail
