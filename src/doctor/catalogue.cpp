#include <vramscope/doctor/finding.hpp>

#include <algorithm>
#include <array>

#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {

namespace {

constexpr std::array catalogue{
    rule{"MEM001", "the job does not fit, or only inside the safety margin",
         "a job spec whose plan runs out of memory (error) or fits inside the safety margin "
         "(warning); without one, a log's per-step peaks far above a level allocation",
         &rules::does_not_fit},
    rule{"JAX001", "a runtime reserves its pool up front (JAX: on every visible GPU)",
         "a JAX job, GPUs held at 75 % / 90 % of their memory, or another runtime's up-front pool "
         "(TensorFlow, Theano, the RAPIDS plugin named in the log; PaddlePaddle's older pool) "
         "beside a failure outside it",
         &rules::jax_preallocation},
    rule{"FSDP001", "FSDP1 meta-device init without sync_module_states / device_id",
         "an FSDP1 job with meta-device ranks, or rank 0 peaking apart from the others",
         &rules::fsdp1_meta_init},
    rule{"OPT001", "options that save nothing for this job",
         "a job spec: each memory option re-planned", &rules::options_without_effect},
    rule{"NCCL001", "record_stream keeps collective buffers alive",
         "memory_stats with active peak far above allocated peak, or a plan whose gap goes "
         "without record_stream",
         &rules::record_stream_inflation},
    rule{"GPU001", "GPU 0 carries memory of other ranks",
         "several processes on GPU 0 and one on the others, GPU 0 working while the other GPUs "
         "hold only contexts, contexts counted on every GPU, or a job that touches cuda:0 early",
         &rules::gpu0_crowding},
    rule{"DEV001", "memory outside the framework's pool (context, library workspace)",
         "nvidia-smi used and memory_stats reserved of the same GPU, or a CUDA library's own "
         "allocation failure (CUDNN_STATUS_ALLOC_FAILED, CUBLAS_STATUS_ALLOC_FAILED) with no "
         "allocator's figures",
         &rules::device_above_reserved},
    rule{"FRAG001", "fragmentation: reserved far above allocated",
         "memory_stats or an OOM message with a large reserved-but-unallocated share",
         &rules::fragmentation},
    rule{"OOM001", "out of memory", "an out-of-memory message in a log",
         &rules::out_of_memory_message},
    rule{"OOM002", "out-of-memory message checked against nvidia-smi",
         "a PyTorch out-of-memory message and nvidia-smi output together",
         &rules::oom_against_nvidia_smi},
    rule{"PROC001", "memory held outside this process",
         "an out-of-memory message whose GPU holds memory this process does not (capacity - free - "
         "its own use), or nvidia-smi with processes or memory that belong to no rank",
         &rules::memory_outside_process},
    rule{"VLLM001", "a vLLM engine claims a fixed share of the GPU",
         "vLLM's start-up memory profile in a log (total x gpu_memory_utilization), or its refusal "
         "to start "
         "with less free",
         &rules::vllm_engine_claim},
    rule{"CKPT001", "out of memory while saving a checkpoint",
         "an out-of-memory message whose traceback is in a checkpoint save",
         &rules::checkpoint_save},
    rule{"CKPT002", "out of memory while loading a checkpoint",
         "an out-of-memory message whose traceback is in torch.load or load_state_dict, or memory "
         "figures "
         "the paste labels as taken after a load",
         &rules::checkpoint_resume},
    rule{"EVAL001", "out of memory in evaluation",
         "an out-of-memory message whose traceback is in an evaluation or validation loop or "
         "starts in an evaluation script, a TensorFlow tensor whose batch is a whole evaluation "
         "split, or a message no traceback places (then below the job's size)",
         &rules::evaluation},
    rule{"OPTIM001", "out of memory when the optimizer creates its state",
         "an out-of-memory message whose traceback is in the optimizer's state initialisation",
         &rules::first_optimizer_step},
    rule{"LEAK001", "memory kept from one iteration to the next",
         "the same GPU pasted twice with its memory grown, or an out-of-memory message that no "
         "traceback "
         "places (then below the job's size)",
         &rules::kept_across_iterations},
    rule{"PRED001", "observation disagrees with the prediction",
         "a job spec and observations of the same levels", &rules::prediction_disagrees},
};

// The causes a finding may name (finding::cause_class), as docs/rules.md lists them.
constexpr std::string_view causes[] = {
    "does_not_fit",    "fragmentation",     "other_process",   "gpu0_crowding",
    "jax_preallocation", "record_stream",   "meta_init",       "device_overhead",
    "checkpoint_save", "checkpoint_resume", "eval",            "first_optimizer_step",
    "leak"};


}  // namespace

std::string_view name_of(severity s) {
  switch (s) {
    case severity::info: return "info";
    case severity::warning: return "warning";
    case severity::error: return "error";
  }
  return "info";
}

std::span<const rule> all_rules() { return catalogue; }

std::span<const std::string_view> cause_classes() { return causes; }

std::vector<finding> diagnose(const doctor_input& input) {
  // A job that does not fit: its whole step's need, planned once for every rule's re-plans.
  doctor_input in = input;
  if (!in.need && in.prediction && !in.prediction->fits) in.need = unbounded_need(in);
  std::vector<finding> out;
  for (const auto& r : catalogue)
    for (auto& f : r.check(in)) {
      // A rule's title is the catalogue's; a rule may name its finding more precisely (OOM001
      // says whose out-of-memory error it read).
      if (f.title.empty()) f.title = std::string(r.title);
      out.push_back(std::move(f));
    }
  // The differential: causes by likelihood, then the findings that name no cause.
  std::stable_sort(out.begin(), out.end(), [](const finding& a, const finding& b) {
    const bool a_cause = !a.cause_class.empty(), b_cause = !b.cause_class.empty();
    if (a_cause != b_cause) return a_cause;
    return a.likelihood > b.likelihood;
  });
  return out;
}

}  // namespace vramscope::doctor
