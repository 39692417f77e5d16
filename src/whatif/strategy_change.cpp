#include "whatif/strategy_change.hpp"

#include <vramscope/job/job_names.hpp>
#include <vramscope/job/job_writer.hpp>
#include <vramscope/job/overrides.hpp>
#include <vramscope/job/resolve.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace vramscope::whatif {

namespace {

using job::strategy;

using job::is_fsdp;
using job::is_zero;

bool row_sets(const std::vector<std::string>& settings, std::string_view key) {
  return std::any_of(settings.begin(), settings.end(), [key](const std::string& s) {
    return std::string_view(s).substr(0, s.find('=')) == key;
  });
}

class translator {
 public:
  translator(const std::vector<std::string>& settings, job::job_spec& row,
             std::vector<std::string>& notes)
      : settings_(settings),
        row_(row),
        notes_(notes),
        to_(std::string(job::name_of(row.parallel.kind))) {}

  // Sets `key=value` on the row, as the counterpart of `was` ("parallel.fsdp_sharding=
  // shard_grad_op"), unless the row sets the key itself.
  // `was` lists "key=value" items; each key is then put back to its default without a note of
  // its own when the row's strategy lacks it (drop).
  status carry(const std::vector<std::string>& was, const std::string& key,
               const std::string& value) {
    if (row_sets(settings_, key)) return ok();
    if (auto set = job::set_field(row_, key + "=" + value); !set) return set;
    std::string items;
    for (const auto& w : was) {
      items += (items.empty() ? "" : " and ") + w;
      carried_.push_back(w.substr(0, w.find('=')));
    }
    notes_.push_back(fmt::format("parallel.strategy={}: {} become{} {}={}", to_, items,
                                 was.size() == 1 ? "s" : "", key, value));
    return ok();
  }

  // Puts `key` back to its default, for an option the row's strategy does not have; says so
  // unless a counterpart took its place.
  status drop(const std::string& key, const std::string& why) {
    const nlohmann::json defaults = job::to_json(job::job_spec{});
    const auto dot = key.find('.');
    const auto& value = defaults.at(key.substr(0, dot)).at(key.substr(dot + 1));
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    if (auto set = job::set_field(row_, key + "=" + text); !set) return set;
    if (std::find(carried_.begin(), carried_.end(), key) == carried_.end())
      notes_.push_back(fmt::format("parallel.strategy={}: {} dropped ({})", to_, key, why));
    return ok();
  }

 private:
  std::vector<std::string> carried_;  // keys whose counterpart was set
  const std::vector<std::string>& settings_;
  job::job_spec& row_;
  std::vector<std::string>& notes_;
  std::string to_;
};

// The options with a counterpart in the row's strategy.
status carry_counterparts(const job::parallel_spec& from, strategy to, translator& t) {
  const strategy kind = from.kind;
  if (kind == strategy::fsdp1 && to == strategy::fsdp2) {
    // torch.distributed.fsdp.fully_shard's docstring: reshard_after_forward=False keeps the
    // parameters unsharded between forward and backward, as FSDP1's SHARD_GRAD_OP does.
    if (from.fsdp_sharding == job::sharding::shard_grad_op)
      if (auto s = t.carry({"parallel.fsdp_sharding=shard_grad_op"},
                           "parallel.reshard_after_forward", "false");
          !s)
        return s;
    // HYBRID_SHARD is FSDP2 over a 2-D mesh: dp_replicate replicas of a sharded group, which
    // resolve_job derived for the base job.
    if (from.fsdp_sharding == job::sharding::hybrid_shard)
      if (auto s = t.carry({"parallel.fsdp_sharding=hybrid_shard"}, "parallel.dp_replicate",
                           std::to_string(from.dp_replicate));
          !s)
        return s;
  }
  if (kind == strategy::fsdp2 && to == strategy::fsdp1) {
    if (from.reshard_after_forward == 0)
      if (auto s = t.carry({"parallel.reshard_after_forward=false"}, "parallel.fsdp_sharding",
                           "shard_grad_op");
          !s)
        return s;
    if (from.dp_replicate > 1)
      if (auto s = t.carry({fmt::format("parallel.dp_replicate={}", from.dp_replicate)},
                           "parallel.fsdp_sharding", "hybrid_shard");
          !s)
        return s;
  }
  // FSDP's CPUOffload keeps the parameter shards, their gradients and the optimizer state in host
  // memory; ZeRO's counterparts are offload_optimizer (and offload_param for stage 3).
  if (is_fsdp(kind) && is_zero(to) && from.cpu_offload) {
    if (auto s = t.carry({"parallel.cpu_offload=true"}, "parallel.offload_optimizer", "true"); !s)
      return s;
    if (to == strategy::zero3)
      if (auto s = t.carry({"parallel.cpu_offload=true"}, "parallel.offload_param", "true"); !s)
        return s;
  }
  if (is_zero(kind) && is_fsdp(to) && (from.offload_optimizer || from.offload_param)) {
    std::vector<std::string> was;
    if (from.offload_optimizer) was.emplace_back("parallel.offload_optimizer=true");
    if (from.offload_param) was.emplace_back("parallel.offload_param=true");
    if (auto s = t.carry(was, "parallel.cpu_offload", "true"); !s) return s;
  }
  return ok();
}

// "parallel.sync_module_states" from "parallel.sync_module_states: applies to fsdp1 only
// (parallel.strategy is fsdp2)": an option the row's strategy does not have; "" otherwise.
std::string strategy_only_option(const diagnostic& d) {
  const auto colon = d.message.find(": applies to ");
  if (colon == std::string::npos ||
      d.message.find(" only (parallel.strategy is ") == std::string::npos)
    return "";
  const std::string key = d.message.substr(0, colon);
  return key.starts_with("parallel.") ? key : "";
}

}  // namespace

status translate_strategy(const job::job_spec& base, const std::vector<std::string>& settings,
                          job::job_spec& row, std::vector<std::string>& notes) {
  if (row.parallel.kind == base.parallel.kind) return ok();
  translator t(settings, row, notes);
  if (auto s = carry_counterparts(base.parallel, row.parallel.kind, t); !s) return s;
  // The rules themselves say which options the row's strategy lacks: resolve a copy and drop the
  // option each refusal names, until none is left (at most one round per option).
  for (int round = 0; round < 64; ++round) {
    job::job_spec probe = row;
    const auto resolved = job::resolve_job(probe);
    if (resolved) return ok();
    const std::string key = strategy_only_option(resolved.error());
    if (key.empty() || row_sets(settings, key)) return ok();  // refused for another reason
    // "applies to zero3 only (parallel.strategy is fsdp2); for fsdp1/fsdp2 use ..." -> "applies
    // to zero3 only": the row's strategy is in the note, and a counterpart would have been set.
    std::string why = resolved.error().message;
    why = why.substr(why.find("applies to "));
    why = why.substr(0, why.find(" (parallel.strategy is "));
    if (auto s = t.drop(key, why); !s) return s;
  }
  return ok();
}

}  // namespace vramscope::whatif
