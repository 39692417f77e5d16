#pragma once
// Element types of tensors as they appear in checkpoints and training jobs.

#include <optional>
#include <string>
#include <string_view>

#include <vramscope/core/units.hpp>

namespace vramscope {

enum class dtype { f64, f32, bf16, f16, f8_e4m3, f8_e5m2, i64, i32, i16, i8, u8, boolean, nf4, int4 };

/// Storage size in bits (nf4/int4 are 4).
int bits_of(dtype t);

/// Bytes taken by `count` elements of `t`, rounded up to whole bytes.
bytes bytes_of(dtype t, std::uint64_t count);

/// Canonical short name: "fp32", "bf16", "fp16", "fp8_e4m3", "int8", "nf4", ...
std::string_view name_of(dtype t);

/// Accepts canonical names, safetensors names ("F32", "BF16", "I64", "F8_E4M3", "BOOL"),
/// torch names ("float32", "bfloat16", "torch.float16") and common aliases ("float", "half").
std::optional<dtype> parse_dtype(std::string_view text);

}  // namespace vramscope
