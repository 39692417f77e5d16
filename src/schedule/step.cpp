// The step driver: init, then forward and backward unit by unit, the loss, the strategy's
// gradient and optimizer hooks, and the CPU/GPU synchronisation points.
#include <vramscope/schedule/schedule.hpp>

#include <vramscope/job/lengths.hpp>
#include <vramscope/job/model_checks.hpp>
#include <vramscope/core/version.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "schedule/activations.hpp"
#include "schedule/offload.hpp"
#include "schedule/pipeline.hpp"
#include "schedule/strategy.hpp"

namespace vramscope::schedule {

namespace {

const model::stack_shape& stack_of(const model::model_spec& m, const model::unit& u) {
  using model::unit_kind;
  if (m.vision && (u.kind == unit_kind::vision_block || u.kind == unit_kind::vision_embedding ||
                   u.kind == unit_kind::vision_head))
    return *m.vision;
  for (const auto& s : m.extra)
    if (!s.unit_prefix.empty() && u.name.starts_with(s.unit_prefix)) return s;
  return m.text;
}

token_shape tokens_of(const model::stack_shape& s, const job::job_spec& job, bool vision) {
  if (vision) return {job.training.micro_batch, std::max<std::uint64_t>(1, s.image_tokens)};
  // Prompt tuning prepends its virtual tokens to every sequence; context parallelism gives each
  // rank its share of every sequence.
  const bool prompt = job.lora.enabled && job.lora.method == "prompt_tuning";
  const auto cp = static_cast<std::uint64_t>(std::max(1, job.parallel.cp));
  return {job.training.micro_batch,
          job.training.seq_len / cp + (prompt ? static_cast<std::uint64_t>(job.lora.virtual_tokens) : 0)};
}

// Whether the block `block_index` of the model (`in_stage`: of its pipeline stage) is
// recomputed in backward.
bool checkpointed(const job::job_spec& job, std::size_t block_index, std::size_t in_stage) {
  switch (job.training.activation_checkpointing) {
    case job::checkpointing::none:
    case job::checkpointing::core_attention:
      return false;  // inside the block: add_attention
    case job::checkpointing::full:
      return job.training.checkpoint_blocks <= 0 ||
             in_stage < static_cast<std::size_t>(job.training.checkpoint_blocks);
    case job::checkpointing::op: return true;
    case job::checkpointing::selective:
      return block_index % static_cast<std::size_t>(std::max(1, job.training.checkpoint_every)) == 0;
  }
  return false;
}

// This rank's part of a pipeline: the local stages (units of the rank's model, in order), the
// order of its passes, and whether it holds the model's first and last stage.
struct pipeline_part {
  std::vector<std::vector<std::size_t>> chunks;  // local stage -> unit indices
  std::vector<pipeline_op> ops;
  bool last_chunk_has_loss = false;
  bool first_chunk_has_input = false;  // the embedding: no activation arrives from a peer
};

// LitGPT's fine-tuning loop (finetune/lora.py: `logits = model(input_ids,
// lm_head_chunk_size=128)`, then the loss and fabric.backward) keeps the list of logits in
// `logits` until the next micro-batch's forward returns its own, and with it the autograd graph
// of the micro-batch before (`loss`, the other reference, becomes a float at every log_interval,
// 1 in litgpt's defaults and its config hub). A graph after backward holds what custom
// functions keep as context attributes: bitsandbytes 0.42.0, which litgpt 0.1 to 0.5.4 pin
// (pyproject.toml; bitsandbytes >= 0.44 from 0.5.5), keeps each 4-bit matmul's input so
// (MatMul4Bit, ctx.tensors = (A, B); bitsandbytes 9e753741 "fix QLoRA mem bug", 0.43.2, keeps
// none). lit-gpt before litgpt 0.1 (framework.litgpt empty) runs its longest sample first
// (finetune/lora.py: `longest_seq_ix if iter_num == 0`): the step the job's length describes has
// no graph before it, and the shorter steps after it are not planned.
bool keeps_previous_graph(const job::job_spec& j) {
  const auto& l = j.lora;
  return j.training.loss == job::loss_impl::litgpt &&
         j.training.model_code == job::model_impl::litgpt && !j.framework.litgpt.empty() &&
         version_number(j.framework.litgpt) < version_number("0.5.5") && l.enabled &&
         l.base_quantization && *l.base_quantization != dtype::i8 && l.quantizer == "bitsandbytes";
}

class driver {
 public:
  driver(const model::model_spec& m, const job::job_spec& j, int rank, const schedule_options& o,
         std::optional<pipeline_part> pipe = std::nullopt, program_watcher* watcher = nullptr)
      : model_(m),
        job_(j),
        options_(o),
        pipe_(std::move(pipe)),
        out_(watcher),
        layout_(shared_layout(m, j, placed(make_rank_info(j, rank)), o.shared_model)),
        ctx_{m, j, placed(make_rank_info(j, rank)), *layout_, out_, {}, layout_},
        offload_(j, out_) {
    record_stream_ = collectives_record_stream(j);
    keeps_previous_graph_ = keeps_previous_graph(j);
    build_activations(j);
    current_length_ = j.training.seq_len;
    bool first_steps = true;  // the first unit with steps marks the model's first matmul
    for (std::size_t u = 0; u < m.units.size(); ++u) {  // the units forward_unit runs op by op
      const auto& steps = acts(u).forward_in_order;
      const bool in_order = !ckpt_[u] && !offload_.enabled();
      const auto has = [&](bool forward_step::*flag) {
        return in_order && std::any_of(steps.begin(), steps.end(),
                                       [&](const forward_step& st) { return st.*flag; });
      };
      if (first_steps && !steps.empty()) gemm_in_steps_ = has(&forward_step::gemm);
      first_steps = first_steps && steps.empty();
      ctx_.casts_in_forward.push_back(has(&forward_step::weight_cast));
    }
    saved_.resize(m.units.size());
    if (j.eval.enabled) eval_activations();
  }

  // Each unit's activations and the loss's for the sequence length of `j` (the job's, or a
  // copy of it with one step's length): acts_, acts_of_ and loss_.
  void build_activations(const job::job_spec& j) {
    const auto& m = model_;
    // The final norm's output is the head's input: kept when the head needs it.
    bool head_input = !j.lora.enabled;
    for (const auto& lu : ctx_.lay.units)
      if (lu.kind == model::unit_kind::head) head_input = head_input || lu.inputs.head;
    std::size_t block = 0, in_stage = 0;
    // The first unit of each local pipeline stage (the whole model is one stage without one).
    std::vector<bool> stage_start(m.units.size(), false);
    if (pipe_)
      for (const auto& chunk : pipe_->chunks)
        if (!chunk.empty() && chunk.front() < stage_start.size()) stage_start[chunk.front()] = true;
    acts_.clear();
    acts_of_.clear();
    acts_.reserve(m.units.size());
    acts_of_.reserve(m.units.size());
    const model::stack_shape* last_stack = nullptr;  // the last unit's arguments
    saved_inputs last_inputs;
    for (std::size_t i = 0; i < m.units.size(); ++i) {
      const auto& u = m.units[i];
      const auto& s = stack_of(m, u);
      const bool vision = m.vision.has_value() && &s == &*m.vision;
      saved_inputs inputs = i < ctx_.lay.units.size() ? ctx_.lay.units[i].inputs : saved_inputs{};
      if (u.kind == model::unit_kind::norm) inputs.head = head_input;
      // The head's memory is the loss stage's, modelled once after the last unit. A unit like
      // the one before it (a model's blocks, mostly) has its activations: they are a function
      // of the arguments alone.
      if (u.kind == model::unit_kind::head) {
        acts_of_.push_back(acts_.size());
        acts_.emplace_back();
      } else if (i > 0 && u.kind == m.units[i - 1].kind && &s == last_stack &&
                 inputs == last_inputs) {
        acts_of_.push_back(acts_of_.back());  // shared until add_frozen_compute changes one
      } else {
        acts_of_.push_back(acts_.size());
        acts_.push_back(
            activations_for(u.kind, s, j, tokens_of(s, j, vision), ctx_.rank.tp, inputs));
      }
      last_stack = &s;
      last_inputs = inputs;
      const bool is_block = u.kind == model::unit_kind::block || u.kind == model::unit_kind::vision_block;
      if (stage_start[i]) in_stage = 0;
      if (ckpt_.size() < m.units.size())
        ckpt_.push_back(is_block && checkpointed(j, block, in_stage));
      if (is_block) ++block, ++in_stage;
    }
    // pi0 trains on a flow-matching loss over the action expert's output: no vocabulary logits.
    if (m.model_type != "pi0")
      loss_ = activations_for(model::unit_kind::head, m.text, j, tokens_of(m.text, j, false),
                              ctx_.rank.tp, saved_inputs{});
    add_frozen_compute(j);
  }

  // Variable lengths: the activations of a step of `length` tokens a sequence take the place
  // of the current ones, each length's built once and kept while another is in use.
  void use_length(std::uint64_t length) {
    if (length == current_length_) return;
    by_length_[current_length_] = activation_set{std::move(acts_), std::move(acts_of_),
                                                 std::move(loss_)};
    if (auto it = by_length_.find(length); it != by_length_.end()) {
      acts_ = std::move(it->second.acts);
      acts_of_ = std::move(it->second.of);
      loss_ = std::move(it->second.loss);
      by_length_.erase(it);
    } else {
      job::job_spec j = job_;
      j.training.seq_len = length;
      loss_ = unit_activations{};
      build_activations(j);
    }
    current_length_ = length;
  }

  result<program> run() {
    auto s = make_strategy();
    if (!s) return error_at("job", "strategy has no event schedule");
    strategy_ = s.get();
    out_.phase("init");
    s->init();
    resume();
    if (pipe_) return run_pipeline();
    // A watcher may end the program at a phase boundary: the loops stop there (take() drops
    // anything built after it, so the checks only save work).
    // A watcher that finds the rank back in the state a step (micro-batch) left it in has the
    // steps (the step's micro-batches but the last) that would repeat it left out. It is asked
    // where one may be left out: from the second boundary of its kind on, the first one
    // giving it the state to compare with (none with 2 steps, or 3 micro-batches).
    const int steps = std::max(1, job_.training.steps);
    const int micros = std::max(1, job_.training.gradient_accumulation);
    for (int step = 0; step < steps && !out_.stopped(); ++step) {
      if (!lengths_.empty()) use_length(lengths_[static_cast<std::size_t>(step)]);
      for (int micro = 0; micro < micros && !out_.stopped(); ++micro) {
        // Tensor-parallel collectives' buffers freed through record_stream wait for the NCCL
        // stream's event, which the allocator finds complete at a malloc after the GPU has run
        // the collective. A micro-batch launches far more kernels than CUDA's launch queue
        // holds (about a thousand pending launches), so the CPU is never a whole micro-batch
        // ahead of the GPU: when the next one starts, the last one's collectives are done.
        // (Within a micro-batch, and from the last one into the optimizer step, they stay
        // pending, as the CPU runs ahead.)
        if (micro > 0 && record_stream_ && job_.parallel.tp > 1) out_.sync(streams::nccl);
        s->begin_micro_batch(micro + 1 == micros);
        forward(step == 0 && micro == 0);
        backward();
        s->end_backward();
        if (micros > 3 && micro + 2 < micros && out_.steady(boundary::micro_batch))
          micro = micros - 2;
      }
      s->optimizer_step(step);
      s->zero_grad();
      out_.sync_all();  // the training loop reads the loss: the CPU waits for the GPU
      if (!lengths_.empty()) {
        out_.end_step(lengths_[static_cast<std::size_t>(step)]);
        if (step + 1 < steps && all_lengths_closed(step)) break;
        continue;
      }
      // Asked after every step but the last wherever micro-batches are compared, even where
      // no step could be left out (2 steps): the answer also starts the next step's micro-batch
      // comparisons afresh, so that none compares with a key of the step before.
      if (step + 1 < steps && (steps > 2 || micros > 3) && out_.steady(boundary::step) &&
          steps > 2)
        break;
    }
    evaluate();
    free_all(out_, previous_graph_);
    s->save_checkpoint();
    auto p = out_.take();
    p.rank_specific = place_read_;
    p.parameters = split_of(ctx_.lay);
    return p;
  }

 private:
  // `r`, reporting reads of the rank's place to place_read_.
  rank_info placed(rank_info r) {
    r.place_read = &place_read_;
    return r;
  }

  // Variable lengths: `step` of lengths_[step] ends. The replay is a function of the state a
  // step begins in and its length; a step that left the state as it found it (the watcher's
  // steady) closes its length at that state, and a step that changed it opens every length
  // again. Once every length a later step draws is closed, each later step replays to that
  // state again: they are left out (the plan takes each one's figures from the last step of
  // its length, predict/lengths.cpp). open_ counts the lengths later steps draw that are not
  // closed.
  bool all_lengths_closed(int step) {
    const auto length = lengths_[static_cast<std::size_t>(step)];
    if (!out_.steady(boundary::step)) {
      closed_.clear();
      open_ = static_cast<std::size_t>(std::count_if(
          last_step_of_.begin(), last_step_of_.end(), [&](const auto& l) { return l.second > step; }));
      return false;
    }
    if (closed_.insert(length).second) --open_;
    return open_ == 0;
  }

 public:
  /// Variable lengths: the length of each step.
  void set_lengths(std::vector<std::uint64_t> lengths) {
    lengths_ = std::move(lengths);
    for (std::size_t i = 0; i < lengths_.size(); ++i)
      last_step_of_[lengths_[i]] = static_cast<int>(i);
    open_ = last_step_of_.size();
  }

 private:
  // Pipeline parallelism: the rank runs its schedule's passes, each over one local stage and
  // one micro-batch, and holds every micro-batch's activations from its forward to its
  // backward. torch.distributed.pipelining keeps each stage's output (fwd_cache) until that
  // backward; a stage that receives its input gets it from a peer (the first block's input)
  // and sends the input's gradient back; the last stage runs the loss inside its forward.
  result<program> run_pipeline() {
    const int micros = std::max(1, job_.training.gradient_accumulation);
    const auto tokens = tokens_of(model_.text, job_, false).tokens();
    const auto compute = static_cast<bytes>(ctx_.lay.dtypes.compute);
    hidden_ = tokens * model_.text.hidden * compute;
    // Megatron-LM's p2p tensors are sequence-sharded under sequence parallelism
    // (megatron/core/pipeline_parallel/schedules.py, get_tensor_shapes: seq_length // tp).
    if (megatron_pipeline() && job_.parallel.sequence_parallel)
      hidden_ /= static_cast<bytes>(std::max(1, ctx_.rank.tp));
    const auto m = static_cast<std::size_t>(micros), chunks = pipe_->chunks.size();
    held_.saved.assign(m, std::vector<std::vector<tensor_id>>(model_.units.size()));
    held_.loss_saved.assign(m, {});
    held_.stage_output.assign(m, std::vector<tensor_id>(chunks, 0));
    held_.grad_output = held_.stage_output;
    held_.weight_inputs.assign(m, std::vector<std::vector<tensor_id>>(chunks));
    for (const auto& u : model_.units)
      weight_input_bytes_.push_back(
          weight_gradient_inputs(model_, u.name, tokens, ctx_.rank.tp, compute));
    const int steps = std::max(1, job_.training.steps);
    const auto& ops = pipe_->ops;
    const auto repeat = repeat_of(ops, micros);
    for (int step = 0; step < steps && !out_.stopped(); ++step) {
      shift_.assign(pipe_->chunks.size(), 0);
      bool left_out = false;  // periods were left out in this step: no more are asked about
      for (std::size_t i = 0; i < ops.size() && !out_.stopped(); ++i) {
        // The steady phase: where a period ends in the state one `back` periods before ended
        // in, the periods after it repeat those `back`; whole repeats of them are left out, and
        // the ops after them run on the micro-batches' slots of the last ones built.
        if (repeat.period > 0 && !left_out && i >= repeat.from && i + repeat.period <= repeat.to &&
            (i - repeat.from) % repeat.period == 0)
          if (const std::size_t back = out_.period_repeats(); back > 0) {
            const std::size_t periods = (repeat.to - i) / (back * repeat.period) * back;
            for (std::size_t c = 0; c < shift_.size(); ++c)
              if (c < repeat.moves.size() && repeat.moves[c])
                shift_[c] += static_cast<int>(periods) * repeat.shift;
            i += periods * repeat.period;
            left_out = true;
            if (i == ops.size()) break;
          }
        const auto& op = ops[i];
        switch (op.kind) {
          case pass::forward: pipeline_forward(op); break;
          case pass::backward: pipeline_backward(op, micros); break;
          case pass::backward_input: pipeline_input_gradient(op); break;
          case pass::backward_weight: pipeline_weight_gradient(op, micros); break;
        }
      }
      strategy_->optimizer_step(step);
      strategy_->zero_grad();
      out_.sync_all();
      // As in run(): asked wherever periods are compared, to start the next step's afresh.
      if (step + 1 < steps && (steps > 2 || repeat.period > 0) &&
          out_.steady(boundary::step) && steps > 2)
        break;
    }
    strategy_->save_checkpoint();
    return out_.take();
  }

  // The steady phase of a pipeline schedule: each op of [from, to) is the op `period` before
  // it with a micro-batch `shift` later (the same pass on the same local stage, ending or not
  // the step's last micro-batch alike), and a period runs, on each local stage, as many
  // forwards as it completes backwards (input and weight gradients alike), so that as many
  // micro-batches stay in flight at each of its ends. 1F1B's is its one-forward-one-backward
  // phase (period 2, shift 1); the interleaved schedules' a round of every local stage. The
  // rank may come back to a state a period of the phase ended in
  // (program_watcher::period_repeats): then the periods since repeat. period 0: none (GPipe's
  // forwards repeat, but hold ever more).
  struct pipeline_repeat {
    std::size_t period = 0, from = 0, to = 0;
    int shift = 0;
    // The local stages with passes in a period: their micro-batches in flight move on a period
    // at a time; another stage's stay (interleaved 1F1B's first stage while its second runs).
    std::vector<bool> moves;
  };
  static pipeline_repeat repeat_of(const std::vector<pipeline_op>& ops, int micros) {
    const auto last = [&](const pipeline_op& op) { return op.micro + 1 == micros; };
    // The longest periods looked for: interleaved schedules repeat every round of pp
    // micro-batches over every local stage, a few hundred ops at most in practice.
    constexpr std::size_t longest = 256;
    for (std::size_t period = 1; period <= std::min(longest, ops.size() / 3); ++period) {
      std::size_t from = period;
      while (from < ops.size()) {
        // The run of ops from `from` that repeat the op `period` before with one shift.
        const int shift = ops[from].micro - ops[from - period].micro;
        std::size_t to = from;
        while (to < ops.size()) {
          const auto &a = ops[to], &b = ops[to - period];
          if (a.kind != b.kind || a.chunk != b.chunk || a.micro - b.micro != shift ||
              last(a) != last(b))
            break;
          ++to;
        }
        // Periods [from - period, from) and on: two are compared before any is left out.
        if (shift > 0 && to - from >= 2 * period && balanced(ops, from, period)) {
          pipeline_repeat r{period, from, to, shift, {}};
          for (std::size_t k = from; k < from + period; ++k) {
            const auto c = static_cast<std::size_t>(ops[k].chunk);
            if (r.moves.size() <= c) r.moves.resize(c + 1, false);
            r.moves[c] = true;
          }
          return r;
        }
        from = std::max(to, from + 1);
      }
    }
    return {};
  }
  // Whether ops [from, from + period) run as many forwards of each local stage as they
  // complete backwards of it, in input and in weight gradients.
  static bool balanced(const std::vector<pipeline_op>& ops, std::size_t from,
                       std::size_t period) {
    std::vector<std::array<int, 2>> count;  // forwards less input (less weight) gradients
    for (std::size_t k = from; k < from + period; ++k) {
      const auto& op = ops[k];
      const auto c = static_cast<std::size_t>(op.chunk);
      if (count.size() <= c) count.resize(c + 1, {0, 0});
      switch (op.kind) {
        case pass::forward: ++count[c][0], ++count[c][1]; break;
        case pass::backward: --count[c][0], --count[c][1]; break;
        case pass::backward_input: --count[c][0]; break;
        case pass::backward_weight: --count[c][1]; break;
      }
    }
    return std::all_of(count.begin(), count.end(),
                       [](const auto& c) { return c[0] == 0 && c[1] == 0; });
  }
  // The held_ slot of a micro-batch: its own, less those of its local stage in the periods
  // left out.
  std::size_t slot(const pipeline_op& op) const {
    const int s = shift_[static_cast<std::size_t>(op.chunk)];
    assert(op.micro >= s);
    return static_cast<std::size_t>(op.micro - s);
  }

  bool megatron_pipeline() const { return job_.parallel.kind == job::strategy::megatron; }

  bool has_loss(const pipeline_op& op) const {
    return pipe_->last_chunk_has_loss && static_cast<std::size_t>(op.chunk) + 1 == pipe_->chunks.size();
  }
  bool receives(const pipeline_op& op) const { return !(pipe_->first_chunk_has_input && op.chunk == 0); }
  static std::string tag(const pipeline_op& op, const char* part = "") {
    return fmt::format(" (micro-batch {}{})", op.micro, part);
  }

  void pipeline_forward(const pipeline_op& op) {
    const auto mb = slot(op), c = static_cast<std::size_t>(op.chunk);
    for (auto u : pipe_->chunks[c]) {
      out_.phase("forward:" + model_.units[u].name + tag(op));
      if (first_forward_)  // cuBLAS workspace: created by the first GEMM
        workspace_ = out_.alloc(options_.cublas_workspace, category::temporary);
      first_forward_ = false;
      strategy_->pre_forward(u);
      forward_unit(acts(u), held_.saved[mb][u], ckpt_[u], {u, kept_unit});
      strategy_->post_forward(u);
    }
    if (has_loss(op)) {
      // The last stage's output is the logits the model returns, and its loss reads them: the
      // stage keeps them in fwd_cache until this micro-batch's backward, so the loss's own
      // logits (its first source) stay as the stage's output instead of going once the loss has
      // read them. A loss that keeps its logits itself (compiled) or never makes them whole
      // (chunked, fused) leaves nothing more to keep; nor does Megatron-LM, whose last stage
      // outputs the loss (schedules.forward_step returns the loss as its output tensor).
      out_.phase("forward:loss" + tag(op));
      keep_logits_ = job_.parallel.kind != job::strategy::megatron;
      stage_logits_ = 0;
      strategy_->pre_loss();
      forward_unit(loss_, held_.loss_saved[mb], false, {0, kept_unit});
      keep_logits_ = false;
      held_.stage_output[mb][c] = stage_logits_;
    } else if (megatron_pipeline()) {
      // Megatron-LM frees a stage's output once it is sent, keeping only its autograd node
      // (schedules.deallocate_output_tensor; megatron/training/arguments.py,
      // core_transformer_config_from_args, sets deallocate_pipeline_outputs to True): its
      // backward runs through custom_backward on that node with the gradient received.
      auto output = out_.alloc(hidden_, category::activations);
      out_.free(output);
    } else {
      held_.stage_output[mb][c] = out_.alloc(hidden_, category::activations);
    }
  }

  void pipeline_backward(const pipeline_op& op, int micros) {
    const auto mb = slot(op), c = static_cast<std::size_t>(op.chunk);
    strategy_->begin_micro_batch(op.micro + 1 == micros);
    tensor_id grad_in = 0;
    if (has_loss(op)) {
      out_.phase("backward:loss" + tag(op));
      backward_unit(loss_, held_.loss_saved[mb], false);
      strategy_->post_loss_backward();
    } else {  // the gradient of the stage's output arrives from the next stage
      grad_in = out_.alloc(hidden_, category::communication);
    }
    out_.free(held_.stage_output[mb][c]);
    const auto& units = pipe_->chunks[c];
    for (auto it = units.rbegin(); it != units.rend(); ++it) {
      out_.phase("backward:" + model_.units[*it].name + tag(op));
      strategy_->pre_backward(*it);
      backward_unit(acts(*it), held_.saved[mb][*it], ckpt_[*it]);
      strategy_->post_backward(*it);
      out_.free(grad_in);
    }
    if (receives(op)) {  // the input's gradient, sent back to the previous stage
      auto sent = out_.alloc(hidden_, category::communication);
      out_.free(sent);
    }
    strategy_->end_backward();
  }

  // The input-gradient pass (stage_backward_input): autograd runs with retain_graph, so every
  // saved activation stays for the weight gradient, and a hook on each operation that reads a
  // weight keeps the gradient reaching it. The stage's output, detached, and the gradient
  // received for it stay in the stage's backward_state. The first stage skips the pass: its
  // weight-gradient pass runs the whole backward (backward_weight_one_chunk, stage 0).
  void pipeline_input_gradient(const pipeline_op& op) {
    if (!receives(op)) return;
    const auto mb = slot(op), c = static_cast<std::size_t>(op.chunk);
    auto& kept = held_.weight_inputs[mb][c];
    if (has_loss(op)) {  // the loss's own nodes go with the detached loss
      out_.phase("backward:loss" + tag(op, ", input gradient"));
      backward_unit(loss_, held_.loss_saved[mb], false);
      out_.free(held_.stage_output[mb][c]);
    } else {
      held_.grad_output[mb][c] = out_.alloc(hidden_, category::communication);
    }
    const auto& units = pipe_->chunks[c];
    for (auto it = units.rbegin(); it != units.rend(); ++it) {
      out_.phase("backward:" + model_.units[*it].name + tag(op, ", input gradient"));
      input_gradient_unit(acts(*it), ckpt_[*it]);
      kept.push_back(out_.alloc(weight_input_bytes_[*it], category::activations));
    }
    auto sent = out_.alloc(hidden_, category::communication);
    out_.free(sent);
  }

  // The weight-gradient pass (stage_backward_weight): from the kept gradients to the weights'
  // gradients, releasing the graph as it goes; then the backward_state goes.
  void pipeline_weight_gradient(const pipeline_op& op, int micros) {
    if (!receives(op)) return pipeline_backward(op, micros);
    const auto mb = slot(op), c = static_cast<std::size_t>(op.chunk);
    strategy_->begin_micro_batch(op.micro + 1 == micros);
    const auto& units = pipe_->chunks[c];
    for (auto it = units.rbegin(); it != units.rend(); ++it) {
      out_.phase("backward:" + model_.units[*it].name + tag(op, ", weight gradient"));
      strategy_->pre_backward(*it);
      if (ckpt_[*it]) {  // recomputed again, as the input-gradient pass did
        recompute_forward(acts(*it));
        free_all(out_, recomputed_);
      }
      free_all(out_, held_.saved[mb][*it]);
      strategy_->post_backward(*it);
    }
    free_all(out_, held_.weight_inputs[mb][c]);
    out_.free(held_.stage_output[mb][c]);
    out_.free(held_.grad_output[mb][c]);
    strategy_->end_backward();
  }

  // Resuming (checkpoint.resume): torch.load of a training checkpoint after init, before the
  // first step. The file holds what the rank saved: the whole model in its stored dtypes, or
  // the rank's shard of it when the save was sharded, and the optimizer's state and master
  // weights for the same parameters. map_location "cpu" leaves it in host memory; "cuda" puts
  // it on the rank's GPU; none restores each tensor to the device it was saved from: the
  // rank's own for a sharded save (each rank wrote its file), cuda:0 for a file rank 0 wrote,
  // which lands on GPU 0 for the other ranks of a node (predict counts it there, gpus.cpp).
  // model.load_state_dict copies into the parameters in place. optimizer.load_state_dict
  // gives each parameter its state on the parameter's device and dtype
  // (Optimizer._process_value_according_to_param_policy: a loaded tensor already there is
  // kept, a host one is copied), whatever the map_location: the state is on the GPU from the
  // resume on, before the first forward (the H200 lines ddp-resume-cpu and
  // ddp-resume-cuda-kept), made by the strategy as its first step would make it. Where the
  // strategy cannot, the loaded part is planned and dropped, and the first step makes it. The
  // weights' copy stays while the loaded dict is referenced (checkpoint.resume_kept), else
  // goes back to the cache.
  void resume() {
    const auto& c = job_.checkpoint;
    if (!c.resume) return;
    out_.phase("resume");
    const bool sharded = c.save == job::state_dict_kind::sharded && shards_parameters(job_);
    const bool here = c.resume_map_location == "cuda" ||
                      (c.resume_map_location == "none" && (sharded || ctx_.rank.local_rank() == 0));
    const auto world = static_cast<std::uint64_t>(sharded ? std::max(1, ctx_.rank.dp_shard) : 1);
    const auto& d = ctx_.lay.dtypes;
    std::vector<tensor_id> weights, optimizer;
    if (here)
      for (const auto& u : ctx_.lay.units) {
        const std::uint64_t n = ceil_div(u.trainable_numel, world);
        weights.push_back(
            out_.alloc(n * static_cast<bytes>(d.stored) + ceil_div(u.frozen_bytes, world),
                       category::parameters));
      }
    if (!strategy_->create_optimizer_state() && here)
      for (const auto& u : ctx_.lay.units) {
        const std::uint64_t n = ceil_div(u.trainable_numel, world);
        optimizer.push_back(out_.alloc(optimizer_state_bytes(job_.optimizer.kind, n, d.state) +
                                           n * static_cast<bytes>(d.master),
                                       category::optimizer));
      }
    free_all(out_, optimizer);
    if (!c.resume_kept) free_all(out_, weights);
    resumed_ = std::move(weights);
  }

  // Evaluation (eval.enabled) after the training steps: eval.steps batches of eval.micro_batch
  // through the model in eval mode. A sharding strategy gathers each unit's parameters in the
  // compute dtype for its forward and frees them after it (FSDP's unshard and reshard, ZeRO-3's
  // fetch and release). Under torch.no_grad a unit keeps nothing (its saved tensors die with
  // its forward, as a checkpointed forward's do); without it autograd keeps every unit's saved
  // tensors until the batch's outputs are dropped, at the end of the step. The model returns
  // its logits (the loss's first source, batch x seq x vocab in the compute dtype), alive to
  // the end of the step. With eval.accumulate_logits the Trainer gathers them from every
  // data-parallel rank (accelerate's gather_for_metrics, an all-gather: no copy on one rank)
  // and adds them to what it holds (EvalLoopContainer.add: the first batch's as they are, a
  // later one by nested_concat, whose torch.cat makes the larger tensor before the old one
  // goes), moving it all to the host every eval.accumulation_steps steps (never, for 0)
  // (transformers/trainer.py, evaluation_loop; trainer_pt_utils.py).
  // Under torch.autocast over fp32 weights the forward casts every weight a matmul reads and
  // caches the cast while the autocast region lasts (aten/src/ATen/autocast_mode.cpp,
  // cached_cast: a leaf that requires grad, whatever the grad mode); the region is the model's
  // forward and its loss, so in evaluation, with no backward to free them unit by unit, all the
  // casts are alive at the loss (a tied head casts the embedding's weight there). Measured
  // (ddp-eval-nograd-mb16, Qwen2.5-0.5B, bench/data/snapshots/h200-2026-11-30.tgz): at the
  // eval peak 24 x (3 x 8.3 + 2 x 1.5 + 2 x 0.2) MiB of bf16 weights and the tied head's 260 MiB.
  void evaluate() {
    if (!job_.eval.enabled || out_.stopped()) return;
    const auto& e = job_.eval;
    const bool gathers = shards_parameters(job_);
    const auto compute = static_cast<bytes>(ctx_.lay.dtypes.compute);
    const auto dp = static_cast<bytes>(std::max(
        1, ctx_.rank.world / std::max(1, ctx_.rank.tp * ctx_.rank.pp * ctx_.rank.cp)));
    const bytes logits =
        tokens_of(model_.text, *eval_job_, false).tokens() * model_.text.vocab * compute;
    tensor_id held = 0;  // predictions accumulated on the GPU
    bytes held_bytes = 0;
    // The weights whose casts autocast caches: the trainable ones the rank holds whole (a
    // sharded strategy gathers them in the compute dtype already), the embedding's lookup aside.
    const bool casts = job_.precision.autocast && !gathers;
    const std::size_t tied = tied_embedding_unit(model_, ctx_.lay);
    for (int step = 0; step < e.steps && !out_.stopped(); ++step) {
      out_.phase("eval");
      std::vector<tensor_id> kept;  // what autograd keeps without no_grad
      std::vector<tensor_id> cached;  // autocast's weight casts, to the end of the loss
      for (std::size_t u = 0; u < model_.units.size(); ++u) {
        tensor_id params = 0;
        const auto& lu = ctx_.lay.units[u];
        if (gathers)
          params = out_.alloc(lu.trainable_numel * compute + lu.frozen_gathered_bytes,
                              category::parameters);
        if (casts && lu.kind != model::unit_kind::embedding)
          for (auto id :
               alloc_each(out_, lu.trainable, ctx_.lay.dtypes.compute, category::parameters))
            cached.push_back(id);
        eval_forward(eval_acts_[u], kept, e.no_grad);
        out_.free(params);
      }
      if (casts && tied < ctx_.lay.units.size()) {
        const auto& t = ctx_.lay.units[tied].trainable;
        cached.push_back(
            out_.alloc(*std::max_element(t.begin(), t.end()) * compute, category::parameters));
      }
      keep_logits_ = true;
      stage_logits_ = 0;
      eval_forward(eval_loss_, kept, e.no_grad);
      keep_logits_ = false;
      // Without no_grad the saved matmuls keep the casts with the rest of the graph.
      if (e.no_grad)
        free_all(out_, cached);
      else
        kept.insert(kept.end(), cached.begin(), cached.end());
      tensor_id output = stage_logits_;  // the model's returned logits
      stage_logits_ = 0;
      if (e.accumulate_logits) {
        // gather_for_metrics returns the tensor itself on one rank; the container's first add
        // keeps what it is given, a later one concatenates.
        tensor_id gathered = dp > 1 ? out_.alloc(logits * dp, category::activations) : output;
        if (gathered == output) output = 0;
        if (held == 0) {
          held = gathered;
        } else {
          tensor_id grown = out_.alloc(held_bytes + logits * dp, category::activations);
          out_.free(held);
          out_.free(gathered);
          held = grown;
        }
        held_bytes += logits * dp;
        if (e.accumulation_steps > 0 && (step + 1) % e.accumulation_steps == 0) {
          out_.free(held);  // to the host (EvalLoopContainer.to_cpu_and_numpy)
          held_bytes = 0;
        }
      }
      out_.free(output);
      free_all(out_, kept);
    }
    out_.free(held);
  }

  // One unit's forward in evaluation: what it saves is allocated in op order with its
  // temporaries, and freed at once under no_grad or kept in `kept` without it.
  void eval_forward(const unit_activations& a, std::vector<tensor_id>& kept, bool no_grad) {
    recompute(a);
    transient(a.forward_temps, category::temporary);
    collectives(a);
    if (no_grad) {
      free_all(out_, recomputed_);
    } else {
      kept.insert(kept.end(), recomputed_.begin(), recomputed_.end());
      recomputed_.clear();
    }
  }

  // The evaluation batch's activations, unit by unit, as the constructor makes the training
  // ones.
  void eval_activations() {
    eval_job_ = job_;
    if (job_.eval.micro_batch > 0)
      eval_job_->training.micro_batch = static_cast<std::uint64_t>(job_.eval.micro_batch);
    eval_acts_.reserve(model_.units.size());
    for (std::size_t i = 0; i < model_.units.size(); ++i) {
      const auto& u = model_.units[i];
      const auto& s = stack_of(model_, u);
      const bool vision = model_.vision.has_value() && &s == &*model_.vision;
      saved_inputs inputs = i < ctx_.lay.units.size() ? ctx_.lay.units[i].inputs : saved_inputs{};
      if (u.kind == model::unit_kind::head) {
        eval_acts_.emplace_back();  // the loss stage's, below
        continue;
      }
      eval_acts_.push_back(activations_for(u.kind, s, *eval_job_,
                                           tokens_of(s, *eval_job_, vision), ctx_.rank.tp, inputs));
    }
    if (model_.model_type != "pi0")
      eval_loss_ = activations_for(model::unit_kind::head, model_.text, *eval_job_,
                                   tokens_of(model_.text, *eval_job_, false), ctx_.rank.tp,
                                   saved_inputs{});
  }

  std::unique_ptr<strategy> make_strategy() {
    switch (job_.parallel.kind) {
      case job::strategy::ddp:
      case job::strategy::single: return make_ddp(ctx_);
      case job::strategy::fsdp1: return make_fsdp1(ctx_);
      case job::strategy::fsdp2: return make_fsdp2(ctx_);
      case job::strategy::zero1:
      case job::strategy::zero2:
      case job::strategy::zero3: return make_zero(ctx_);
      case job::strategy::megatron: return make_megatron(ctx_);
      case job::strategy::jax: return nullptr;
    }
    return nullptr;
  }

  void forward(bool first) {
    for (std::size_t u = 0; u < model_.units.size(); ++u) {
      out_.phase("forward:" + model_.units[u].name);
      if (out_.stopped()) return;
      if (first && u == 0 && !gemm_in_steps_)  // cuBLAS workspace: created by the first GEMM
        workspace_ = out_.alloc(options_.cublas_workspace, category::temporary);
      strategy_->pre_forward(u);
      forward_unit(acts(u), saved_[u], ckpt_[u], {u, first ? recorded_unit : offloaded_unit});
      strategy_->post_forward(u);
    }
    out_.phase("forward:loss");
    strategy_->pre_loss();
    releases_previous_graph_ = true;  // as the model's output replaces the last one
    forward_unit(loss_, loss_saved_, false, {0, kept_unit});
    releases_previous_graph_ = false;
    free_all(out_, previous_graph_);  // (a loss with no output conversion)
    strategy_->end_forward();
  }

  void backward() {
    out_.phase("backward:loss");
    strategy_->begin_backward();
    backward_unit(loss_, loss_saved_, false);
    strategy_->post_loss_backward();
    for (std::size_t u = model_.units.size(); u-- > 0;) {
      out_.phase("backward:" + model_.units[u].name);
      if (out_.stopped()) return;
      strategy_->pre_backward(u);
      if (offload_.enabled())
        for (auto id : offload_.unpack(u)) saved_[u].push_back(id);
      backward_unit(acts(u), saved_[u], ckpt_[u]);
      keep_context_inputs(u);
      strategy_->post_backward(u);
    }
  }

  // The previous graph (keeps_previous_graph): the 4-bit matmuls' inputs of unit `u` outlive its
  // backward, to the next micro-batch's model output (for_each_saved releases them).
  void keep_context_inputs(std::size_t u) {
    if (!keeps_previous_graph_ || u >= ctx_.lay.units.size()) return;
    const bytes per_token = ctx_.lay.units[u].bnb_ctx_inputs_per_token;
    if (per_token == 0) return;
    const auto cp = static_cast<std::uint64_t>(std::max(1, job_.parallel.cp));
    const std::uint64_t tokens = job_.training.micro_batch * (current_length_ / cp);
    previous_graph_.push_back(out_.alloc(per_token * tokens, category::activations));
  }

  // What computing with a frozen base costs beyond the activations: bitsandbytes dequantises
  // each 4-bit / 8-bit weight into the compute dtype for its matmul, forward and backward
  // (bitsandbytes/autograd/_functions.py, MatMul4Bit); torch.autocast casts each frozen fp32
  // matrix and the matmul saves the cast for the input gradient.
  // PEFT methods save tensors of their own (DoRA's rescaled base output, IA3's scaled
  // tensor) and DoRA builds a weight-sized matrix for its norm.
  void add_frozen_compute(const job::job_spec& j) {
    const auto tokens = tokens_of(model_.text, j, false).tokens();
    for (std::size_t u = 0; u < ctx_.lay.units.size() && u < acts_of_.size(); ++u) {
      const auto& lu = ctx_.lay.units[u];
      if (lu.adapter_saved_per_token == 0 && lu.adapter_transient == 0 &&
          lu.largest_dequantised == 0 && lu.autocast_frozen_bytes == 0 && lu.float8_linears.empty())
        continue;  // nothing to add
      auto& a = lu.kind == model::unit_kind::head ? loss_ : own_acts(u);
      if (lu.adapter_saved_per_token > 0) a.saved.push_back(lu.adapter_saved_per_token * tokens);
      if (lu.adapter_transient > 0) a.forward_temps.push_back(lu.adapter_transient);
      const bool litgpt_head =
          lu.kind == model::unit_kind::head && j.training.loss == job::loss_impl::litgpt;
      if (lu.largest_dequantised > 0 && litgpt_head) {
        litgpt_dequantised_head(a, lu.largest_dequantised, lu.largest_dequantised_uncast);
      } else if (lu.largest_dequantised > 0) {
        // The fp16 copy and its cast are two tensors (dequantize_4bit, then .to).
        const bytes uncast = lu.largest_dequantised_uncast;
        for (auto* temps : {&a.forward_temps, &a.backward_temps}) {
          if (uncast > 0) temps->push_back(uncast);
          temps->push_back(lu.largest_dequantised - uncast);
        }
      }
      if (lu.autocast_frozen_bytes > 0) {
        // LitGPT's sliced head (lit_gpt/lora.py GPT.forward: `[self.lm_head(x_i) for x_i in
        // x.split(lm_head_chunk_size, dim=1)]`, 128 in finetune/lora.py) runs one matmul a
        // slice, and autocast casts the frozen weight again for each (no cache for a tensor
        // that needs no gradient): every slice's matmul keeps a cast of its own.
        const std::uint64_t casts = litgpt_head ? ceil_div(tokens_of(model_.text, j, false).seq,
                                                           std::uint64_t{128})
                                                : 1;
        for (std::uint64_t c = 0; c < casts; ++c) a.saved.push_back(lu.autocast_frozen_bytes);
      }
      add_float8_casts(lu, tokens, a);
    }
  }

  // torchao's Float8Linear (float8_linear.py, matmul_with_hp_or_float8_args) saves its input and
  // weight in high precision, as nn.Linear does, and casts them to float8 around each matmul:
  // forward holds the float8 input and weight while the matmul runs; backward casts the output
  // gradient twice (one layout per matmul) and the input once more, all alive at the weight
  // gradient's matmul, plus the weight again. A weight FSDP2 all-gathered in float8 is a
  // Float8Tensor already: no cast. With rowwise_with_gw_hp the weight gradient's matmul stays
  // in high precision (no second gradient cast, no input cast). The largest linear of a unit
  // sets its transient.
  //
  // A Transformer Engine linear (Megatron-LM) reads its weight from the float8 copy the strategy
  // keeps (megatron.cpp) and keeps its quantized input as the saved activation, so forward
  // makes no copy of its own; backward quantizes the output gradient in both layouts (one per
  // matmul).
  void add_float8_casts(const unit_layout& lu, std::uint64_t tokens, unit_activations& a) const {
    if (lu.float8_linears.empty()) return;
    if (job_.transformer_engine_float8()) {
      bytes backward = 0;
      for (const auto& l : lu.float8_linears)
        backward = std::max<bytes>(backward, 2 * tokens * l.out);
      a.backward_temps.push_back(backward);
      return;
    }
    const bool weight_is_float8 = job_.parallel.float8_all_gather;
    const bool gw_hp = job_.precision.float8 == job::float8_recipe::rowwise_with_gw_hp;
    bytes forward = 0, backward = 0;
    for (const auto& l : lu.float8_linears) {
      const bytes w = weight_is_float8 ? 0 : l.numel;
      forward = std::max<bytes>(forward, tokens * l.in + w);
      backward = std::max<bytes>(backward, gw_hp ? tokens * l.out + w : 2 * tokens * l.out + tokens * l.in + w);
    }
    a.forward_temps.push_back(forward);
    a.backward_temps.push_back(backward);
  }

  // How activation offloading treats a unit's saved tensors: the model's units are under the
  // hook (the first forward's bytes are recorded in program::offloaded), the loss is not.
  enum offload_mode { kept_unit, offloaded_unit, recorded_unit };
  struct hooked_unit {
    std::size_t index;
    offload_mode mode;
  };

  // A tensor the unit saves for backward, through the offloading hook when it is on. The
  // checkpoint's input is saved through it too (torch.utils.checkpoint, _NoopSaveInputs);
  // per-op checkpointing keeps its op outputs in its own cache, outside the hook.
  void save(bytes b, std::vector<tensor_id>& saved, hooked_unit unit) {
    if (unit.mode == kept_unit || !offload_.enabled())
      saved.push_back(out_.alloc(b, category::activations));
    else
      saved.push_back(offload_.pack(b, unit.index, unit.mode == recorded_unit));
  }

  void forward_unit(const unit_activations& a, std::vector<tensor_id>& saved, bool ckpt,
                    hooked_unit unit) {
    tensor_id input = carried_;  // the previous unit's output, when it was stepped
    carried_ = 0;
    if (ckpt && !a.checkpointed_forward.empty() && !offload_.enabled() && !pipe_) {
      if (input != 0) {
        saved.push_back(input);  // the checkpoint keeps its input
        input = 0;
      } else {
        save(a.checkpoint_input, saved, unit);
      }
      carried_ = run_steps(a);
    } else if (ckpt) {  // runs without saving: everything is transient but the input
      save(a.checkpoint_input, saved, unit);
      for (auto b : a.checkpoint_extra) saved.push_back(out_.alloc(b, category::activations));
      recompute(a);  // the forward under checkpointing saves nothing: all of it goes at once
      free_all(out_, recomputed_);
    } else if (!a.forward_in_order.empty() && !offload_.enabled()) {
      run_in_order(a.forward_in_order, saved);
    } else {
      const std::size_t hooked = a.saved.size() - std::min(a.saved.size(), a.saved_by_head);
      for_each_saved(a, [&](std::size_t i, bytes b) {
        save(b, saved, i < hooked ? unit : hooked_unit{unit.index, kept_unit});
      });
    }
    out_.free(input);  // the previous unit's output, read by this one and now dead
    transient(a.forward_temps, category::temporary);
    collectives(a);
  }

  // Plays a forward's steps (forward_step) into steps_, an id per step (0 for a free or a
  // marked matmul): allocations, frees, and the main thread's cuBLAS workspace at the forward's
  // first matmul.
  void play_forward(const std::vector<forward_step>& steps) {
    steps_.assign(steps.size(), 0);  // one id a step, 0 for a step that allocates nothing
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto& st = steps[i];
      if (st.alloc > 0)
        steps_[i] =
            out_.alloc(st.alloc, st.weight_cast ? category::parameters : category::activations);
      else if (!st.gemm)
        out_.free(steps_[st.index]);
      if (st.gemm && workspace_ == 0)
        workspace_ = out_.alloc(options_.cublas_workspace, category::temporary);
    }
  }

  // A unit's forward step by step (unit_activations::forward_in_order): what is left allocated
  // is what it saved.
  void run_in_order(const std::vector<forward_step>& steps, std::vector<tensor_id>& saved) {
    play_forward(steps);
    saved.reserve(saved.size() + steps_.size());
    for (auto id : steps_)
      if (id != 0) saved.push_back(id);
  }

  // A unit's forward that saves nothing, step by step (unit_activations::checkpointed_forward);
  // returns its output, left allocated.
  tensor_id run_steps(const unit_activations& a) {
    play_forward(a.checkpointed_forward);
    const tensor_id output = steps_[a.checkpoint_output];
    steps_[a.checkpoint_output] = 0;
    free_all(out_, steps_);
    return output;
  }

  void backward_unit(const unit_activations& a, std::vector<tensor_id>& saved, bool ckpt) {
    backward_pass(a, &saved, ckpt);
  }

  // A unit's backward step by step (unit_activations::backward_steps): the list begins with
  // what the unit saved.
  void backward_in_order(const unit_activations& a, std::vector<tensor_id>& saved) {
    temps_.assign(saved.begin(), saved.end());
    saved.clear();
    for (const auto& st : a.backward_steps) {
      if (st.alloc > 0) {
        temps_.push_back(out_.alloc(st.alloc, category::temporary));
      } else {
        if (!st.gemm) out_.free(temps_[st.index]);  // (a marked matmul allocates nothing here)
        temps_.push_back(0);
      }
      if (st.gemm) backward_gemm();
    }
    free_all(out_, temps_);
    collectives(a);
  }

  // The autograd engine runs a CUDA backward on its own device thread (torch/csrc/autograd/
  // engine.cpp, a thread per device), and cuBLAS handles are per thread (aten/src/ATen/cuda/
  // CublasHandlePool.cpp: a thread_local PoolWindow reserves the thread's handle) with a
  // workspace per handle and stream: the first matmul of the first backward creates a second
  // workspace, kept for the process. Every allocator history of bench/data/snapshots ends with
  // two 32 MiB blocks, the second made just after the head's first gradient.
  void backward_gemm() {
    if (backward_workspace_ == 0 && job_.framework.name != "jax")  // XLA: one program, no thread
      backward_workspace_ = out_.alloc(options_.cublas_workspace, category::temporary);
  }

  // backward_unit less the release of what the unit saved (or, checkpointed, its input).
  void input_gradient_unit(const unit_activations& a, bool ckpt) { backward_pass(a, nullptr, ckpt); }

  // A unit's backward: recompute when checkpointed, the backward temporaries, then release the
  // recomputed tensors, what the unit saved (unless `saved` is null) and the temporaries.
  void backward_pass(const unit_activations& a, std::vector<tensor_id>* saved, bool ckpt) {
    if (!a.backward_steps.empty() && saved != nullptr && !ckpt) return backward_in_order(a, *saved);
    // Scratch lists kept across units: they hold ids only for the length of one call.
    recomputed_.clear();
    if (ckpt) recompute_forward(a);
    temps_.clear();
    for (auto b : a.backward_temps) temps_.push_back(out_.alloc(b, category::temporary));
    backward_gemm();  // where no op order says which matmul is first
    free_all(out_, recomputed_);
    if (saved != nullptr) free_all(out_, *saved);
    free_all(out_, temps_);
    collectives(a);
  }

  // A checkpointed unit's forward run again in backward: what it saves, into recomputed_, and
  // its forward temporaries.
  void recompute_forward(const unit_activations& a) {
    recompute(a);
    transient(a.forward_temps, category::temporary);
  }

  // What the unit saves, allocated in op order into recomputed_ (a checkpointed forward, or its
  // recomputation in backward).
  void recompute(const unit_activations& a) {
    recomputed_.clear();
    for_each_saved(a, [&](std::size_t, bytes b) { recomputed_.push_back(out_.alloc(b, category::activations)); });
  }

  // Calls `keep(i, bytes)` for each saved tensor in order, with the temporaries around
  // saved[saved_from_at] allocated and freed in op order.
  template <typename Keep>
  void for_each_saved(const unit_activations& a, Keep keep) {
    for (std::size_t i = 0; i < a.saved.size(); ++i) {
      if (i == a.saved_steps_at && !a.saved_steps.empty()) {
        i = keep_in_order(a, i, keep);
        if (i >= a.saved.size()) break;
      }
      const bool around =
          i == a.saved_from_at && !(a.saved_from.empty() && a.gathered_from.empty() &&
                                    a.saved_scratch.empty() && a.saved_after.empty());
      if (around) {
        sources_.clear();
        gathered_.clear();
        for (auto b : a.gathered_from) gathered_.push_back(out_.alloc(b, category::temporary));
        for (std::size_t k = 0; k < a.saved_from.size(); ++k) {
          if (k == 0 && keep_logits_)  // a pipeline stage's output (pipeline_forward)
            stage_logits_ = out_.alloc(a.saved_from[k], category::activations);
          else
            sources_.push_back(out_.alloc(a.saved_from[k], category::temporary));
          if (k == 0) release_last_first(gathered_);  // assembled: its parts go
        }
        release_last_first(gathered_);  // no saved_from to assemble: they go now
        transient(a.saved_scratch, category::temporary);
      }
      keep(i, a.saved[i]);
      if (around) {
        for (auto b : a.saved_after) sources_.push_back(out_.alloc(b, category::temporary));
        release_last_first(sources_);
        if (releases_previous_graph_) free_all(out_, previous_graph_);
      }
    }
  }

  // Plays unit_activations::saved_steps from saved[first] on: the allocations no later step
  // frees are kept (keep(i, bytes)), the others are temporaries. Returns the index of the first
  // saved tensor after them.
  template <typename Keep>
  std::size_t keep_in_order(const unit_activations& a, std::size_t first, Keep keep) {
    const auto& steps = a.saved_steps;
    kept_step_.assign(steps.size(), true);
    for (const auto& st : steps)
      if (st.alloc == 0 && !st.gemm && st.index < kept_step_.size()) kept_step_[st.index] = false;
    steps_.assign(steps.size(), 0);
    std::size_t i = first;
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const auto& st = steps[k];
      if (st.alloc > 0 && kept_step_[k]) {
        if (i < a.saved.size()) keep(i, a.saved[i]);  // the step's own size (tested)
        ++i;
      } else if (st.alloc > 0) {
        steps_[k] = out_.alloc(st.alloc, category::temporary);
      } else if (!st.gemm) {
        out_.free(steps_[st.index]);
      }
    }
    return i;
  }

  void release_last_first(std::vector<tensor_id>& ids) {
    for (auto it = ids.rbegin(); it != ids.rend(); ++it) out_.free(*it);
    ids.clear();
  }

  void transient(const std::vector<bytes>& sizes, category cat) {
    transient_.clear();
    for (auto b : sizes) transient_.push_back(out_.alloc(b, cat));
    free_all(out_, transient_);
  }

  // Tensor-parallel collectives: asynchronous functional collectives whose buffers are freed
  // through record_stream on the NCCL stream when the torch version does so
  // (collectives_record_stream).
  void collectives(const unit_activations& a) {
    for (int c = 0; c < a.tp_collectives; ++c) {
      auto buffer = out_.alloc(a.tp_buffer, category::communication);
      if (record_stream_) out_.record_stream(buffer, streams::nccl);
      out_.free(buffer);
    }
  }

  const model::model_spec& model_;
  const job::job_spec& job_;
  schedule_options options_;
  std::optional<pipeline_part> pipe_;
  program_builder out_;
  bool place_read_ = false;  // building read the rank's place in the mesh (rank_info)
  std::shared_ptr<const layout> layout_;
  step_context ctx_;
  strategy* strategy_ = nullptr;
  // Each unit's activations, acts_[acts_of_[u]]: units alike share one entry until
  // add_frozen_compute changes one of them (own_acts).
  std::vector<unit_activations> acts_;
  std::vector<std::size_t> acts_of_;
  [[nodiscard]] const unit_activations& acts(std::size_t u) const { return acts_[acts_of_[u]]; }
  unit_activations& own_acts(std::size_t u) {
    const std::size_t shared = acts_of_[u];
    for (std::size_t v = 0; v < acts_of_.size(); ++v)
      if (v != u && acts_of_[v] == shared) {
        acts_of_[u] = acts_.size();
        acts_.push_back(acts_[shared]);
        break;
      }
    return acts_[acts_of_[u]];
  }
  std::vector<bool> ckpt_;
  unit_activations loss_;
  std::vector<std::vector<tensor_id>> saved_;
  std::vector<tensor_id> loss_saved_;
  std::vector<tensor_id> steps_;  // run_steps' ids, by step
  tensor_id carried_ = 0;         // a stepped unit's output, the next unit's input
  tensor_id workspace_ = 0;
  tensor_id backward_workspace_ = 0;  // the autograd thread's cuBLAS workspace
  bool gemm_in_steps_ = false;        // a unit's forward_in_order marks the forward's first matmul
  std::vector<tensor_id> recomputed_, temps_, transient_, sources_,
      gathered_;  // the passes' scratch
  // run_pipeline's: what a pass leaves for a later one, per micro-batch.
  struct pipeline_held {
    std::vector<std::vector<std::vector<tensor_id>>> saved;          // [micro][unit]
    std::vector<std::vector<tensor_id>> loss_saved;                  // [micro]
    std::vector<std::vector<tensor_id>> stage_output;                // [micro][chunk]
    std::vector<std::vector<tensor_id>> grad_output;                 // [micro][chunk], I to W
    std::vector<std::vector<std::vector<tensor_id>>> weight_inputs;  // [micro][chunk], I to W
  } held_;
  std::vector<bytes> weight_input_bytes_;  // per unit: what an input-gradient pass keeps
  bytes hidden_ = 0;                       // one micro-batch's hidden states
  std::vector<bool> kept_step_;            // keep_in_order's: which steps stay allocated
  // LitGPT's previous graph (keeps_previous_graph): what it holds, and whether the loss's
  // forward running now releases it once the model's output exists.
  bool keeps_previous_graph_ = false;
  bool releases_previous_graph_ = false;
  std::vector<tensor_id> previous_graph_;
  bool keep_logits_ = false;               // for_each_saved keeps the loss's first source...
  tensor_id stage_logits_ = 0;             // ...as this id
  bool first_forward_ = true;
  // Per local stage: its micro-batches in the pipeline's steady periods left out in this step.
  std::vector<int> shift_;
  bool record_stream_ = false;
  activation_offloader offload_;
  // Outside the training step: the resumed weights' copy (kept while referenced), and the
  // evaluation batch's job and activations (eval.enabled only).
  std::vector<tensor_id> resumed_;
  // Variable lengths (training.lengths): each step's length, the last step of each length, the
  // lengths closed at the state now and how many later steps draw that are not
  // (all_lengths_closed), the length of acts_, acts_of_ and
  // loss_, and the other lengths' activations (use_length).
  std::vector<std::uint64_t> lengths_;
  std::map<std::uint64_t, int> last_step_of_;  // each length's last step
  std::size_t open_ = 0;
  std::set<std::uint64_t> closed_;
  std::uint64_t current_length_ = 0;
  struct activation_set {
    std::vector<unit_activations> acts;
    std::vector<std::size_t> of;
    unit_activations loss;
  };
  std::map<std::uint64_t, activation_set> by_length_;
  std::optional<job::job_spec> eval_job_;
  std::vector<unit_activations> eval_acts_;
  unit_activations eval_loss_;
};

}  // namespace

bool collectives_record_stream(const job::job_spec& job) {
  if (job.framework.name != "torch") return false;
  // Under async TP (parallel.async_tp) inductor's micro-pipeline pass fuses each all-gather with
  // the matmuls it feeds and each reduce-scatter with the matmul before it
  // (torch/_inductor/fx_passes/micro_pipeline_tp.py; symm_mem.fused_all_gather_matmul,
  // fused_matmul_reduce_scatter): they copy through the symmetric-memory workspace on the
  // current and one backend stream, with no NCCL stream and no record_stream.
  if (job.parallel.async_tp) return false;
  const int v = version_number(job.framework.version);
  if (v >= version_number("2.8")) return false;  // stashing always on from 2.8
  return job.env_value("TORCH_NCCL_AVOID_RECORD_STREAMS") != "1";
}

namespace {

// LitGPT's GPT builds its head as a Linear of its own and never ties it to the embedding
// (litgpt/model.py and lora.py, GPT.__init__; only pretrain.py ties them, under
// train.tie_embeddings), and its converter copies the embedding into lm_head.weight where a
// Hugging Face checkpoint has none (scripts/convert_hf_checkpoint.py, copy_weights_hf_llama,
// which Llama, Gemma and Mistral use): a tied model fine-tuned with LitGPT holds the table twice,
// the head's copy trained, quantised or wrapped as any Linear.
bool unties_head(const model::model_spec& model, const job::job_spec& job) {
  return job.training.model_code == job::model_impl::litgpt && model.text.tied_embeddings;
}

result<program> build(const model::model_spec& given, const job::job_spec& job, int rank,
                      const schedule_options& options, program_watcher* watcher) {
  const bool untie = unties_head(given, job);
  const model::model_spec untied = untie ? model::with_own_head(given) : model::model_spec{};
  const model::model_spec& model = untie ? untied : given;
  if (rank < 0 || rank >= job.world_size())
    return error_at("job", "rank " + std::to_string(rank) + " is outside the job's " +
                               std::to_string(job.world_size()) + " ranks");
  if (auto checked = job::check_against_model(job, model); !checked) return checked.error();
  if (job.parallel.pp <= 1) {
    driver d(model, job, rank, options, std::nullopt, watcher);
    if (job.training.lengths != "fixed") {
      auto lengths = job::length_distribution_of(job);
      if (!lengths) return lengths.error();
      d.set_lengths(job::draw_lengths(*lengths, std::max(1, job.training.steps),
                                      static_cast<std::uint64_t>(job.training.length_seed)));
    }
    return d.run();
  }
  // Pipeline parallelism: this rank plans its own stages as a model of their units.
  const int pp = job.parallel.pp;
  const int per_rank = job::stages_per_rank(job, model);
  auto stages = stage_of_units(model, pp * per_rank,
                               job.parallel.kind == job::strategy::megatron
                                   ? pipeline_split::megatron
                                   : pipeline_split::torchtitan);
  if (!stages) return stages.error();
  const int pp_rank = make_rank_info(job, rank).pp_rank();
  model::model_spec part = model;
  part.units.clear();
  part.tensors.clear();
  pipeline_part pipe;
  pipe.chunks.resize(static_cast<std::size_t>(per_rank));
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < model.units.size(); ++i) {
    const int stage = (*stages)[i];
    if (pipeline_rank_of_stage(stage, pp, job.parallel.pp_sched) != pp_rank) continue;
    pipe.chunks[static_cast<std::size_t>(stage / pp)].push_back(part.units.size());
    part.units.push_back(model.units[i]);
    kept.push_back(model.units[i].name);
    if (stage == pp * per_rank - 1) pipe.last_chunk_has_loss = true;
    if (stage == 0) pipe.first_chunk_has_input = true;
  }
  for (const auto& t : model.tensors)
    if (std::find(kept.begin(), kept.end(), t.unit) != kept.end()) part.tensors.push_back(t);
  pipe.ops = pipeline_ops(job.parallel.pp_sched, pp, pp_rank, per_rank,
                          job.training.gradient_accumulation);
  driver d(part, job, rank, options, std::move(pipe), watcher);
  return d.run();
}

}  // namespace

result<program> build_program(const model::model_spec& model, const job::job_spec& job, int rank,
                              const schedule_options& options) {
  return build(model, job, rank, options, nullptr);
}

result<program> build_program(const model::model_spec& model, const job::job_spec& job, int rank,
                              const schedule_options& options, program_watcher& watcher) {
  return build(model, job, rank, options, &watcher);
}

parameter_split split_parameters(const model::model_spec& model, const job::job_spec& job) {
  if (unties_head(model, job))
    return split_of(make_layout(model::with_own_head(model), job, make_rank_info(job, 0)));
  return split_of(make_layout(model, job, make_rank_info(job, 0)));
}

// Pipeline stages hold different units: the first rank of each stage represents it, and rank 1
// the ranks of the first stage other than rank 0.
std::vector<int> representative_ranks(const job::job_spec& job) {
  if (job.world_size() <= 1) return {0};
  const int pp = std::max(1, job.parallel.pp);
  const int per_stage = job.world_size() / pp;
  std::vector<int> out{0, 1};
  for (int s = 1; s < pp; ++s)
    if (s * per_stage != 1) out.push_back(s * per_stage);
  return out;
}

int representative_of(const job::job_spec& job, int rank) {
  const int pp = std::max(1, job.parallel.pp);
  const int per_stage = std::max(1, job.world_size() / pp);
  const int stage = rank / per_stage;
  if (stage == 0) return rank == 0 ? 0 : 1;
  return stage * per_stage;
}

}  // namespace vramscope::schedule
