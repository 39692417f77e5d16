#include <vramscope/job/job_names.hpp>

#include <algorithm>
#include <cctype>
#include <span>
#include <utility>

namespace vramscope::job {

namespace {

// One row per spelling; the first row of each value is its canonical name.
template <typename Enum>
struct spelling {
  Enum value;
  std::string_view text;
};

constexpr spelling<strategy> strategy_names[] = {
    {strategy::ddp, "ddp"},       {strategy::fsdp1, "fsdp1"},        {strategy::fsdp2, "fsdp2"},
    {strategy::zero1, "zero1"},   {strategy::zero2, "zero2"},        {strategy::zero3, "zero3"},
    {strategy::jax, "jax"},       {strategy::single, "single"},      {strategy::fsdp2, "fully_shard"},
    {strategy::ddp, "distributed_data_parallel"},                   {strategy::single, "none"},
    {strategy::megatron, "megatron"},                               {strategy::megatron, "megatron_lm"},
};
constexpr spelling<sharding> sharding_names[] = {
    {sharding::full_shard, "full_shard"},       {sharding::shard_grad_op, "shard_grad_op"},
    {sharding::no_shard, "no_shard"},           {sharding::hybrid_shard, "hybrid_shard"},
};
constexpr spelling<prefetch> prefetch_names[] = {
    {prefetch::pre, "pre"},           {prefetch::post, "post"},
    {prefetch::none, "none"},         {prefetch::pre, "backward_pre"},
    {prefetch::post, "backward_post"}, {prefetch::none, "no_prefetch"},
};
constexpr spelling<optimizer_kind> optimizer_names[] = {
    {optimizer_kind::adamw, "adamw"},           {optimizer_kind::adam, "adam"},
    {optimizer_kind::sgd, "sgd"},               {optimizer_kind::sgd_momentum, "sgd_momentum"},
    {optimizer_kind::adafactor, "adafactor"},   {optimizer_kind::adamw_8bit, "adamw_8bit"},
    {optimizer_kind::adamw, "adamw_torch"},     {optimizer_kind::adamw, "adamw_torch_fused"},
    {optimizer_kind::adamw_8bit, "adamw_bnb_8bit"},
    {optimizer_kind::paged_adamw, "paged_adamw"}, {optimizer_kind::paged_adamw_8bit, "paged_adamw_8bit"},
    {optimizer_kind::paged_adamw, "paged_adamw_32bit"},
};
constexpr spelling<checkpointing> checkpointing_names[] = {
    {checkpointing::none, "none"},
    {checkpointing::full, "full"},
    {checkpointing::selective, "selective"},
    {checkpointing::none, "false"},
    {checkpointing::full, "true"},
    {checkpointing::op, "op"},
    {checkpointing::op, "selective_op"},
    {checkpointing::op, "per_op"},
    {checkpointing::core_attention, "core_attention"},
};
constexpr spelling<attention_impl> attention_names[] = {
    {attention_impl::flash, "flash"},           {attention_impl::efficient, "efficient"},
    {attention_impl::math, "math"},             {attention_impl::eager, "eager"},
    {attention_impl::flash, "flash_attention_2"}, {attention_impl::flash, "sdpa"},
    {attention_impl::efficient, "mem_efficient"},
};
constexpr spelling<float8_recipe> float8_names[] = {
    {float8_recipe::none, "none"},
    {float8_recipe::tensorwise, "tensorwise"},
    {float8_recipe::rowwise, "rowwise"},
    {float8_recipe::rowwise_with_gw_hp, "rowwise_with_gw_hp"},
    {float8_recipe::blockwise, "blockwise"},
    {float8_recipe::mxfp8, "mxfp8"},
    {float8_recipe::none, "false"},
    {float8_recipe::tensorwise, "true"},
};
constexpr spelling<loss_impl> loss_names[] = {
    {loss_impl::hf, "hf"},
    {loss_impl::liger_fused, "liger_fused"},
    {loss_impl::torchtitan, "torchtitan"},
    {loss_impl::litgpt, "litgpt"},
    {loss_impl::chunked, "chunked"},
    {loss_impl::liger_fused, "liger"},
    {loss_impl::liger_fused, "fused_linear_cross_entropy"},
    {loss_impl::chunked, "ce_with_chunked_output_loss"},
};
constexpr spelling<model_impl> model_impl_names[] = {
    {model_impl::hf, "hf"},
    {model_impl::litgpt, "litgpt"},
    {model_impl::torchtune, "torchtune"},
    {model_impl::hf, "transformers"},
    {model_impl::litgpt, "lit_gpt"},
};
constexpr spelling<pp_schedule> pp_schedule_names[] = {
    {pp_schedule::one_f_one_b, "1f1b"},
    {pp_schedule::gpipe, "gpipe"},
    {pp_schedule::interleaved_1f1b, "interleaved_1f1b"},
    {pp_schedule::interleaved_zero_bubble, "interleaved_zero_bubble"},
    {pp_schedule::zbv_zero_bubble, "zbv_zero_bubble"},
    {pp_schedule::dualpipev, "dualpipev"},
};
constexpr spelling<weight_load> weight_load_names[] = {
    {weight_load::all_ranks, "all_ranks"},
    {weight_load::rank0, "rank0"},
    {weight_load::random, "random"},
    {weight_load::none, "none"},
};
constexpr spelling<state_dict_kind> state_dict_names[] = {
    {state_dict_kind::none, "none"},
    {state_dict_kind::full, "full"},
    {state_dict_kind::sharded, "sharded"},
};

constexpr std::span<const spelling<strategy>> table(strategy*) { return strategy_names; }
constexpr std::span<const spelling<sharding>> table(sharding*) { return sharding_names; }
constexpr std::span<const spelling<prefetch>> table(prefetch*) { return prefetch_names; }
constexpr std::span<const spelling<optimizer_kind>> table(optimizer_kind*) { return optimizer_names; }
constexpr std::span<const spelling<checkpointing>> table(checkpointing*) { return checkpointing_names; }
constexpr std::span<const spelling<attention_impl>> table(attention_impl*) { return attention_names; }
constexpr std::span<const spelling<loss_impl>> table(loss_impl*) { return loss_names; }
constexpr std::span<const spelling<model_impl>> table(model_impl*) { return model_impl_names; }
constexpr std::span<const spelling<float8_recipe>> table(float8_recipe*) { return float8_names; }
constexpr std::span<const spelling<pp_schedule>> table(pp_schedule*) { return pp_schedule_names; }
constexpr std::span<const spelling<weight_load>> table(weight_load*) { return weight_load_names; }
constexpr std::span<const spelling<state_dict_kind>> table(state_dict_kind*) { return state_dict_names; }

template <typename Enum>
std::string_view canonical(Enum v) {
  for (const auto& row : table(static_cast<Enum*>(nullptr)))
    if (row.value == v) return row.text;
  return "?";
}

}  // namespace

std::string normalize_name(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '-' || c == '_' || c == '.' || c == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

template <typename Enum>
std::optional<Enum> parse_enum(std::string_view text) {
  const std::string key = normalize_name(text);
  if (key.empty()) return std::nullopt;
  for (const auto& row : table(static_cast<Enum*>(nullptr)))
    if (normalize_name(row.text) == key) return row.value;
  return std::nullopt;
}

template <typename Enum>
std::vector<std::string> enum_names() {
  std::vector<std::string> names;
  for (const auto& row : table(static_cast<Enum*>(nullptr))) {
    const std::string text(row.text);
    if (canonical(row.value) == row.text &&
        std::find(names.begin(), names.end(), text) == names.end())
      names.push_back(text);
  }
  return names;
}

std::string_view name_of(strategy v) { return canonical(v); }
std::string_view name_of(sharding v) { return canonical(v); }
std::string_view name_of(prefetch v) { return canonical(v); }
std::string_view name_of(optimizer_kind v) { return canonical(v); }
std::string_view name_of(checkpointing v) { return canonical(v); }
std::string_view name_of(attention_impl v) { return canonical(v); }
std::string_view name_of(loss_impl v) { return canonical(v); }
std::string_view name_of(model_impl v) { return canonical(v); }
std::string_view name_of(float8_recipe v) { return canonical(v); }
std::string_view name_of(pp_schedule v) { return canonical(v); }
std::string_view name_of(weight_load v) { return canonical(v); }
std::string_view name_of(state_dict_kind v) { return canonical(v); }

#define VRAMSCOPE_JOB_ENUM(E)                                    \
  template std::optional<E> parse_enum<E>(std::string_view text); \
  template std::vector<std::string> enum_names<E>();
VRAMSCOPE_JOB_ENUM(strategy)
VRAMSCOPE_JOB_ENUM(sharding)
VRAMSCOPE_JOB_ENUM(prefetch)
VRAMSCOPE_JOB_ENUM(optimizer_kind)
VRAMSCOPE_JOB_ENUM(checkpointing)
VRAMSCOPE_JOB_ENUM(attention_impl)
VRAMSCOPE_JOB_ENUM(loss_impl)
VRAMSCOPE_JOB_ENUM(model_impl)
VRAMSCOPE_JOB_ENUM(float8_recipe)
VRAMSCOPE_JOB_ENUM(pp_schedule)
VRAMSCOPE_JOB_ENUM(weight_load)
VRAMSCOPE_JOB_ENUM(state_dict_kind)
#undef VRAMSCOPE_JOB_ENUM

}  // namespace vramscope::job
