// The out-of-memory messages of tests/data/realworld/oom/ (sources in SOURCES.md there): each
// real message must be found once, with the figures its release meant.
#include <vramscope/core/io.hpp>
#include <vramscope/observe/oom_report.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::approx;

oom_report only_report(const std::string& name) {
  const std::string path = std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/realworld/oom/" + name;
  auto text = read_file(path);
  if (!text) ADD_FAILURE() << text.error().to_string();
  warnings w;
  auto found = find_oom_reports(text ? *text : "", path, w);
  EXPECT_EQ(found.size(), 1u) << name;
  EXPECT_TRUE(w.empty()) << name << ": " << (w.empty() ? "" : w[0].to_string());
  return found.empty() ? oom_report{} : found[0];
}

TEST(RealworldOom, Torch1Cached) {
  const auto r = only_report("structureflow_35_torch1_cached.txt");
  EXPECT_EQ(r.kind, oom_kind::torch);
  EXPECT_EQ(r.requested, approx(8.13, GiB));
  EXPECT_EQ(r.allocated_by_pytorch, approx(643.57, MiB));
  EXPECT_EQ(r.reserved_unallocated, approx(32.43, MiB));
  EXPECT_EQ(r.reserved_by_pytorch, approx(643.57, MiB) + approx(32.43, MiB));
}

TEST(RealworldOom, Torch1Reserved) {
  const auto r = only_report("maddog_11_torch1_reserved.txt");
  EXPECT_EQ(r.requested, approx(2.87, GiB));
  EXPECT_EQ(r.allocated_by_pytorch, approx(8.77, GiB));
  EXPECT_EQ(r.reserved_by_pytorch, approx(13.71, GiB));
  const auto unclosed = only_report("resume_ner_4_torch1_unclosed.txt");
  EXPECT_EQ(unclosed.requested, approx(92.00, MiB));
  EXPECT_EQ(unclosed.reserved_by_pytorch, approx(1.51, GiB));
}

TEST(RealworldOom, Torch2Sentences) {
  const auto r = only_report("pytorch_16417_torch2.txt");
  EXPECT_EQ(r.requested, approx(22.00, MiB));
  EXPECT_EQ(r.capacity, approx(23.65, GiB));
  EXPECT_EQ(r.allocated_by_pytorch, approx(22.90, GiB));
  EXPECT_EQ(r.reserved_unallocated, approx(194.87, MiB));
}

TEST(RealworldOom, XlaWordings) {
  EXPECT_EQ(only_report("jax_788_resource_exhausted_wrapped.txt").requested, 5520758552u);
  EXPECT_EQ(only_report("llnerf_9_xla_pjrt.txt").requested, 20029400304u);
  const auto r = only_report("alphafold_1023_xla.txt");
  EXPECT_EQ(r.kind, oom_kind::xla);
  EXPECT_EQ(r.requested, 7406166528u);
}

}  // namespace
}  // namespace vramscope::observe
