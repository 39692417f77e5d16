#pragma once
// One function per rule; each lives in its own file and is listed in catalogue.cpp.

#include <vramscope/doctor/finding.hpp>

namespace vramscope::doctor::rules {

std::vector<finding> does_not_fit(const doctor_input& in);            // MEM001
std::vector<finding> jax_preallocation(const doctor_input& in);       // JAX001
std::vector<finding> fsdp1_meta_init(const doctor_input& in);         // FSDP001
std::vector<finding> options_without_effect(const doctor_input& in);  // OPT001
std::vector<finding> record_stream_inflation(const doctor_input& in); // NCCL001
std::vector<finding> gpu0_crowding(const doctor_input& in);           // GPU001
std::vector<finding> device_above_reserved(const doctor_input& in);   // DEV001
std::vector<finding> fragmentation(const doctor_input& in);           // FRAG001
std::vector<finding> out_of_memory_message(const doctor_input& in);   // OOM001
std::vector<finding> oom_against_nvidia_smi(const doctor_input& in);  // OOM002
std::vector<finding> prediction_disagrees(const doctor_input& in);    // PRED001
std::vector<finding> memory_outside_process(const doctor_input& in);  // PROC001
std::vector<finding> checkpoint_save(const doctor_input& in);         // CKPT001
std::vector<finding> checkpoint_resume(const doctor_input& in);       // CKPT002
std::vector<finding> evaluation(const doctor_input& in);              // EVAL001
std::vector<finding> first_optimizer_step(const doctor_input& in);    // OPTIM001
std::vector<finding> kept_across_iterations(const doctor_input& in);  // LEAK001
std::vector<finding> vllm_engine_claim(const doctor_input& in);       // VLLM001

}  // namespace vramscope::doctor::rules
