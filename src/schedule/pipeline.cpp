// Facts: torchtitan/distributed/pipeline_parallel.py (generate_llm_fqn_per_model_part, the
// stage split) and torch/distributed/pipelining/schedules.py (ScheduleGPipe, Schedule1F1B,
// ScheduleInterleaved1F1B: warm-up counts and the order of forwards and backwards). The
// zero-bubble orders are in pipeline_orders.cpp.
#include "schedule/pipeline.hpp"

#include "schedule/pipeline_orders.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace vramscope::schedule {

result<std::vector<int>> stage_of_units(const model::model_spec& model, int stages) {
  using model::unit_kind;
  if (stages < 1) return error_at("parallel.pp", "needs at least one stage");
  std::uint64_t blocks = 0;
  for (const auto& u : model.units) {
    switch (u.kind) {
      case unit_kind::block: ++blocks; break;
      case unit_kind::embedding:
      case unit_kind::norm:
      case unit_kind::head: break;
      default:  // job::check_against_model refuses these first
        return error_at("parallel.pp", fmt::format("{}: a {} unit cannot be placed on a pipeline stage",
                                                   u.name, model::name_of(u.kind)));
    }
  }
  // The embedding and the output (final norm and head) each weigh one block.
  const std::uint64_t effective = blocks + 2;
  const auto n = static_cast<std::uint64_t>(stages);
  const std::uint64_t per_stage = effective / n, extra = effective % n;
  if (per_stage < 2 && stages > 1)
    return error_at("parallel.pp",
                    fmt::format("{} blocks (plus the embedding and the head) cannot fill {} "
                                "pipeline stages with at least one block each", blocks, stages));
  // Blocks per stage: the stage's share less one for the embedding (first) or output (last).
  std::vector<std::uint64_t> quota(n);
  for (std::uint64_t s = 0; s < n; ++s) {
    quota[s] = per_stage + (s < extra ? 1 : 0);
    if (s == 0) quota[s] -= 1;
    if (s + 1 == n) quota[s] -= 1;
  }
  std::vector<int> out(model.units.size(), 0);
  std::uint64_t stage = 0, used = 0;
  for (std::size_t i = 0; i < model.units.size(); ++i) {
    const auto kind = model.units[i].kind;
    if (kind == unit_kind::embedding) {
      out[i] = 0;
    } else if (kind == unit_kind::norm || kind == unit_kind::head) {
      out[i] = stages - 1;
    } else {
      while (stage + 1 < n && used >= quota[stage]) {
        ++stage;
        used = 0;
      }
      out[i] = static_cast<int>(stage);
      ++used;
    }
  }
  return out;
}

result<std::vector<int>> stage_of_units(const model::model_spec& model, int stages,
                                        pipeline_split split) {
  if (split == pipeline_split::torchtitan) return stage_of_units(model, stages);
  using model::unit_kind;
  if (stages < 1) return error_at("parallel.pp", "needs at least one stage");
  std::uint64_t blocks = 0;
  for (const auto& u : model.units) {
    if (u.kind == unit_kind::block) {
      ++blocks;
    } else if (u.kind != unit_kind::embedding && u.kind != unit_kind::norm &&
               u.kind != unit_kind::head) {
      return error_at("parallel.pp", fmt::format("{}: a {} unit cannot be placed on a pipeline stage",
                                                 u.name, model::name_of(u.kind)));
    }
  }
  const auto n = static_cast<std::uint64_t>(stages);
  if (blocks < n || blocks % n != 0)
    return error_at("parallel.pp",
                    fmt::format("Megatron-LM splits only the transformer layers over the pipeline: "
                                "{} layers do not divide into {} stages of equal size",
                                blocks, stages));
  const std::uint64_t per_stage = blocks / n;
  std::vector<int> out(model.units.size(), 0);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < model.units.size(); ++i) {
    switch (model.units[i].kind) {
      case unit_kind::embedding: out[i] = 0; break;
      case unit_kind::block: out[i] = static_cast<int>(seen++ / per_stage); break;
      default: out[i] = stages - 1; break;  // the final norm and the head
    }
  }
  return out;
}

std::vector<pipeline_op> pipeline_ops(job::pp_schedule schedule, int pp, int rank,
                                      int stages_per_rank, int micro_batches) {
  const int m = std::max(1, micro_batches);
  const int v = schedule == job::pp_schedule::interleaved_1f1b ? std::max(1, stages_per_rank) : 1;
  const int p = std::max(1, pp);
  const int total = m * v;
  // The k-th forward and backward of the rank: which local stage and micro-batch they run.
  auto forward_op = [&](int k) {
    const int round = k / (p * v), in_round = k % (p * v);
    return pipeline_op{pass::forward, in_round / p, round * p + in_round % p};
  };
  auto backward_op = [&](int k) {
    const int round = k / (p * v), in_round = k % (p * v);
    return pipeline_op{pass::backward, v - 1 - in_round / p, round * p + in_round % p};
  };
  std::vector<pipeline_op> ops;
  int f = 0, b = 0;
  switch (schedule) {
    case job::pp_schedule::gpipe:
      for (int k = 0; k < m; ++k) ops.push_back({pass::forward, 0, k});
      for (int k = 0; k < m; ++k) ops.push_back({pass::backward, 0, k});
      return ops;
    case job::pp_schedule::one_f_one_b: {
      const int warmup = std::min(m, p - rank);
      for (; f < warmup; ++f) ops.push_back({pass::forward, 0, f});
      while (b < m) {
        ops.push_back({pass::backward, 0, b++});
        if (f < m) ops.push_back({pass::forward, 0, f++});
      }
      return ops;
    }
    case job::pp_schedule::interleaved_1f1b: {
      const int warmup = std::min((v - 1) * p + 2 * (p - 1 - rank), total);
      for (; f < warmup; ++f) ops.push_back(forward_op(f));
      while (f < total) {
        ops.push_back(forward_op(f++));
        ops.push_back(backward_op(b++));
      }
      while (b < total) ops.push_back(backward_op(b++));
      return ops;
    }
    case job::pp_schedule::interleaved_zero_bubble:
      return interleaved_zero_bubble_ops(p, rank, std::max(1, stages_per_rank), m);
    case job::pp_schedule::zbv_zero_bubble: return zbv_zero_bubble_ops(p, rank, m);
    case job::pp_schedule::dualpipev: return dualpipev_ops(p, rank, m);
  }
  return ops;
}

int peak_in_flight(const std::vector<pipeline_op>& ops) {
  int live = 0, peak = 0;
  for (const auto& op : ops) {
    if (op.kind == pass::forward) ++live;
    if (op.kind == pass::backward || op.kind == pass::backward_weight) --live;
    peak = std::max(peak, live);
  }
  return peak;
}

int peak_awaiting_weight(const std::vector<pipeline_op>& ops) {
  int waiting = 0, peak = 0;
  for (const auto& op : ops) {
    if (op.kind == pass::backward_input) ++waiting;
    if (op.kind == pass::backward_weight) --waiting;
    peak = std::max(peak, waiting);
  }
  return peak;
}

bytes weight_gradient_inputs(const model::model_spec& model, std::string_view unit,
                             std::uint64_t tokens, int tp, bytes element_bytes) {
  std::uint64_t rows = 0;
  for (const auto& t : model.tensors) {
    if (t.unit != unit || t.shape.empty()) continue;
    const bool bias = t.name.size() >= 4 && t.name.compare(t.name.size() - 4, 4, "bias") == 0;
    if (t.shape.size() == 1 && !bias) rows += t.shape[0];  // a norm's weight multiply
    if (t.shape.size() >= 2) rows += t.shape[t.shape.size() - 2];  // a matmul's output
  }
  const auto split = static_cast<std::uint64_t>(std::max(1, tp));
  return tokens * rows / split * element_bytes;
}

}  // namespace vramscope::schedule
