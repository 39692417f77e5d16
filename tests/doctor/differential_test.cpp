// The differential: one out-of-memory message read for every cause at once (doctor/oom_facts),
// and the findings ranked so that the cause its figures support best comes first.
#include <vramscope/doctor/finding.hpp>
#include <vramscope/observe/oom_report.hpp>
#include <vramscope/observe/read_observation.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "doctor/likelihood.hpp"
#include "doctor/oom_facts.hpp"

namespace vramscope::doctor {
namespace {

observe::observation observed(const std::string& log) {
  observe::observation o;
  vramscope::warnings w;
  o.ooms = observe::find_oom_reports(log, "train.log", w);
  return o;
}

std::vector<finding> diagnose_log(const std::string& log) {
  const auto o = observed(log);
  doctor_input in;
  in.observed = &o;
  return diagnose(in);
}

std::string first_cause(const std::string& log) {
  const auto findings = diagnose_log(log);
  return findings.empty() ? "" : findings.front().cause_class;
}

const std::string current = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
                            "total capacity of 79.15 GiB of which 1.00 GiB is free. ";

TEST(OomFacts, MemoryOutsideThisProcessIsCapacityLessFreeLessItsOwnUse) {
  const auto o = observed(current + "Process 4242 has 50.00 GiB memory in use. Including non-PyTorch memory, this "
                                    "process has 28.15 GiB memory in use. Of the allocated memory 27.00 GiB is "
                                    "allocated by PyTorch, and 512.00 MiB is reserved by PyTorch but unallocated.");
  ASSERT_EQ(o.ooms.size(), 1u);
  const auto f = facts_of(o.ooms[0]);
  EXPECT_FALSE(f.own_estimated);
  EXPECT_EQ(*f.outside, static_cast<bytes>(79.15 * GiB) - 1_GiB - static_cast<bytes>(28.15 * GiB));
  ASSERT_EQ(f.others.size(), 1u);
  EXPECT_EQ(f.others[0].pid, 4242);
  EXPECT_TRUE(f.outside_covers());
  EXPECT_FALSE(f.cache_covers());
}

// Inside a container the process is listed under its host pid and never as "this process".
TEST(OomFacts, AProcessListedUnderItsHostPidIsThisOne) {
  const auto o = observed(current + "Process 77 has 70.00 GiB memory in use. Of the allocated memory 68.00 GiB is "
                                    "allocated by PyTorch, and 1.50 GiB is reserved by PyTorch but unallocated.");
  const auto f = facts_of(o.ooms[0]);
  EXPECT_EQ(f.own, 70_GiB);
  EXPECT_TRUE(f.others.empty());
}

// torch < 2.1 gives no process figures: the process is its cache plus at most a context.
TEST(OomFacts, AnOlderMessageEstimatesThisProcessAsItsCachePlusAContext) {
  const auto o = observed("RuntimeError: CUDA out of memory. Tried to allocate 216.00 MiB (GPU 0; 7.92 GiB total "
                          "capacity; 69.17 MiB already allocated; 24.56 MiB free; 86.00 MiB reserved in total by "
                          "PyTorch)");
  const auto f = facts_of(o.ooms[0]);
  EXPECT_TRUE(f.own_estimated);
  EXPECT_GT(*f.outside, 6_GiB);
  EXPECT_EQ(first_cause("RuntimeError: CUDA out of memory. Tried to allocate 216.00 MiB (GPU 0; 7.92 GiB total "
                        "capacity; 69.17 MiB already allocated; 24.56 MiB free; 86.00 MiB reserved in total by "
                        "PyTorch)"),
            "other_process");
}

TEST(OomFacts, TheInnermostFrameThatNamesAPhasePlacesTheFailure) {
  const auto phase_of = [](const std::string& traceback) {
    const auto o = observed(traceback + "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; "
                                        "15.78 GiB total capacity; 14.45 GiB already allocated; 3.75 MiB free; "
                                        "14.63 GiB reserved in total by PyTorch)\n");
    return facts_of(o.ooms.at(0)).phase;
  };
  EXPECT_EQ(phase_of("  File \"train.py\", line 9, in main\n  File \"train.py\", line 40, in validate\n"
                     "    out = model(x)\n  File \"torch/nn/modules/module.py\", line 1, in _call_impl\n"),
            oom_phase::eval);
  EXPECT_EQ(phase_of("  File \"trainer.py\", line 2, in train\n  File \"trainer.py\", line 3, in _save_checkpoint\n"),
            oom_phase::checkpoint_save);
  EXPECT_EQ(phase_of("  File \"train.py\", line 2, in main\n    ckpt = torch.load(path)\n"),
            oom_phase::checkpoint_resume);
  EXPECT_EQ(phase_of("  File \"torch/optim/adamw.py\", line 2, in _init_group\n"), oom_phase::optimizer_state_init);
  // The step's own frames name no phase, and autograd's save_for_backward is not a save.
  EXPECT_EQ(phase_of("  File \"train.py\", line 2, in train_step\n  File \"f.py\", line 3, in save_for_backward\n"),
            oom_phase::unknown);
}

// A traceback that starts in an evaluation or inference script (`evaluate.py` at `<module>`)
// places the failure there, unless a frame below it trains or the traceback runs backward.
TEST(OomFacts, AnEvaluationScriptPlacesAForwardThatNoFrameTrains) {
  const auto facts_after = [](const std::string& traceback) {
    const auto o = observed(traceback +
                            "RuntimeError: CUDA out of memory. Tried to allocate 32.00 MiB (GPU 0; "
                            "8.00 GiB total capacity; 5.75 GiB already allocated; 17.18 MiB free; "
                            "351.95 MiB cached)\n");
    return facts_of(o.ooms.at(0));
  };
  const std::string forward =
      "  File \"networks/pspnet.py\", line 59, in forward\n"
      "    return torch.cat(features, dim=1)\n";
  for (const char* script : {"E:/repo/evaluate.py", "tools/test.py", "demo.py", "predict_images.py",
                             "C:\\repo\\inference.py", "val.py"}) {
    const auto f =
        facts_after(fmt::format("Traceback (most recent call last):\n  File \"{}\", line 94, in "
                                "<module>\n    logit = net(data)\n{}",
                                script, forward));
    EXPECT_EQ(f.phase, oom_phase::eval) << script;
    EXPECT_EQ(f.placed_by, phase_source::script) << script;
  }
  // The training script, a test script that trains, and one whose traceback runs backward.
  EXPECT_EQ(facts_after("  File \"train.py\", line 94, in <module>\n" + forward).phase,
            oom_phase::unknown);
  EXPECT_EQ(facts_after("  File \"value_net.py\", line 9, in <module>\n" + forward).phase,
            oom_phase::unknown);
  EXPECT_EQ(facts_after("  File \"test.py\", line 94, in <module>\n  File \"test.py\", line 40, in "
                        "train_one_epoch\n" +
                        forward)
                .phase,
            oom_phase::unknown);
  EXPECT_EQ(facts_after("  File \"test.py\", line 94, in <module>\n    loss.backward()\n").phase,
            oom_phase::unknown);
  // A frame that names the phase is stronger than the script's name.
  const auto framed = facts_after(
      "  File \"eval.py\", line 3, in <module>\n  File \"eval.py\", line 9, in "
      "evaluate\n" +
      forward);
  EXPECT_EQ(framed.phase, oom_phase::eval);
  EXPECT_EQ(framed.placed_by, phase_source::frame);
}

// A console script (pip's entry-point wrapper, a file without .py at `<module>`) hands over to the
// function its package names: that frame's file is the script the user ran. A command line
// pasted above the traceback names it too. Both under the same guard as the script's name.
TEST(OomFacts, AConsoleScriptsEntryFileOrAPastedCommandPlacesIt) {
  const auto facts_after = [](const std::string& before) {
    const auto o = observed(before +
                            "RuntimeError: CUDA out of memory. Tried to allocate 5.71 GiB (GPU 0; "
                            "14.76 GiB total capacity; 9.12 GiB already allocated; 4.33 GiB free; "
                            "9.15 GiB reserved in total by PyTorch)\n");
    return facts_of(o.ooms.at(0));
  };
  const std::string wrapped =
      "Traceback (most recent call last):\n"
      "  File \"/home/u/.local/bin/tool\", line 8, in <module>\n"
      "    sys.exit(main())\n"
      "  File \"/site-packages/tool/{}.py\", line 120, in main\n"
      "  File \"/site-packages/tool/apply.py\", line 147, in apply_model\n"
      "    out = model(x)\n";
  for (const char* entry : {"separate", "predict", "inference"}) {
    const auto f = facts_after(fmt::format(fmt::runtime(wrapped), entry));
    EXPECT_EQ(f.phase, oom_phase::eval) << entry;
    EXPECT_EQ(f.placed_by, phase_source::script) << entry;
  }
  EXPECT_EQ(facts_after(fmt::format(fmt::runtime(wrapped), "cli")).phase, oom_phase::unknown);
  // A training frame below the entry wins.
  EXPECT_EQ(facts_after(fmt::format(fmt::runtime(wrapped), "predict") +
                        "  File \"/site-packages/tool/loop.py\", line 3, in train_epoch\n")
                .phase,
            oom_phase::unknown);
  const std::string frames =
      "Traceback (most recent call last):\n  File \"m.py\", line 9, in forward\n";
  for (const char* command :
       {"$ python tools/test.py cfg.py ckpt.pth", "python3 -m pkg.infer --input a.wav",
        "torchrun --nproc_per_node 2 eval.py --bs 8",
        "python -m torch.distributed.run --nproc_per_node 2 predict.py"}) {
    const auto f = facts_after(std::string(command) + "\n" + frames);
    EXPECT_EQ(f.phase, oom_phase::eval) << command;
    EXPECT_EQ(f.placed_by, phase_source::script) << command;
  }
  for (const char* command :
       {"$ python train.py --do_eval", "python -m torch.distributed.run train.py",
        "python3 main.py --mode test"})
    EXPECT_EQ(facts_after(std::string(command) + "\n" + frames).phase, oom_phase::unknown)
        << command;
  // The traceback's own script outranks the command pasted beside it.
  EXPECT_EQ(
      facts_after(
          "$ python eval.py\nTraceback (most recent call last):\n  File \"main.py\", line 3, in "
          "<module>\n  File \"m.py\", line 9, in forward\n")
          .phase,
      oom_phase::unknown);
  // The command of an evaluation script whose traceback runs backward is not the phase.
  EXPECT_EQ(facts_after("$ python eval.py\n" + frames + "    loss.backward()\n").phase,
            oom_phase::unknown);
}

// A frame whose file lies in the program's evaluation code (an `evaluation/` package, an
// evaluator module) places the failure in evaluation, unless a frame below it trains or the
// traceback runs backward; a frame that names the phase is stronger.
TEST(OomFacts, AFrameInTheProgramsEvaluationCodePlacesIt) {
  const auto facts_after = [](const std::string& traceback) {
    const auto o = observed(traceback +
                            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.22 GiB.\n"
                            "GPU 0 has a total capacity of 23.56 GiB of which 1.61 GiB is free.\n");
    return facts_of(o.ooms.at(0));
  };
  const std::string inner = "File \"rfdetr/util/box_ops.py\", line 44, in masks_to_flat\n";
  for (const char* file : {"rfdetr/evaluation/matching.py", "detectron2/evaluation/evaluator.py",
                           "repo\\eval\\metrics.py", "src/evaluator.py", "tools/eval_utils.py"}) {
    const auto f = facts_after(fmt::format("File \"{}\", line 90, in _match_single_class\n{}", file, inner));
    EXPECT_EQ(f.phase, oom_phase::eval) << file;
    EXPECT_EQ(f.placed_by, phase_source::module) << file;
  }
  for (const char* file : {"models/medieval_net.py", "retrieval/metrics.py", "site-packages/torch/nn/functional.py"})
    EXPECT_EQ(facts_after(fmt::format("File \"{}\", line 90, in forward\n", file)).phase, oom_phase::unknown)
        << file;
  // Below a training frame, or with a backward, the evaluation package is not the phase.
  EXPECT_EQ(facts_after("File \"x/evaluation/loss.py\", line 9, in loss_fn\nFile \"x/engine.py\", line 3, in "
                        "train_one_epoch\n")
                .phase,
            oom_phase::unknown);
  EXPECT_EQ(facts_after("File \"x/evaluation/loss.py\", line 9, in loss_fn\n    loss.backward()\n").phase,
            oom_phase::unknown);
  const auto framed =
      facts_after("File \"x/evaluation/loop.py\", line 3, in run_validation\nFile \"x/m.py\", line 9, in forward\n");
  EXPECT_EQ(framed.placed_by, phase_source::frame);
}

// A frame in an inference library's pipelines (diffusers', transformers') places the failure in
// inference, below no training frame; the libraries' models are not the phase.
TEST(OomFacts, AnInferencePipelinesFramePlacesIt) {
  const auto facts_after = [](const std::string& traceback) {
    const auto o =
        observed("Traceback (most recent call last):\n" + traceback +
                 "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.22 GiB.\n"
                 "GPU 0 has a total capacity of 23.56 GiB of which 1.61 GiB is free.\n");
    return facts_of(o.ooms.at(0));
  };
  const std::string inner =
      "  File \"/sp/diffusers/models/autoencoders/vae.py\", line 44, in forward\n";
  for (const char* file : {"/sp/diffusers/pipelines/stable_diffusion/pipeline_stable_diffusion.py",
                           "C:\\sp\\transformers\\pipelines\\text_generation.py"}) {
    const auto f = facts_after(fmt::format("  File \"{}\", line 90, in __call__\n{}", file, inner));
    EXPECT_EQ(f.phase, oom_phase::eval) << file;
    EXPECT_EQ(f.placed_by, phase_source::module) << file;
  }
  EXPECT_EQ(facts_after(inner).phase, oom_phase::unknown);
  // Its autoencoder decoding latents (a pipeline's last step), not encoding them (training's).
  const auto decode = facts_after(
      "  File \"/sp/diffusers/models/autoencoders/autoencoder_kl.py\", line 9, in decode\n" +
      inner);
  EXPECT_EQ(decode.phase, oom_phase::eval);
  EXPECT_EQ(decode.placed_by, phase_source::module);
  EXPECT_EQ(
      facts_after(
          "  File \"/sp/diffusers/models/autoencoders/autoencoder_kl.py\", line 9, in encode\n" +
          inner)
          .phase,
      oom_phase::unknown);
  EXPECT_EQ(facts_after("  File \"/repo/pipelines/run.py\", line 9, in __call__\n" + inner).phase,
            oom_phase::unknown);
  // A training loop that runs the pipeline (a validation image each epoch) fails in it; a
  // pipeline whose traceback runs backward does not.
  EXPECT_EQ(facts_after("  File \"/repo/train.py\", line 9, in train_loop\n  File "
                        "\"/sp/diffusers/pipelines/p.py\", line 90, in __call__\n" +
                        inner)
                .phase,
            oom_phase::eval);
  EXPECT_EQ(facts_after("  File \"/sp/diffusers/pipelines/p.py\", line 90, in __call__\n" + inner +
                        "    loss.backward()\n")
                .phase,
            oom_phase::unknown);
}

TEST(Differential, AnEvaluationScriptPutsEvaluationFirstBelowAFrame) {
  const std::string message =
      "RuntimeError: CUDA out of memory. Tried to allocate 32.00 MiB (GPU 0; 8.00 GiB "
      "total capacity; 5.75 GiB already allocated; 17.18 MiB free; 351.95 MiB cached)\n";
  const auto script = diagnose_log(
      "  File \"evaluate.py\", line 94, in <module>\n    logit = net(data)\n" + message);
  ASSERT_GE(script.size(), 2u);
  EXPECT_EQ(script[0].rule, "EVAL001");
  EXPECT_EQ(script[0].likelihood, likelihood::strong);
  EXPECT_FALSE(script[0].against.empty());
  EXPECT_EQ(script[1].cause_class, "does_not_fit");
  const auto frame = diagnose_log("  File \"evaluate.py\", line 94, in evaluate\n" + message);
  ASSERT_FALSE(frame.empty());
  EXPECT_EQ(frame[0].rule, "EVAL001");
  EXPECT_EQ(frame[0].likelihood, likelihood::decisive);
}

// TensorFlow names the tensor it failed to allocate: a batch of a whole evaluation split at
// rank 3 or more is an evaluation fed in one batch; a tall 2-D tensor is an embedding table or
// its optimizer slot, and a training-sized batch is the step first, with an evaluation that
// nothing places (one keeping every batch's outputs) only below it.
TEST(Differential, ATensorFlowBatchOfAWholeSplitIsEvaluationFirst) {
  const auto whole = diagnose_log(
      "ResourceExhaustedError: OOM when allocating tensor with shape[10000,32,28,28]\n");
  ASSERT_GE(whole.size(), 2u);
  EXPECT_EQ(whole[0].rule, "EVAL001");
  EXPECT_NE(whole[0].fix.find("batch"), std::string::npos);
  EXPECT_EQ(whole[1].cause_class, "does_not_fit");
  EXPECT_LT(whole[1].likelihood, whole[0].likelihood);
  const auto o = observed(
      "OOM when allocating tensor with shape[10000,32,28,28] and type float on "
      "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n");
  EXPECT_EQ(facts_of(o.ooms.at(0)).tensor_shape, (std::vector<std::int64_t>{10000, 32, 28, 28}));
  const auto spaced = observed(
      "OOM when allocating tensor with shape [1 160 192 224 48] and type float on "
      "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n");
  EXPECT_EQ(facts_of(spaced.ooms.at(0)).tensor_shape,
            (std::vector<std::int64_t>{1, 160, 192, 224, 48}));
  for (const char* shape : {"shape[64,32,28,28]", "shape [563354,256]", "shape[9999,100,3072]"}) {
    const auto step = diagnose_log(
        fmt::format("ResourceExhaustedError: OOM when allocating tensor with {} and type "
                    "float\n",
                    shape));
    ASSERT_FALSE(step.empty()) << shape;
    EXPECT_EQ(step[0].cause_class, "does_not_fit") << shape;
    // Evaluation stays in the differential only as the reading nothing places, below the step.
    for (const auto& f : step)
      if (f.rule == "EVAL001") {
        EXPECT_LT(f.likelihood, likelihood::weak) << shape;
        EXPECT_LT(f.likelihood, step[0].likelihood) << shape;
        ASSERT_FALSE(f.against.empty()) << shape;
        EXPECT_NE(f.against[0].find("no traceback frame places it"), std::string::npos) << shape;
      }
  }
}

// The differential over one message: which cause its figures support best.
TEST(Differential, ACacheThatCouldServeTheRequestTwiceIsFragmentationFirst) {
  EXPECT_EQ(first_cause("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.51 GiB (GPU 0; "
                        "15.78 GiB total capacity; 6.25 GiB already allocated; 283.44 MiB free; 13.91 GiB reserved "
                        "in total by PyTorch)"),
            "fragmentation");
}

TEST(Differential, AFullGpuWithASmallCacheIsTheJobNotTheAllocator) {
  // 180 MiB cached would serve the 20 MiB request, but the process's tensors fill the GPU.
  EXPECT_EQ(first_cause("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total "
                        "capacity; 14.45 GiB already allocated; 3.75 MiB free; 14.63 GiB reserved in total by "
                        "PyTorch)"),
            "does_not_fit");
}

TEST(Differential, ATracebackInEvaluationPutsEvaluationFirst) {
  const auto findings = diagnose_log("  File \"train.py\", line 40, in evaluate\n"
                                     "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 "
                                     "GiB total capacity; 14.45 GiB already allocated; 3.75 MiB free; 14.63 GiB "
                                     "reserved in total by PyTorch)");
  ASSERT_GE(findings.size(), 2u);
  EXPECT_EQ(findings[0].rule, "EVAL001");
  EXPECT_EQ(findings[1].cause_class, "does_not_fit");
  EXPECT_NE(findings[0].fix.find("no_grad"), std::string::npos);
}

TEST(Differential, ContextSizedProcessesOnGpuZeroAreOtherRanks) {
  const auto findings = diagnose_log(current + "Process 11 has 414.00 MiB memory in use. Process 12 has 414.00 MiB "
                                               "memory in use. Including non-PyTorch memory, this process has "
                                               "77.30 GiB memory in use. Of the allocated memory 76.00 GiB is "
                                               "allocated by PyTorch, and 400.00 MiB is reserved by PyTorch but "
                                               "unallocated.");
  ASSERT_FALSE(findings.empty());
  std::vector<std::string> order;
  for (const auto& f : findings) order.push_back(f.cause_class);
  const auto crowding = std::find(order.begin(), order.end(), "gpu0_crowding");
  const auto other = std::find(order.begin(), order.end(), "other_process");
  ASSERT_NE(crowding, order.end());
  EXPECT_TRUE(other == order.end() || crowding < other);
}

// A process that cannot create its CUDA context held nothing of its own: others hold the GPU.
TEST(Differential, AContextThatCannotBeCreatedIsOtherProcessesFirst) {
  const auto findings = diagnose_log("jcuda.CudaException: CUDA_ERROR_OUT_OF_MEMORY\n"
                                     "    at jcuda.driver.JCudaDriver.cuCtxCreate(JCudaDriver.java:1514)\n");
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].rule, "PROC001");
  EXPECT_EQ(findings[0].cause_class, "other_process");
  EXPECT_NE(findings[0].fix.find("nvidia-smi"), std::string::npos);
}

// TensorFlow's BFC pool asking the driver for more during the run: the pool is the job's, so
// the job filling the GPU comes first; made at the device's creation with most of the GPU
// already taken, other processes do.
TEST(Differential, TensorFlowsPoolGrowingIsTheJobItsCreationWithLittleFreeIsOthers) {
  const auto grown = diagnose_log("E cuda_driver.cc:936] failed to allocate 378.60M (396990720 bytes) from "
                                  "device: CUDA_ERROR_OUT_OF_MEMORY\n");
  ASSERT_FALSE(grown.empty());
  EXPECT_EQ(grown[0].cause_class, "does_not_fit");
  EXPECT_NE(grown[0].fix.find("batch"), std::string::npos);
  for (const auto& f : grown) EXPECT_NE(f.cause_class, "other_process") << f.rule;

  const auto created = diagnose_log("Total memory: 7.92GiB\nFree memory: 190.31MiB\n"
                                    "E cuda_driver.cc:1002] failed to allocate 190.31M (199557120 bytes) from "
                                    "device: CUDA_ERROR_OUT_OF_MEMORY\n");
  ASSERT_FALSE(created.empty());
  EXPECT_EQ(created[0].rule, "PROC001");
  EXPECT_EQ(created[0].cause_class, "other_process");
  // The others held what was in use when the device was made, less this process's context
  // (at most context_max); the growing pool's message measures nothing of theirs.
  ASSERT_TRUE(created[0].saving.has_value());
  EXPECT_NEAR(static_cast<double>(*created[0].saving),
              7.92 * GiB - 190.31 * MiB - static_cast<double>(likelihood::context_max), 1.0 * MiB);
  for (const auto& f : grown) EXPECT_FALSE(f.rule == "PROC001" && f.saving) << f.saving_basis;
}

// TensorFlow's pool running out is its own size first; what was free when the device was made
// is not in the paste, so other processes follow, weakly (the pool is sized from it).
TEST(Differential, TensorFlowsPoolRunningOutIsTheJobThenOthersWhoShrankIt) {
  const auto findings = diagnose_log("W tensorflow/core/common_runtime/bfc_allocator.cc:275] Ran out of memory "
                                     "trying to allocate 392.00MiB. See logs for memory state.\n");
  ASSERT_GE(findings.size(), 2u);
  EXPECT_EQ(findings[0].cause_class, "does_not_fit");
  EXPECT_EQ(findings[1].rule, "PROC001");
  EXPECT_EQ(findings[1].cause_class, "other_process");
  EXPECT_EQ(findings[1].likelihood, likelihood::weak);
  EXPECT_FALSE(findings[1].against.empty());
}

// The same pool refusing a tensor of the small pool's size (4 KiB): a program that filled the
// pool itself fails on a sizeable request first, so the pool was small from the start (others
// held the GPU when it was made); a sizeable request keeps the job's size first.
TEST(Differential, TensorFlowsPoolRefusingATinyTensorIsOthersFirst) {
  const auto tiny = diagnose_log(
      "ResourceExhaustedError (see above for traceback): OOM when allocating tensor of "
      "shape [1024] and type float\n");
  ASSERT_GE(tiny.size(), 2u);
  EXPECT_EQ(tiny[0].rule, "PROC001");
  EXPECT_EQ(tiny[0].likelihood, likelihood::likely);
  EXPECT_EQ(tiny[1].cause_class, "does_not_fit");
  const auto sizeable = diagnose_log(
      "ResourceExhaustedError (see above for traceback): OOM when allocating tensor "
      "of shape [1024,1024] and type float\n");
  ASSERT_GE(sizeable.size(), 2u);
  EXPECT_EQ(sizeable[0].cause_class, "does_not_fit");
}

// cudaMallocAsync's message: 21.55 GiB of tensors and a 952 MiB request on a 24 GiB GPU with
// nothing free; 1.45 GiB is held beyond the tensors and a context, no more than a distributed
// job's NCCL buffers, so other processes are possible (first, as the job's size is argued
// against), with the doubt said.
TEST(Differential, AsyncAllocatorsRequestThatFitsBesideItsTensorsIsOthers) {
  const auto findings = diagnose_log("torch.cuda.OutOfMemoryError: Allocation on device 0 would exceed allowed "
                                     "memory. (out of memory)\nCurrently allocated     : 21.55 GiB\nRequested     "
                                     "          : 952.00 MiB\nDevice limit            : 24.00 GiB\nFree (according "
                                     "to CUDA): 0 bytes\n");
  ASSERT_GE(findings.size(), 2u);
  EXPECT_EQ(findings[0].rule, "PROC001");
  EXPECT_EQ(findings[0].likelihood, likelihood::possible);
  EXPECT_NE(findings[0].against.front().find("NCCL"), std::string::npos);
  EXPECT_EQ(findings[1].cause_class, "does_not_fit");
}

// torch 1.0's message of pytorch/pytorch#19219: 845 KiB live, 11.52 GiB cached. Live tensors
// under 1 MiB are small-pool blocks, each pinning at most a 2 MiB segment: the cache is not split
// around them, it waits on another stream (record_stream), and fragmentation is argued against.
TEST(Differential, ACacheMoreThanLiveBlocksCouldPinIsRecordStreamFirst) {
  const auto o = observed("RuntimeError: CUDA out of memory. Tried to allocate 100.00 MiB (GPU 1; 11.93 GiB total "
                          "capacity; 845.00 KiB already allocated; 56.00 MiB free; 11.52 GiB cached)\n");
  ASSERT_EQ(o.ooms.size(), 1u);
  EXPECT_TRUE(facts_of(o.ooms[0]).cache_beyond_what_live_blocks_pin());
  const auto findings = diagnose_log("RuntimeError: CUDA out of memory. Tried to allocate 100.00 MiB (GPU 1; 11.93 "
                                     "GiB total capacity; 845.00 KiB already allocated; 56.00 MiB free; 11.52 GiB "
                                     "cached)\n");
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].rule, "NCCL001");
  EXPECT_EQ(findings[0].cause_class, "record_stream");
  for (const auto& f : findings)
    if (f.rule == "FRAG001") {
      EXPECT_LT(f.likelihood, likelihood::weak);
    }
  // The same cache beside 3 MiB of live tensors: a large block may pin a large segment, so
  // nothing bounds what it holds and the reading is fragmentation's.
  const auto big = observed("RuntimeError: CUDA out of memory. Tried to allocate 100.00 MiB (GPU 1; 11.93 GiB total "
                            "capacity; 3.00 MiB already allocated; 56.00 MiB free; 11.52 GiB cached)\n");
  EXPECT_FALSE(facts_of(big.ooms[0]).cache_beyond_what_live_blocks_pin());
}

// The process list pasted alone (YOLOX#958: a worker that outlived Ctrl+C): the processes it
// lists hold what they use, other processes possible.
TEST(Differential, AProcessListAloneIsOthersPossible) {
  observe::observation o;
  observe::process_observation p;
  p.gpu_index = 1;
  p.pid = 52574;
  p.name = "...a3/envs/yolovx/bin/python";
  p.used = 29347_MiB;
  o.processes = {p};
  o.process_table = true;
  doctor_input in;
  in.observed = &o;
  const auto findings = diagnose(in);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].rule, "PROC001");
  EXPECT_EQ(findings[0].likelihood, likelihood::possible);
  EXPECT_NE(findings[0].evidence[0].find("process 52574"), std::string::npos);
  o.processes[0].used = 300_MiB;  // a context: nothing to say
  for (const auto& f : diagnose(in)) EXPECT_NE(f.rule, "PROC001");
}

// A logging record that names the function that logged the error places it (loguru's
// "module:function:line"), as a traceback frame does.
TEST(Differential, ALoggedFunctionPlacesTheMessage) {
  const auto findings = diagnose_log(
      "2023-04-18 20:39:29.054 | INFO     | __main__:savemodel:34 - Error saving model: CUDA out of memory. Tried to "
      "allocate 16.00 MiB (GPU 0; 10.00 GiB total capacity; 9.03 GiB already allocated; 0 bytes free; 9.27 GiB "
      "reserved in total by PyTorch)\n");
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].rule, "CKPT001");
  // Timestamps and URLs are not records of a function.
  const auto plain = diagnose_log("[2022-02-27 23:30:57] Error: CUDA out of memory. Tried to allocate 430.00 MiB "
                                  "(GPU 0; 10.76 GiB total capacity; 8.44 GiB already allocated; 247.44 MiB free; "
                                  "9.41 GiB reserved in total by PyTorch)\n");
  ASSERT_FALSE(plain.empty());
  EXPECT_EQ(plain[0].cause_class, "does_not_fit");
}

// Another framework's allocator failing on its own request reads as the job not fitting,
// with its missing share said against it.
TEST(Differential, AnotherFrameworksAllocatorIsTheJobFirst) {
  const auto findings = diagnose_log("Error allocating 45158400 bytes of device memory (out of memory). Driver "
                                     "report 44666880 bytes free and 536543232 bytes total\n");
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].rule, "OOM001");
  EXPECT_EQ(findings[0].cause_class, "does_not_fit");
  EXPECT_FALSE(findings[0].against.empty());
}

// cuDNN allocates beside XLA's pool: its failure in a JAX process is the pool crowding it out.
TEST(Differential, ALibraryFailingBesideXlasPoolIsPreallocationFirst) {
  const auto findings = diagnose_log("jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: CUDNN_STATUS_ALLOC_FAILED\n");
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].rule, "JAX001");
  EXPECT_NE(findings[0].fix.find("XLA_PYTHON_CLIENT_MEM_FRACTION"), std::string::npos);
  for (const auto& f : findings)
    if (f.cause_class == "does_not_fit") {
      EXPECT_LT(f.likelihood, findings[0].likelihood);
    }
}

// TensorFlow's handles made beside its pool: "failed to create cublas handle:
// CUBLAS_STATUS_ALLOC_FAILED" (StreamExecutor) and the convolution kernels' "Failed to get
// convolution algorithm ... cuDNN failed to initialize" are the pool crowding the library out,
// fixed by memory growth.
TEST(Differential, TensorFlowsHandleFailuresArePreallocationFirst) {
  for (const std::string log :
       {"E tensorflow/stream_executor/cuda/cuda_blas.cc:372] failed to create cublas handle: "
        "CUBLAS_STATUS_ALLOC_FAILED\n",
        "UnknownError: Failed to get convolution algorithm. This is probably because cuDNN failed "
        "to initialize, so try looking to see if a warning log message was printed above. "
        "[Op:Conv2D]\n"}) {
    const auto findings = diagnose_log(log);
    ASSERT_FALSE(findings.empty()) << log;
    EXPECT_EQ(findings[0].rule, "JAX001") << log;
    EXPECT_NE(findings[0].fix.find("GROWTH"), std::string::npos) << findings[0].fix;
  }
}

// One GPU at XLA's fraction and no sign of JAX. GPU 7 alone leaves its machine's other GPUs
// unseen (a JAX process would hold a pool on each), so the screen's default reading (memory
// held by some process) comes first and JAX001 stays in the running; GPU 0 alone may be all of
// a one-GPU machine, where the mechanism's figure (context + 0.75 x total) ranks a step above
// that generic reading; the same fraction on two GPUs is a JAX process.
TEST(Differential, OneGpuAtXlasFractionIsAHolderTwoArePreallocation) {
  observe::gpu_observation g;
  g.index = 7;
  g.total = 11019_MiB;
  g.used = 8525_MiB;
  observe::observation one;
  one.gpus = {g};
  doctor_input in;
  in.observed = &one;
  auto findings = diagnose(in);
  ASSERT_GE(findings.size(), 2u);
  EXPECT_EQ(findings[0].cause_class, "other_process");
  EXPECT_EQ(findings[1].cause_class, "jax_preallocation");
  observe::observation zero = one;
  zero.gpus[0].index = 0;
  in.observed = &zero;
  findings = diagnose(in);
  ASSERT_GE(findings.size(), 2u);
  EXPECT_EQ(findings[0].cause_class, "jax_preallocation");
  EXPECT_EQ(findings[1].cause_class, "other_process");
  observe::observation two = one;
  g.index = 1;
  two.gpus.push_back(g);
  in.observed = &two;
  findings = diagnose(in);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].cause_class, "jax_preallocation");
}

// Every finding that names a cause names one of the catalogue's, and the ranking never puts a
// finding without a cause above one with.
TEST(Differential, CausesAreTheCataloguesAndComeFirst) {
  const auto findings = diagnose_log(current + "Of the allocated memory 70.00 GiB is allocated by PyTorch, and "
                                               "7.00 GiB is reserved by PyTorch but unallocated.");
  bool seen_none = false;
  for (const auto& f : findings) {
    if (f.cause_class.empty()) {
      seen_none = true;
      continue;
    }
    EXPECT_FALSE(seen_none) << f.rule;
    const auto causes = cause_classes();
    EXPECT_NE(std::find(causes.begin(), causes.end(), f.cause_class), causes.end()) << f.cause_class;
  }
}

}  // namespace
}  // namespace vramscope::doctor

namespace vramscope::doctor {
namespace {

std::vector<finding> diagnose_message(const std::string& text) {
  static std::optional<observe::observation> kept;  // the findings point into it
  auto o = observe::parse_observation(text, "oom.txt", {});
  EXPECT_TRUE(o) << o.error().to_string();
  if (!o) return {};
  kept = std::move(*o);
  doctor_input in;
  in.observed = &*kept;
  return diagnose(in);
}

std::vector<std::string> first_three(const std::vector<finding>& found) {
  std::vector<std::string> out;
  for (const auto& f : found)
    if (!f.cause_class.empty() && out.size() < 3) out.push_back(f.cause_class);
  return out;
}

// A bare message whose small cache covers a small request: the job's size first, then the readings
// the message is silent on (an evaluation, kept tensors), and fragmentation below them.
TEST(Differential, ASmallCacheRanksFragmentationBelowTheUnplacedReadings) {
  const auto found = diagnose_message(
      "RuntimeError: CUDA out of memory. Tried to allocate 144.00 MiB. GPU 0 has a total capacty of 14.75 GiB "
      "of which 101.06 MiB is free. Process 20868 has 14.65 GiB memory in use. Of the allocated memory 14.32 GiB "
      "is allocated by PyTorch, and 191.06 MiB is reserved by PyTorch but unallocated.\n");
  EXPECT_EQ(first_three(found), (std::vector<std::string>{"does_not_fit", "eval", "leak"}));
  // A cache of a gigabyte or more stays above them.
  const auto headroom = diagnose_message(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of "
      "79.18 GiB of which 1.08 GiB is free. Including non-PyTorch memory, this process has 78.09 GiB memory in "
      "use. Of the allocated memory 75.31 GiB is allocated by PyTorch, and 1.83 GiB is reserved by PyTorch but "
      "unallocated.\n");
  const auto three = first_three(headroom);
  EXPECT_NE(std::find(three.begin(), three.end(), "fragmentation"), three.end());
}

// Processes a message names, each the size of a context, read as other ranks first and as other
// processes after, where what they hold would have served the request.
TEST(Differential, NamedContextSizedProcessesStayARunnerUp) {
  const auto found = diagnose_message(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 594.00 MiB.\n"
      "GPU 0 has a total capacity of 22.03 GiB of which 582.00 MiB is free.\n"
      "Process 29529 has 796.00 MiB memory in use. ... this process has 20.67 GiB in use.\n");
  const auto three = first_three(found);
  ASSERT_FALSE(three.empty());
  EXPECT_EQ(three[0], "gpu0_crowding");
  EXPECT_NE(std::find(three.begin(), three.end(), "other_process"), three.end());
}

// PaddlePaddle refusing a few kilobytes with nothing available, as a predictor is created: memory
// held by others, not the script's evaluation.
TEST(Differential, AFewKilobytesRefusedAtStartUpIsMemoryHeldByOthers) {
  const auto found = diagnose_message(
      "Traceback (most recent call last):\n"
      "  File \"tools/infer/predict_det.py\", line 258, in <module>\n"
      "    text_detector = TextDetector(args)\n"
      "  File \"tools/infer/predict_det.py\", line 107, in __init__\n"
      "    args, 'det', logger)\n"
      "  File \"/PaddleOCR/tools/infer/utility.py\", line 307, in create_predictor\n"
      "    predictor = inference.create_predictor(config)\n"
      "RuntimeError: ResourceExhaustedError:\n\n"
      "Out of memory error on GPU 0. Cannot allocate 2.250000kB memory on GPU 0, 127.994262TB memory has been "
      "allocated and available memory is only 0.000000B.\n");
  const auto three = first_three(found);
  ASSERT_FALSE(three.empty());
  EXPECT_EQ(three[0], "other_process");
  EXPECT_EQ(std::find(three.begin(), three.end(), "eval"), three.end());
}

TEST(OomFacts, ProgressIsReadFromABarOrANamedCounterOnly) {
  const auto mark = [](const std::string& line) { return progress_of(line); };
  const auto tqdm = mark("  0%|          | 1/9565 [00:19<50:33:46, 19.03s/it]");
  ASSERT_TRUE(tqdm);
  EXPECT_EQ(tqdm->done, 1);
  EXPECT_EQ(tqdm->total, 9565);
  EXPECT_FALSE(tqdm->per_task);
  const auto mmcv =
      mark("[>>>>>>>>>>>>>                     ] 20/76, 0.3 task/s, elapsed: 59s, ETA:   165s");
  ASSERT_TRUE(mmcv);
  EXPECT_TRUE(mmcv->per_task);
  EXPECT_EQ(mmcv->done, 20);
  EXPECT_FALSE(tqdm->other_work);
  const auto loading =
      mark("Loading weights concurrently:  47%|####7     | 667/1417 [00:03<00:05, 139.82it/s]");
  ASSERT_TRUE(loading);
  EXPECT_TRUE(loading->other_work);  // its count is not the training loop's
  const auto counter = mark("[INFO] Epoch 1/40, iter 420/20642, loss: 2.751");
  ASSERT_TRUE(counter);
  EXPECT_EQ(counter->done, 420);  // the iteration, not the epoch
  // Dates, paths, versions and bare fractions are not progress.
  EXPECT_FALSE(mark("ERROR 04-01 23:46:56 [engine.py:160] 04/01 failed"));
  EXPECT_FALSE(
      mark("  File \"/usr/lib/python3.8/site-packages/torch/nn/modules/module.py\", line 1, in f"));
  EXPECT_FALSE(mark("ratio 3/4 of the batch"));
  EXPECT_FALSE(mark("  50%|#####     | 7/3 [00:01<00:00]"));  // more done than the total
}

const std::string small_request_old_message =
    "RuntimeError: CUDA out of memory. Tried to allocate 3.30 GiB (GPU 0; 8.00 GiB total capacity; "
    "973.14 MiB "
    "already allocated; 2.13 GiB free; 3.74 GiB reserved in total by PyTorch)\n";

// mmcv's ProgressBar before the error is its test loop's; a training frame below it is not.
TEST(Differential, MmcvsProgressBarBeforeTheErrorPlacesItInTheTestLoop) {
  const std::string bar =
      "[>>>>>>>>>>>>>                                     ] 20/76, 0.3 task/s, elapsed: 59s, "
      "ETA:   165s\nTraceback (most recent call last):\n...\n";
  const auto findings = diagnose_log(bar + small_request_old_message);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.front().cause_class, "eval");
  EXPECT_EQ(findings.front().likelihood, likelihood::strong);
  EXPECT_FALSE(findings.front().against.empty());  // only the bar's format says it
  const auto trained =
      observed(bar + "  File \"train.py\", line 3, in train_epoch\n    loss.backward()\n" +
               small_request_old_message);
  EXPECT_EQ(facts_of(trained.ooms.at(0)).phase, oom_phase::unknown);
  // tqdm's bar names no loop.
  const auto tqdm =
      observed("  5%|#         | 20/400 [00:59<18:45,  2.96s/it]\n" + small_request_old_message);
  EXPECT_EQ(facts_of(tqdm.ooms.at(0)).phase, oom_phase::unknown);
}

// A training loop that fails in backward at its first iteration never fit: the job's size gains a
// step and kept tensors lose one; after iterations that completed, the reverse.
TEST(Differential, AFirstIterationInBackwardWeighsForTheJobsSizeAndAgainstKeptTensors) {
  const std::string message =
      "  File \"torch/autograd/__init__.py\", line 132, in backward\n    allow_unreachable=True)\n"
      "RuntimeError: CUDA out of memory. Tried to allocate 844.00 MiB (GPU 0; 14.76 GiB total "
      "capacity; 13.20 "
      "GiB already allocated; 98.75 MiB free; 13.40 GiB reserved in total by PyTorch)\n";
  const auto level = [](const std::vector<finding>& fs, const std::string& rule) {
    const auto f =
        std::find_if(fs.begin(), fs.end(), [&](const finding& x) { return x.rule == rule; });
    return f == fs.end() ? -1.0 : f->likelihood;
  };
  const auto first =
      diagnose_log("  0%|          | 1/9565 [00:19<50:33:46, 19.03s/it]\n" + message);
  const auto later =
      diagnose_log(" 33%|###       | 3200/9565 [00:19<50:33:46, 19.03s/it]\n" + message);
  EXPECT_GT(level(first, "OOM001"), level(later, "OOM001"));
  EXPECT_LT(level(first, "LEAK001"), level(later, "LEAK001"));
  EXPECT_EQ(first.front().cause_class, "does_not_fit");
  // Without a bar neither moves; after 3200 completed iterations the step's size is a step lower
  // and kept tensors a step higher than that.
  const auto bare = diagnose_log(message);
  EXPECT_EQ(level(later, "OOM001"), level(bare, "OOM001") - likelihood::step);
  EXPECT_EQ(level(later, "LEAK001"), level(bare, "LEAK001") + likelihood::step);
}

// The log's last status before the error names the phase: a progress bar's description or a
// framework's announcement, unless a training step was logged after it or backward ran.
TEST(OomFacts, TheLogsLastStatusLineNamesThePhase) {
  const auto placed = [](const std::string& log) {
    const auto o = observed(log + small_request_old_message);
    const auto f = facts_of(o.ooms.at(0));
    return std::pair{f.phase, f.placed_by};
  };
  const auto status = [](oom_phase p) { return std::pair{p, phase_source::status}; };
  EXPECT_EQ(placed("***** Running Evaluation *****\n  Num examples = 1000\n  Batch size = 8\n"),
            status(oom_phase::eval));
  EXPECT_EQ(placed("Validation DataLoader 0:  35%|###5      | 7/20 [00:01<00:02,  4.10it/s]\n"),
            status(oom_phase::eval));
  EXPECT_EQ(
      placed("Saving model checkpoint to out/checkpoint-500\nTraceback (most recent call last):\n"),
      status(oom_phase::checkpoint_save));
  EXPECT_EQ(placed("Resuming from checkpoint out/checkpoint-500\n"),
            status(oom_phase::checkpoint_resume));
  // A status that opens with the phase's verb, behind a log level or a bracketed prefix.
  EXPECT_EQ(placed("Resampling...\n  Resampled in 18.83s\nPredicting part 1 of 5 ...\n"),
            status(oom_phase::eval));
  EXPECT_EQ(placed("[2024-05-01 10:00:02] INFO: Evaluating on 500 images\n"),
            status(oom_phase::eval));
  const auto nothing = std::pair{oom_phase::unknown, phase_source::none};
  // Prose that mentions the phase later in the line names nothing.
  EXPECT_EQ(placed("I was only predicting a few images when it failed\n"), nothing);
  // A training step logged, or a bar that names no phase, after the announcement: it was over.
  EXPECT_EQ(
      placed(
          "Saving model checkpoint to x\n{'loss': 0.51, 'learning_rate': 1e-05, 'epoch': 0.5}\n"),
      nothing);
  EXPECT_EQ(
      placed("***** Running Evaluation *****\n  5%|5         | 50/1000 [00:10<03:00,  5.2it/s]\n"),
      nothing);
  EXPECT_EQ(placed("Epoch 0:  35%|###5      | 7/20 [00:01<00:02,  4.10it/s]\n"), nothing);
  // Loading a pretrained model is not a resume.
  EXPECT_EQ(placed("Loading checkpoint shards: 100%|##########| 2/2 [00:05<00:00,  2.51s/it]\n"),
            nothing);
  // Backward below the status: a training step, whatever the log announced.
  EXPECT_EQ(
      placed("Validation DataLoader 0:  35%|###5      | 7/20 [00:01<00:02,  4.10it/s]\n  File "
             "\"torch/autograd/__init__.py\", line 132, in backward\n"),
      nothing);
}

TEST(Differential, AStatusLineRanksItsPhaseFirstAndSaysOnlyTheLogNamesIt) {
  const auto findings =
      diagnose_log("Saving model checkpoint to out/checkpoint-500\n" + small_request_old_message);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.front().cause_class, "checkpoint_save");
  EXPECT_EQ(findings.front().likelihood, likelihood::strong);
  EXPECT_NE(findings.front().against.at(0).find("only the log's status line"), std::string::npos);
}

// Generation and sampling frames place an evaluation only with no training frame anywhere in the
// traceback (an RL rollout generates inside training), and a diffusion step's q_sample is not
// sampling; a function named for inference places it as any evaluation frame does.
TEST(OomFacts, GenerationFramesPlaceAnEvaluationOnlyOutsideTraining) {
  const auto placed = [](const std::string& traceback) {
    const auto o = observed(traceback + small_request_old_message);
    const auto f = facts_of(o.ooms.at(0));
    return std::pair{f.phase, f.placed_by};
  };
  const std::string generate =
      "  File \"transformers/generation/utils.py\", line 1, in generate\n  File "
      "\"transformers/generation/utils.py\", line 2, in _sample\n";
  EXPECT_EQ(placed("  File \"chat.py\", line 9, in main\n" + generate),
            std::pair(oom_phase::eval, phase_source::generation));
  EXPECT_EQ(
      placed("  File \"grpo.py\", line 9, in train\n  File \"grpo.py\", line 20, in rollout\n" +
             generate),
      std::pair(oom_phase::unknown, phase_source::none));
  EXPECT_EQ(
      placed("  File \"ddpm.py\", line 9, in forward\n  File \"ddpm.py\", line 20, in q_sample\n"),
      std::pair(oom_phase::unknown, phase_source::none));
  EXPECT_EQ(placed("  File \"beam.py\", line 9, in run_inference\n"),
            std::pair(oom_phase::eval, phase_source::frame));
  const auto findings =
      diagnose_log("  File \"chat.py\", line 9, in main\n" + generate + small_request_old_message);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.front().cause_class, "eval");
  EXPECT_EQ(findings.front().likelihood, likelihood::strong);
}

// IPython and Jupyter print a frame as "path in function(arguments)": read as Python's frames are.
TEST(OomFacts, IPythonFramesPlaceTheFailureAsPythonsDo) {
  const auto placed = [](const std::string& traceback) {
    const auto o = observed(traceback + small_request_old_message);
    return facts_of(o.ooms.at(0)).phase;
  };
  EXPECT_EQ(
      placed("<ipython-input-7-3f2a1b> in <module>\n----> 3 validate(model, loader)\n"
             "/content/utils.py in validate(model, loader)\n     12     for x, y in loader:\n"),
      oom_phase::eval);
  EXPECT_EQ(placed("~/project/ckpt.py in save_model(model, path)\n"), oom_phase::checkpoint_save);
  EXPECT_EQ(placed("C:\\Users\\me\\run.py in evaluate(net)\n"), oom_phase::eval);
  // Prose that says "in" is not a frame.
  EXPECT_EQ(placed("We ran the model in eval(mode) as the README says\n"), oom_phase::unknown);
  // The backward of a Jupyter traceback is read as backward: no script name places it then.
  const auto o = observed(
      "/opt/conda/lib/python3.8/site-packages/torch/tensor.py in backward(self, gradient)\n" +
      small_request_old_message);
  EXPECT_TRUE(facts_of(o.ooms.at(0)).in_backward);
}

}  // namespace
}  // namespace vramscope::doctor
