// The notes a plan says once about the memory features a framework brings: the features are
// job fields (docs/job-spec.md), modelled in this module, so their notes are written here, a
// function per framework.
#include <vramscope/schedule/schedule.hpp>

#include <vramscope/core/units.hpp>
#include <vramscope/core/version.hpp>

#include <fmt/format.h>

namespace vramscope::schedule {

namespace {

// torchtune's chunked cross-entropy (activations_torchtune.cpp), optimizer in backward (step.cpp)
// and activation offloading (offload.cpp).
void torchtune_notes(const job::job_spec& job, bytes offloaded, std::vector<std::string>& notes) {
  if (job.training.loss == job::loss_impl::chunked)
    notes.push_back(fmt::format("chunked cross-entropy: the logits come in {} chunks and the loss "
                                "upcasts one chunk at a time to fp32 (torchtune "
                                "CEWithChunkedOutputLoss)", job.training.loss_chunks));
  if (job.optimizer.in_backward)
    notes.push_back("optimizer in backward: each parameter's optimizer steps as soon as its "
                    "gradient is accumulated and frees it, so the gradients never coexist "
                    "(torchtune optimizer_in_bwd)");
  if (job.training.activation_offloading)
    notes.push_back(fmt::format(
        "activation offloading: {} of saved activations per micro-batch go to pinned host memory "
        "(not in the GPU figures); tensors under 1 KiB, the output head's input, the loss's "
        "tensors{} stay on the GPU",
        format_bytes(offloaded),
        version_number(job.framework.version) >= version_number("2.5")
            ? " and the last 5 offloaded tensors (until their copies are done)"
            : ""));
}

}  // namespace

void framework_notes(const job::job_spec& job, bytes offloaded, std::vector<std::string>& notes) {
  torchtune_notes(job, offloaded, notes);
}

}  // namespace vramscope::schedule
