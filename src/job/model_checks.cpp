#include <vramscope/job/model_checks.hpp>

#include <vramscope/model/modules.hpp>

#include "job/validation.hpp"

namespace vramscope::job {

status check_against_model(const job_spec& job, const model::model_spec& model) {
  if (!job.lora.enabled || !job.lora.uses_targets()) return ok();
  if (auto targets = model::lora_targets(model, job.lora.targets); !targets)
    return detail::field_error(job, "lora.targets", targets.error().message);
  return ok();
}

}  // namespace vramscope::job
