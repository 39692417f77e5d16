// JAX001: a JAX process preallocating its pool on every visible GPU, from nvidia-smi alone or
// from a JAX job's plan, each case with its own evidence.
#include <vramscope/core/units.hpp>
#include <vramscope/job/job_spec.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "doctor/planned_job.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

observe::gpu_observation gpu(int index, bytes total, bytes used) {
  observe::gpu_observation g;
  g.index = index;
  g.name = "NVIDIA A100-SXM4-80GB";
  g.total = total;
  g.used = used;
  return g;
}

// OpenPI's pi0 LoRA fine-tuning on 2 x A100 80 GB, one JAX process (examples/cases/1-...).
std::string pi0_job(int gpus, const std::string& env) {
  return "model: pi0\n"
         "hardware: { gpu: A100-80GB, gpus_per_node: " +
         std::to_string(gpus) +
         ", nodes: 1 }\n"
         "parallel: { strategy: jax, fsdp_devices: 1 }\n"
         "precision: { params: bf16, master: fp32, reduce: fp32 }\n"
         "optimizer: adamw\n"
         "training: { micro_batch: 16, seq_len: 816, activation_checkpointing: full }\n"
         "lora: { rank: 16, targets: [q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, "
         "down_proj] }\n"
         "framework: { name: jax, version: \"0.5.3\" }\n"
         "env: { " +
         env + " }\n";
}

TEST(Jax001, GpusHeldAtXlasFractionsWithoutAJob) {
  observe::observation o;
  // 72.5 / 80 = 90.6 % (the 0.9 pool of jaxlib < 0.4.14), 60.5 / 80 = 75.6 % (0.75 since), and
  // a GPU at 50 % that is not named.
  o.gpus = {gpu(0, 80_GiB, 72_GiB + 512_MiB), gpu(1, 80_GiB, 60_GiB + 512_MiB),
            gpu(2, 80_GiB, 40_GiB)};
  doctor_input in;
  in.observed = &o;
  const auto found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.rule, "JAX001");
  EXPECT_EQ(f.level, severity::warning);
  EXPECT_EQ(f.evidence,
            (std::vector<std::string>{
                "GPU 0: 72.50 GiB of 80.00 GiB used (91 %, XLA's 0.90 pool plus a context)",
                "GPU 1: 60.50 GiB of 80.00 GiB used (76 %, XLA's 0.75 pool plus a context)"}));
  EXPECT_EQ(f.fix,
            "CUDA_VISIBLE_DEVICES=0 to use one GPU; XLA_PYTHON_CLIENT_MEM_FRACTION sized to the "
            "real need, or XLA_PYTHON_CLIENT_PREALLOCATE=false to grow on demand");
  EXPECT_FALSE(f.saving);
}

// A pool is a context plus fraction x the memory the client saw: from 256 MiB + f x (total -
// 512 MiB driver reserve) to 1 GiB + f x total, on any GPU size; XLA's 0.9 may also be of the
// memory free after the context (jaxlib < 0.4.1), down to 0.1 x 256 MiB + 0.9 x (total - 512 MiB).
TEST(Jax001, FractionsAreMatchedByThePoolsSizingRule) {
  const auto fires = [](bytes total, bytes used) {
    observe::observation o;
    o.gpus = {gpu(0, total, used)};
    doctor_input in;
    in.observed = &o;
    return !rules::jax_preallocation(in).empty();
  };
  EXPECT_TRUE(fires(80_GiB, 60_GiB));              // 0.75 exactly
  EXPECT_FALSE(fires(80_GiB, 59_GiB));             // below 256 MiB + 0.75 x 79.5 GiB
  EXPECT_TRUE(fires(80_GiB, 61_GiB));              // 1 GiB + 0.75 x 80 GiB
  EXPECT_FALSE(fires(80_GiB, 61_GiB + 1_MiB));     // above it
  EXPECT_TRUE(fires(80_GiB, 72_GiB));              // 0.90 exactly
  EXPECT_FALSE(fires(80_GiB, 71_GiB + 512_MiB));   // below 25.6 MiB + 0.9 x 79.5 GiB (71.57 GiB)
  EXPECT_TRUE(fires(80_GiB, 71_GiB + 600_MiB));    // above it: a 0.9 of the memory free at start
  EXPECT_FALSE(fires(80_GiB, 73_GiB + 1_MiB));     // above 1 GiB + 0.9 x 80 GiB
  // A 16 GB card lands near 78 % (jax#19213: 12,626 of 16,160 MiB), outside a fixed 75-77 %.
  EXPECT_TRUE(fires(16160_MiB, 12626_MiB));
  // 0.75 has only the window of the total (jaxlib >= 0.4.14): 8,135 MiB of 11,019 is below
  // 256 MiB + 0.75 x 10,507 MiB.
  EXPECT_FALSE(fires(11019_MiB, 8135_MiB));
  EXPECT_TRUE(fires(11019_MiB, 8137_MiB));
}

TEST(Jax001, SilentOnATorchJobOrAGpuWithoutItsTotal) {
  observe::observation o;
  o.gpus = {gpu(0, 80_GiB, 72_GiB + 512_MiB)};
  job::job_spec torch_job;  // framework torch, strategy fsdp2
  doctor_input in;
  in.job = &torch_job;
  in.observed = &o;
  EXPECT_TRUE(rules::jax_preallocation(in).empty());

  o.gpus[0].total.reset();
  in.job = nullptr;
  EXPECT_TRUE(rules::jax_preallocation(in).empty());
}

TEST(Jax001, AJaxJobsPlanSizesTheFractionAndPricesIt) {
  const auto job = plan_yaml(pi0_job(2, "XLA_PYTHON_CLIENT_MEM_FRACTION: \"0.9\""));
  ASSERT_TRUE(job);
  const bytes usable = job::usable_capacity(job->job.hardware);
  const bytes working_set = job->prediction.ranks.front().peak.allocated;
  // The working set plus 10 %, rounded up to a hundredth of the GPU.
  const double fraction =
      std::ceil(static_cast<double>(working_set) * 1.1 / static_cast<double>(usable) * 100) / 100;
  EXPECT_EQ(fmt::format("{:.2f}", fraction), "0.28");

  const auto found = rules::jax_preallocation(job->input());
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.level, severity::warning);
  EXPECT_EQ(f.evidence, (std::vector<std::string>{"plan: working set " + format_bytes(working_set) +
                                                  " per GPU inside a 0.90 pool"}));
  EXPECT_EQ(f.fix,
            "XLA_PYTHON_CLIENT_MEM_FRACTION=0.28 (the working set plus 10 %); or "
            "CUDA_VISIBLE_DEVICES=0 to use one GPU and leave the others free");
  // Each GPU holds a context and the pool, floor(fraction x usable): the saving is the
  // difference of the two pools, and the job planned with 0.28 written in agrees.
  const auto pool = [usable](double f) {
    return static_cast<std::int64_t>(std::floor(f * static_cast<double>(usable)));
  };
  EXPECT_EQ(f.saving, pool(0.9) - pool(0.28));
  const auto fixed = plan_yaml(pi0_job(2, "XLA_PYTHON_CLIENT_MEM_FRACTION: \"0.28\""));
  ASSERT_TRUE(fixed);
  EXPECT_EQ(f.saving, job->busiest_device() - fixed->busiest_device());
  EXPECT_EQ(f.saving_basis, "re-planned with env.XLA_PYTHON_CLIENT_MEM_FRACTION=0.28");
}

TEST(Jax001, OneGpuIsNotToldToHideTheOthers) {
  const auto job = plan_yaml(pi0_job(1, "XLA_PYTHON_CLIENT_MEM_FRACTION: \"0.9\""));
  ASSERT_TRUE(job);
  const auto found = rules::jax_preallocation(job->input());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].fix.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << found[0].fix;
}

// The job already as the rule would have it: the pool at the working set plus 10 % on the one
// GPU it needs. Nothing is left to advise.
TEST(Jax001, SilentOnTheFixedJob) {
  const auto job = plan_yaml(pi0_job(2, "XLA_PYTHON_CLIENT_MEM_FRACTION: \"0.28\", "
                                        "CUDA_VISIBLE_DEVICES: \"0\""));
  ASSERT_TRUE(job);
  ASSERT_TRUE(job->prediction.jax_recommended_fraction);
  EXPECT_EQ(fmt::format("{:.2f}", *job->prediction.jax_recommended_fraction), "0.28");
  EXPECT_TRUE(rules::jax_preallocation(job->input()).empty());
  // The fraction alone fixed, two GPUs still visible: only the second advice remains.
  const auto both = plan_yaml(pi0_job(2, "XLA_PYTHON_CLIENT_MEM_FRACTION: \"0.28\""));
  ASSERT_TRUE(both);
  const auto found = rules::jax_preallocation(both->input());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].fix, "CUDA_VISIBLE_DEVICES=0 to use one GPU and leave the others free");
  EXPECT_FALSE(found[0].saving);
}

TEST(Jax001, SilentWhenThePoolIsNotPreallocated) {
  const auto job = plan_yaml(pi0_job(2, "XLA_PYTHON_CLIENT_PREALLOCATE: \"false\""));
  ASSERT_TRUE(job);
  EXPECT_TRUE(rules::jax_preallocation(job->input()).empty());
}

TEST(Jax001, AJaxJobWithoutAPlanGetsTheGeneralFix) {
  auto job = job::parse_job_yaml(pi0_job(2, "XLA_PYTHON_CLIENT_MEM_FRACTION: \"0.9\""), "job.yaml");
  ASSERT_TRUE(job) << job.error().to_string();
  doctor_input in;
  in.job = &*job;
  const auto found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0].evidence.empty());
  EXPECT_TRUE(found[0].fix.starts_with("CUDA_VISIBLE_DEVICES=0 to use one GPU; ")) << found[0].fix;
  EXPECT_FALSE(found[0].saving);
}

}  // namespace
}  // namespace vramscope::doctor

namespace vramscope::doctor {
namespace {

// Four 11439 MiB GPUs each at 11283 MiB: inside the 0.9 window with a 1 GiB context, but with
// less than a context free each is full, as TensorFlow's default pool or any job leaves it.
TEST(Jax001, AFullGpuIsNoMarkOfXlasFraction) {
  observe::observation o;
  for (int i = 0; i < 4; ++i) o.gpus.push_back(gpu(i, 11439_MiB, 11283_MiB));
  doctor_input in;
  in.observed = &o;
  EXPECT_TRUE(rules::jax_preallocation(in).empty());
  // The same GPUs with a context's worth free are read.
  for (auto& g : o.gpus) g.used = 11439_MiB - 300_MiB;
  EXPECT_EQ(rules::jax_preallocation(in).size(), 1u);
}

}  // namespace
}  // namespace vramscope::doctor

namespace vramscope::doctor {
namespace {

observe::oom_report failed_call(std::string raw, std::vector<std::string> context = {}) {
  observe::oom_report r;
  r.kind = observe::oom_kind::cuda;
  r.origin = observe::oom_origin::outside_allocator;
  r.allocator = observe::oom_allocator::cuda;
  r.line = 12;
  r.raw = std::move(raw);
  r.context = std::move(context);
  return r;
}

// Another runtime's up-front pool named in the log (its banner or its own frames) and a failure
// outside that pool: the reservation ranks strong, with the runtime's own fix.
TEST(Jax001, AnotherRuntimesBannerBesideAFailureOutsideItsPool) {
  observe::observation o;
  o.ooms = {failed_call(
      "CUDA error: out of memory",
      {"3: Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 14760 MB "
       "memory) -> physical GPU (device: 0, name: Tesla T4)"})};
  doctor_input in;
  in.observed = &o;
  auto found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "jax_preallocation");
  EXPECT_GE(found[0].likelihood, 0.85);
  EXPECT_NE(found[0].fix.find("TF_FORCE_GPU_ALLOW_GROWTH=true"), std::string::npos) << found[0].fix;

  o.ooms = {
      failed_call("ai.rapids.cudf.CudfException: parallel_for failed: cudaErrorMemoryAllocation: "
                  "out of memory")};
  found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].fix.find("spark.rapids.memory.gpu.allocFraction"), std::string::npos)
      << found[0].fix;

  o.ooms = {failed_call(
      "CUDNN_STATUS_ALLOC_FAILED",
      {"1: Using gpu device 0: GeForce GTX 1080 (CNMeM is enabled with initial size: 95.0% of "
       "memory, cuDNN 5105)"})};
  found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].fix.find("lib.cnmem"), std::string::npos) << found[0].fix;

  // DyNet's pools' cudaMalloc failing: the pools' up-front size, with --dynet-mem as the fix; the
  // same status under another runtime is not DyNet's.
  o.ooms = {failed_call("CUDA failure in cudaMalloc(&ptr, n)")};
  o.ooms[0].runtime = "dynet";
  o.ooms[0].status = "cudaMalloc failed";
  found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "jax_preallocation");
  EXPECT_NE(found[0].fix.find("--dynet-mem"), std::string::npos) << found[0].fix;
  o.ooms[0].runtime = "caffe";
  EXPECT_TRUE(rules::jax_preallocation(in).empty());

  // "Preallocating" alone is not libgpuarray's banner; TensorFlow's own pool refusing is the job
  // not fitting in it, not a reservation beside it.
  o.ooms = {failed_call("CUDA error: out of memory", {"2: Preallocating KV cache blocks"})};
  EXPECT_TRUE(rules::jax_preallocation(in).empty());
  o.ooms = {failed_call("OOM when allocating tensor with shape[64,512,512]",
                        {"3: Created TensorFlow device (/device:GPU:0 with 14760 MB memory)"})};
  o.ooms[0].tensorflow = true;
  EXPECT_TRUE(rules::jax_preallocation(in).empty());
}

observe::oom_report paddle(bytes requested, bytes available, std::string raw) {
  observe::oom_report r;
  r.kind = observe::oom_kind::cuda;
  r.allocator = observe::oom_allocator::paddle;
  r.requested = requested;
  r.free = available;
  r.raw = std::move(raw);
  return r;
}

// PaddlePaddle's older message (no allocated figure) refusing a request larger than what the
// device still had, with more than a context left: the pool taken up front ranks above the job
// not fitting; a device with less than a context left, or the newer wording, is not read so.
TEST(Jax001, PaddlesUpFrontPoolLeavesALargeRequestTheRest) {
  observe::observation o;
  o.ooms = {paddle(2_GiB, 1_GiB + 200_MiB,
                   "Out of memory error on GPU 0. Cannot allocate 2.000000GB memory on GPU 0, "
                   "available memory is only 1.195312GB.")};
  doctor_input in;
  in.observed = &o;
  auto found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_GT(found[0].likelihood, 0.5);
  EXPECT_NE(found[0].fix.find("FLAGS_allocator_strategy=auto_growth"), std::string::npos)
      << found[0].fix;

  o.ooms = {paddle(25_MiB, 15_MiB,
                   "Out of memory error on GPU 0. Cannot allocate 25.002197MB memory on GPU 0, "
                   "available memory is only 15.187500MB.")};
  EXPECT_TRUE(rules::jax_preallocation(in).empty());
  o.ooms = {paddle(2_GiB, 1_GiB + 200_MiB,
                   "Out of memory error on GPU 0. Cannot allocate 2.000000GB memory on GPU 0, "
                   "13.2GB memory has been allocated and available memory is only 1.195312GB.")};
  EXPECT_TRUE(rules::jax_preallocation(in).empty());
}

}  // namespace
}  // namespace vramscope::doctor
