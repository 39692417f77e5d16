#pragma once
// The spellings of the job spec's enumerations, as written in YAML, printed in reports and
// written by to_yaml / to_json. One table per enum lives in src/job/job_names.cpp; the reader,
// the writer and the importers all go through these functions, so a name is spelled the same
// everywhere.
//
// Parsing is forgiving about case and separators: "FSDP2", "fsdp-2" and "fsdp_2" all read as
// fsdp2, "FULL_SHARD" as full_shard, "BACKWARD_PRE" as pre. Aliases users write out of habit
// ("fully_shard", "sdpa", "flash_attention_2", "true" for checkpointing) are accepted and
// listed in docs/job-spec.md. Thread-safe (immutable tables).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/job/job_spec.hpp>

namespace vramscope::job {

/// Canonical names: "fsdp2", "full_shard", "pre", "adamw_8bit", "selective", "flash", "hf",
/// "rank0", "sharded".
std::string_view name_of(strategy v);
std::string_view name_of(sharding v);
std::string_view name_of(prefetch v);
std::string_view name_of(optimizer_kind v);
std::string_view name_of(checkpointing v);
std::string_view name_of(attention_impl v);
std::string_view name_of(float8_recipe v);
std::string_view name_of(loss_impl v);
std::string_view name_of(model_impl v);
std::string_view name_of(pp_schedule v);
std::string_view name_of(weight_load v);
std::string_view name_of(state_dict_kind v);

/// Reads a name or alias; std::nullopt when the text is none of them.
/// For strategy, "fsdp" alone is deliberately not accepted (see docs/job-spec.md).
template <typename Enum>
std::optional<Enum> parse_enum(std::string_view text);

/// The canonical names of an enum in declaration order, for "expected one of ..." messages.
template <typename Enum>
std::vector<std::string> enum_names();

/// Lower-cases and drops '-', '_', '.' and spaces: the key used to compare user spellings.
std::string normalize_name(std::string_view text);

}  // namespace vramscope::job
