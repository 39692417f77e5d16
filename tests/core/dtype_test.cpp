#include <vramscope/core/dtype.hpp>

#include <gtest/gtest.h>

namespace vramscope {
namespace {

TEST(Dtype, ParsesSafetensorsTorchAndCanonicalNames) {
  EXPECT_EQ(parse_dtype("BF16"), dtype::bf16);
  EXPECT_EQ(parse_dtype("torch.float16"), dtype::f16);
  EXPECT_EQ(parse_dtype("float32"), dtype::f32);
  EXPECT_EQ(parse_dtype("F8_E4M3"), dtype::f8_e4m3);
  EXPECT_EQ(parse_dtype("I64"), dtype::i64);
  EXPECT_EQ(parse_dtype("nf4"), dtype::nf4);
  EXPECT_FALSE(parse_dtype("complex32"));
}

TEST(Dtype, BytesRoundUpSubByteTypes) {
  EXPECT_EQ(bytes_of(dtype::f32, 10), 40u);
  EXPECT_EQ(bytes_of(dtype::bf16, 3), 6u);
  EXPECT_EQ(bytes_of(dtype::nf4, 3), 2u);
  EXPECT_EQ(name_of(dtype::bf16), "bf16");
}

}  // namespace
}  // namespace vramscope
