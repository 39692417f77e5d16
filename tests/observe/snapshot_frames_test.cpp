#include "observe/snapshot_frames.hpp"

#include <gtest/gtest.h>

#include "observe/addr_map.hpp"

namespace vramscope::observe::detail {
namespace {

TEST(SnapshotFrames, TorchAndRuntimeFramesAreInternal) {
  EXPECT_TRUE(classify_frame("_call_impl", "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py") &
              frame_internal);
  EXPECT_TRUE(classify_frame("c10::cuda::CUDACachingAllocator::malloc", "??") & frame_internal);
  EXPECT_TRUE(classify_frame("at::native::empty_cuda", "/pytorch/aten/src/ATen/native/cuda/Empty.cpp") & frame_internal);
  EXPECT_TRUE(classify_frame("<module>", "<frozen runpy>") & frame_internal);
  EXPECT_FALSE(classify_frame("forward", "/workspace/model.py") & frame_internal);
  EXPECT_FALSE(classify_frame("forward", "/workspace/torchtitan/models/llama.py") & frame_internal);
}

TEST(SnapshotFrames, CategoriesFollowThePriorityOrder) {
  EXPECT_EQ(category_of(classify_frame("all_gather_into_tensor", "distributed_c10d.py") |
                        classify_frame("forward", "model.py")),
            memory_category::communication);
  EXPECT_EQ(category_of(classify_frame("step", "/torch/optim/adamw.py") | classify_frame("backward", "x.py")),
            memory_category::optimizer);
  EXPECT_EQ(category_of(classify_frame("_apply", "module.py")), memory_category::parameters);
  EXPECT_EQ(category_of(classify_frame("backward", "_tensor.py") | classify_frame("forward", "model.py")),
            memory_category::gradients);
  EXPECT_EQ(category_of(classify_frame("forward", "model.py")), memory_category::activations);
  EXPECT_EQ(category_of(classify_frame("collate", "data.py")), memory_category::other);
}

TEST(AddrMap, InsertsFindsAndErasesAcrossGrowth) {
  addr_map<int> m;
  for (int i = 0; i < 5000; ++i) m.insert(0x7f0000000000ull + static_cast<std::uint64_t>(i) * 512, i);
  EXPECT_EQ(m.size(), 5000u);
  for (int i = 0; i < 5000; i += 2) EXPECT_TRUE(m.erase(0x7f0000000000ull + static_cast<std::uint64_t>(i) * 512));
  for (int i = 0; i < 5000; ++i) {
    int* v = m.find(0x7f0000000000ull + static_cast<std::uint64_t>(i) * 512);
    if (i % 2 == 0) EXPECT_EQ(v, nullptr);
    else ASSERT_TRUE(v && *v == i);
  }
  EXPECT_FALSE(m.erase(42));
  m.insert(~std::uint64_t{0}, 7);  // the marker value is a key too
  EXPECT_EQ(*m.find(~std::uint64_t{0}), 7);
  EXPECT_EQ(m.size(), 2501u);
}

}  // namespace
}  // namespace vramscope::observe::detail
