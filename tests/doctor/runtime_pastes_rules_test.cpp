// Rules over the runtime and benchmark pastes of observe/memory_figures.hpp and failure_line.hpp:
// a pool that could not be made or left no room for cuDNN's handle (JAX001), variants with the
// same live tensors and different reserves (FRAG001), allocated figures alone (FRAG001 says what
// to paste), and ranks that all report device 0 (GPU001).
#include <vramscope/core/units.hpp>
#include <vramscope/observe/read_observation.hpp>

#include <gtest/gtest.h>

#include <string>

#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

observe::observation read(const std::string& text) {
  auto o = observe::parse_observation(text, "paste.txt");
  EXPECT_TRUE(o) << o.error().to_string();
  return o ? std::move(*o) : observe::observation{};
}

TEST(RuntimePastesRules, CnmemPoolThatCouldNotBeCreatedIsPreallocation) {
  const auto o =
      read("initCnmem: cnmemInit call failed! Reason=CNMEM_STATUS_OUT_OF_MEMORY. numdev=1\n");
  doctor_input in;
  in.observed = &o;
  const auto found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "jax_preallocation");
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.85);
  EXPECT_NE(found[0].fix.find("lib.cnmem"), std::string::npos);
}

TEST(RuntimePastesRules, CudnnHandleUnderARuntimesPoolWeighsItsDefault) {
  const std::string handle = "could not create cuDNN handle: CUDNN_STATUS_INTERNAL_ERROR\n";
  doctor_input in;
  // TensorFlow preallocates by default: likely.
  const auto tf = read("E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] " + handle);
  in.observed = &tf;
  auto found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.7);
  EXPECT_NE(found[0].fix.find("TF_FORCE_GPU_ALLOW_GROWTH"), std::string::npos);
  // Theano only when asked: possible.
  const auto theano =
      read("('The following error happened while compiling the node', x, '\\n', '" + handle);
  in.observed = &theano;
  found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.5);
  EXPECT_NE(found[0].fix.find("gpuarray.preallocate"), std::string::npos);
  // No runtime with a pool named: nothing of this rule.
  const auto bare = read(handle);
  in.observed = &bare;
  EXPECT_TRUE(rules::jax_preallocation(in).empty());
  // Another library's handle (cuSOLVER's, under TensorFlow's check) is read the same way.
  const auto solver = read(
      "F tensorflow/core/util/cuda_solvers.cc:115] Check failed: "
      "cusolverDnCreate(&cusolver_dn_handle) == CUSOLVER_STATUS_SUCCESS Failed to create "
      "cuSolverDN instance.\n");
  in.observed = &solver;
  found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.7);
  EXPECT_NE(found[0].cause.find("cusolver's handle"), std::string::npos) << found[0].cause;
  EXPECT_NE(found[0].support[0].find("cusolverDnCreate could not create its handle"),
            std::string::npos)
      << found[0].support[0];
}

// TensorFlow's first device allocation right after it created the device: its pool's region.
TEST(RuntimePastesRules, TensorflowsPoolFailingAtTheDevicesCreationIsItsSize) {
  const std::string created =
      "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1030] Creating TensorFlow device "
      "(/gpu:0) -> "
      "(device: 0, name: GeForce GTX 1060 6GB, pci bus id: 0000:01:00.0)\n";
  const std::string failed =
      "E tensorflow/stream_executor/cuda/cuda_driver.cc:924] failed to allocate 5.93G (6365773824 "
      "bytes) from "
      "device: CUDA_ERROR_OUT_OF_MEMORY\n";
  const auto o = read(created + failed);
  doctor_input in;
  in.observed = &o;
  auto found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "jax_preallocation");
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.7);
  EXPECT_NE(found[0].fix.find("per_process_gpu_memory_fraction"), std::string::npos);
  // A line between them: the pool was made, a later allocation failed.
  const auto later = read(created + "I step 1 loss 0.3\n" + failed);
  in.observed = &later;
  EXPECT_TRUE(rules::jax_preallocation(in).empty());
  // The request within what was free at the device's start: the GPU was full before (PROC001).
  const auto full = read(
      "I tensorflow/core/common_runtime/gpu/gpu_device.cc:885] Found device 0 with properties:\n"
      "name: GeForce GTX 1080\ntotalMemory: 7.92GiB freeMemory: 190.31MiB\n" +
      created +
      "E tensorflow/stream_executor/cuda/cuda_driver.cc:1002] failed to allocate 190.31M "
      "(199557120 bytes) from "
      "device: CUDA_ERROR_OUT_OF_MEMORY\n");
  in.observed = &full;
  EXPECT_TRUE(rules::jax_preallocation(in).empty());
}

TEST(RuntimePastesRules, VariantsWithTheSameTensorsAndDifferentReservesAreTheCache) {
  const auto o = read(
      "| Variant | Peak allocated | Peak reserved |\n| --- | ---: | ---: |\n"
      "| A | 100,000 MiB | 120,000 MiB |\n| B | 100,000 MiB | 110,000 MiB |\n");
  doctor_input in;
  in.observed = &o;
  const auto found = rules::fragmentation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "fragmentation");
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.7);
  ASSERT_TRUE(found[0].saving);
  EXPECT_EQ(*found[0].saving, static_cast<std::int64_t>(10'000_MiB));
  // Live tensors that differ by more than rounding: the change moved tensors, not cache.
  const auto other = read(
      "| Variant | Peak allocated | Peak reserved |\n| --- | ---: | ---: |\n"
      "| A | 100,000 MiB | 120,000 MiB |\n| B | 90,000 MiB | 110,000 MiB |\n");
  in.observed = &other;
  EXPECT_TRUE(rules::fragmentation(in).empty());
  // Rows of ranks are not variants of a change.
  const auto ranks = read(
      "| Rank | Peak allocated | Peak reserved |\n| --- | ---: | ---: |\n"
      "| 0 | 100,000 MiB | 120,000 MiB |\n| 1 | 100,000 MiB | 110,000 MiB |\n");
  in.observed = &ranks;
  EXPECT_TRUE(rules::fragmentation(in).empty());
}

TEST(RuntimePastesRules, AllocatedFiguresAloneSayWhatToPaste) {
  const auto o = read("peak_alloc = 35.5 GiB, final_alloc = 35.5 GiB\n");
  doctor_input in;
  in.observed = &o;
  const auto found = rules::fragmentation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].level, severity::info);
  EXPECT_TRUE(found[0].cause_class.empty());
  EXPECT_NE(found[0].fix.find("memory_summary"), std::string::npos);
}

TEST(RuntimePastesRules, RanksAllOnDeviceZeroCrowdGpu0) {
  const auto o = read(
      "comm.rank=0 device_id=0 1 2\ncomm.rank=1 device_id=0 1 2\ncomm.rank=2 device_id=0 3 4\n");
  doctor_input in;
  in.observed = &o;
  const auto found = rules::gpu0_crowding(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "gpu0_crowding");
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.6);  // a rank seeing only its own GPU calls it 0 too
  EXPECT_NE(found[0].fix.find("set_device"), std::string::npos);
  // With each rank's CuPy pool: what all but the largest hold on GPU 0 is the saving.
  const auto pools = read(
      "comm.rank=0 device_id=0 used_bytes=1 total_bytes=1073741824\ncomm.rank=1 device_id=0 "
      "used_bytes=1 "
      "total_bytes=3221225472\ncomm.rank=2 device_id=0 used_bytes=1 total_bytes=2147483648\n");
  in.observed = &pools;
  const auto priced = rules::gpu0_crowding(in);
  ASSERT_EQ(priced.size(), 1u);
  ASSERT_TRUE(priced[0].saving);
  EXPECT_EQ(*priced[0].saving, static_cast<std::int64_t>(3_GiB));
  EXPECT_EQ(priced[0].against[0].find("nor what each rank holds"), std::string::npos);
  // Ranks on their own GPUs: nothing.
  const auto spread = read("comm.rank=0 device_id=0 1\ncomm.rank=1 device_id=1 1\n");
  in.observed = &spread;
  EXPECT_TRUE(rules::gpu0_crowding(in).empty());
}

// A launch that starts more processes on a node than it gives GPUs: they share each GPU.
TEST(RuntimePastesRules, ALaunchWithMoreRanksThanGpusIsOtherProcesses) {
  const std::string cupy =
      "Proc 3: cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 333,274,112 bytes "
      "(allocated so far: "
      "1,974,255,616 bytes).\n";
  doctor_input in;
  for (const char* command : {"$> srun -n 64 -c 2 --gpu-bind=map_gpu:3,2,1,0 prog --gpu",
                              "srun --nodes=2 --ntasks=16 --gpus-per-node=4 prog",
                              "CUDA_VISIBLE_DEVICES=0,1 mpirun -np 8 python run.py",
                              "torchrun --nproc_per_node 4 --gres=gpu:2 x.py"}) {
    const auto o = read(std::string(command) + "\n" + cupy);
    in.observed = &o;
    const auto found = rules::memory_outside_process(in);
    ASSERT_EQ(found.size(), 1u) << command;
    EXPECT_EQ(found[0].cause_class, "other_process");
    EXPECT_DOUBLE_EQ(found[0].likelihood, 0.7);
  }
  const auto o = read("srun -n 64 --gpu-bind=map_gpu:3,2,1,0 prog\n" + cupy);
  in.observed = &o;
  EXPECT_NE(rules::memory_outside_process(in).at(0).support.at(0).find("up to 16 share each GPU"),
            std::string::npos);
  // One process per GPU, or no launcher: nothing of this kind.
  for (const char* command :
       {"srun -n 4 --gpu-bind=map_gpu:3,2,1,0 prog",
        "srun --nodes=4 --ntasks=16 --gpus-per-node=4 prog",
        "CUDA_VISIBLE_DEVICES=0,1 python run.py -n 8", "mpirun -np 8 python run.py"}) {
    const auto none = read(std::string(command) + "\n" + cupy);
    in.observed = &none;
    EXPECT_TRUE(rules::memory_outside_process(in).empty()) << command;
  }
}

}  // namespace
}  // namespace vramscope::doctor
