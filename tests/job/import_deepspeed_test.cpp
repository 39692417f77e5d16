#include <vramscope/job/importers.hpp>

#include <gtest/gtest.h>

#include "job/import_test_support.hpp"

namespace vramscope::job {
namespace {

using testing::find_note;
using testing::import_ok;
using testing::sample;

TEST(ImportDeepSpeed, MapsAZero3Config) {
  const imported_job imported = import_ok("deepspeed_zero3.json");
  const job_spec& job = imported.job;
  EXPECT_EQ(imported.format, "deepspeed");
  EXPECT_EQ(job.parallel.kind, strategy::zero3);
  EXPECT_TRUE(job.parallel.offload_optimizer);
  EXPECT_FALSE(job.parallel.offload_param);
  EXPECT_EQ(job.parallel.prefetch_bucket_size, 50'000'000u);
  EXPECT_EQ(job.parallel.max_live_parameters, 1'000'000'000u);
  EXPECT_EQ(job.parallel.reduce_bucket_size, job_spec{}.parallel.reduce_bucket_size);  // "auto"
  EXPECT_TRUE(job.parallel.contiguous_gradients);
  EXPECT_EQ(job.checkpoint.save, state_dict_kind::full);
  EXPECT_EQ(job.training.micro_batch, 2u);
  EXPECT_EQ(job.training.gradient_accumulation, 4);
  EXPECT_EQ(job.world_size(), 8);  // 64 = 2 x 4 x 8
  EXPECT_EQ(job.optimizer.kind, optimizer_kind::adamw);
  EXPECT_EQ(job.precision.params, dtype::bf16);  // "auto", assumed on
  EXPECT_EQ(job.precision.master, dtype::f32);
  EXPECT_EQ(job.precision.reduce, dtype::bf16);
}

TEST(ImportDeepSpeed, ReportsUnknownUnmodelledAndAutoOptions) {
  const imported_job imported = import_ok("deepspeed_zero3.json");
  const std::string file = sample("deepspeed_zero3.json");
  EXPECT_EQ(find_note(imported.notes, "allgather_bucket_sizes"),
            file + ":37:5: unknown option \"zero_optimization.allgather_bucket_sizes\" (did you "
                   "mean \"zero_optimization.allgather_bucket_size\"?); ignored\n"
                   "    \"allgather_bucket_sizes\": 2e8,\n"
                   "    ^ near here");
  EXPECT_EQ(find_note(imported.notes, "overlap_comm"),
            file + ":33:5: \"zero_optimization.overlap_comm\" changes memory but vramscope does "
                   "not model it (overlapped reduction keeps extra gradient buckets); ignored\n"
                   "    \"overlap_comm\": true,\n"
                   "    ^ near here");
  EXPECT_NE(find_note(imported.notes, "\"zero_optimization.reduce_bucket_size\" is \"auto\""), "");
  EXPECT_NE(find_note(imported.notes, "\"bf16.enabled\" is \"auto\""), "");
  EXPECT_NE(find_note(imported.no_effect, "\"optimizer.params.lr\" does not affect"), "");
  EXPECT_NE(find_note(imported.no_effect, "\"steps_per_print\" does not affect"), "");
  // Notes come in the file's order.
  for (std::size_t i = 1; i < imported.notes.size(); ++i) {
    const auto& a = imported.notes[i - 1];
    const auto& b = imported.notes[i];
    if (a.line > 0 && b.line > 0) {
      EXPECT_LE(a.line, b.line) << b.message;
    }
  }
}

TEST(ImportDeepSpeed, StagesAndPrecision) {
  auto stage0 = import_config_text("{\"fp16\": {\"enabled\": true}, \"zero_optimization\": "
                                   "{\"stage\": 0}}", "ds.json");
  ASSERT_TRUE(stage0) << stage0.error().to_string();
  EXPECT_EQ(stage0->job.parallel.kind, strategy::ddp);
  EXPECT_EQ(stage0->job.precision.params, dtype::f16);
  auto fp32 = import_config_text("{\"zero_optimization\": {\"stage\": 2, \"overlap_comm\": false}}",
                                 "ds.json");
  ASSERT_TRUE(fp32);
  EXPECT_EQ(fp32->job.parallel.kind, strategy::zero2);
  EXPECT_EQ(fp32->job.precision.params, dtype::f32);
  EXPECT_NE(find_note(fp32->no_effect, "\"zero_optimization.overlap_comm\" does not affect"), "");
  auto bad = import_config_text("{\n  \"zero_optimization\": {\n    \"stage\": 4\n  }\n}\n", "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string(),
            "ds.json:3:5: zero_optimization.stage: invalid value \"4\" (expected one of: 0, 1, 2, "
            "3)\n"
            "    \"stage\": 4\n"
            "    ^ near here");
}

TEST(ImportDeepSpeed, SyntaxErrorsAreLocated) {
  auto bad = import_config_text("{\n  \"train_batch_size\": 8,\n  \"fp16\": {\"enabled\": tru}\n}\n",
                                "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().line, 3);
  EXPECT_EQ(bad.error().message.rfind("json syntax error: ", 0), 0u) << bad.error().message;
}

TEST(ImportDeepSpeed, RegressionNumberOverflowIsADiagnostic) {
  // nlohmann throws out_of_range, not parse_error, here (found by fuzz_job_yaml).
  auto bad = import_config_text("{\"train_batch_size\": 2e7777777777777777777}", "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string(),
            "ds.json: json error: number overflow parsing '2e7777777777777777777'");
}

TEST(ImportDeepSpeed, InconsistentBatchSizesAreAnError) {
  auto bad = import_config_text("{\"train_batch_size\": 10, \"train_micro_batch_size_per_gpu\": 4}",
                                "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "train_batch_size 10 is not a multiple of "
                                 "train_micro_batch_size_per_gpu 4 x gradient_accumulation_steps 1");
}

}  // namespace
}  // namespace vramscope::job
