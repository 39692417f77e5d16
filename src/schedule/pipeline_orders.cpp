// Facts: torch/distributed/pipelining/schedules.py (_get_warmup_ops, _get_1f1b_rank_ops with
// enable_zero_bubble, ScheduleInterleavedZeroBubble, ScheduleZBVZeroBubble, ScheduleDualPipeV),
// rewritten from the algorithms: each loop below is one phase of upstream's order.
#include "schedule/pipeline_orders.hpp"

#include <algorithm>
#include <array>
#include <deque>

namespace vramscope::schedule {

namespace {

// Per-chunk counters: each local stage numbers its own forwards, input and weight gradients.
struct pass_counters {
  std::array<int, 2> f{}, i{}, w{};
};

int& count_of(std::array<int, 2>& count, int chunk) { return count[static_cast<std::size_t>(chunk)]; }

}  // namespace

std::vector<pipeline_op> interleaved_zero_bubble_ops(int pp, int rank, int stages, int micros) {
  const int rounds = std::max(1, micros / pp);
  const int per_round = micros / rounds;
  const int total = stages * micros;
  // One warm-up forward per hop from the last rank (multiply_factor 1), capped at all of them.
  const int warmup = std::min((stages - 1) * per_round + (pp - 1 - rank), total);
  const auto forward_chunk = [&](int step) { return (step / per_round) % stages; };
  const auto backward_chunk = [&](int step) {
    return stages - 1 - ((step - warmup) / per_round) % stages;
  };
  std::vector<int> f(static_cast<std::size_t>(stages)), b(f), w(f);
  auto next = [](std::vector<int>& count, int chunk) {
    return count[static_cast<std::size_t>(chunk)]++;
  };
  std::vector<pipeline_op> ops;
  std::vector<int> backward_steps;
  std::size_t weights = 0;
  auto weight = [&] {
    const int chunk = backward_chunk(backward_steps[weights++]);
    ops.push_back({pass::backward_weight, chunk, next(w, chunk)});
  };
  for (int step = 0; step < warmup + total; ++step) {
    if (step < total) {  // warm-up and steady phases run a forward
      const int chunk = forward_chunk(step);
      ops.push_back({pass::forward, chunk, next(f, chunk)});
    }
    if (step < warmup) continue;
    const int chunk = backward_chunk(step);
    ops.push_back({pass::backward_input, chunk, next(b, chunk)});
    backward_steps.push_back(step);
    // The first `rank` backwards wait for their weight gradient (num_1f1b_microbatches).
    if (step - warmup >= rank) weight();
  }
  while (weights < backward_steps.size()) weight();
  return ops;
}

std::vector<pipeline_op> zbv_zero_bubble_ops(int pp, int rank, int micros) {
  const int n = std::max(2 * pp - 1, micros);
  pass_counters c;
  std::vector<pipeline_op> ops;
  auto add = [&](pass kind, int chunk, int micro) {
    if (micro < micros) ops.push_back({kind, chunk, micro});
  };
  auto forward = [&](int chunk) { add(pass::forward, chunk, count_of(c.f, chunk)++); };
  auto input = [&](int chunk) { add(pass::backward_input, chunk, count_of(c.i, chunk)++); };
  auto weight = [&](int chunk) { add(pass::backward_weight, chunk, count_of(c.w, chunk)++); };
  for (int k = 0; k < 2 * (pp - rank) - 1; ++k) forward(0);
  for (int k = 0; k < rank; ++k) {
    forward(1);
    forward(0);
  }
  for (int k = 0; k < pp - rank; ++k) {
    forward(1);
    input(1);
    weight(1);
  }
  while (c.f[1] < c.f[0] || c.f[0] < n) {  // steady: both chunks, F I W each
    if (c.f[0] < n) forward(0);
    input(0);
    weight(0);
    forward(1);
    input(1);
    weight(1);
  }
  for (int k = 0; k < rank; ++k) {  // cool-down: input gradients first, weights after
    input(0);
    input(1);
  }
  for (int k = 0; k < pp - rank; ++k) {
    input(0);
    weight(0);
  }
  while (c.w[1] < c.i[1]) weight(1);
  while (c.w[0] < c.i[0]) weight(0);
  return ops;
}

std::vector<pipeline_op> dualpipev_ops(int pp, int rank, int micros) {
  pass_counters c;
  std::deque<std::pair<int, int>> pending;  // input gradients awaiting their weight gradient
  std::vector<pipeline_op> ops;
  auto forward = [&](int chunk) { ops.push_back({pass::forward, chunk, count_of(c.f, chunk)++}); };
  auto input = [&](int chunk) {  // I: its W is queued
    pending.emplace_back(chunk, count_of(c.i, chunk));
    ops.push_back({pass::backward_input, chunk, count_of(c.i, chunk)++});
  };
  auto full = [&](int chunk) {  // B: numbered with the input gradients
    ops.push_back({pass::backward, chunk, count_of(c.i, chunk)++});
  };
  auto backward = [&](int chunk, bool split) { split ? input(chunk) : full(chunk); };
  auto weight = [&] {
    if (pending.empty()) return;
    ops.push_back({pass::backward_weight, pending.front().first, pending.front().second});
    pending.pop_front();
  };
  for (int k = 0; k < 2 * (pp - rank - 1); ++k) forward(0);
  for (int k = 0; k < rank + 1; ++k) {
    forward(0);
    forward(1);
  }
  for (int k = 0; k < pp - rank - 1; ++k) {  // I1 W F1: zero bubble
    input(1);
    weight();
    forward(1);
  }
  for (int k = 0; k < micros - 2 * pp + rank + 1; ++k) {  // F0 B1 and F1 B0, overlapped
    forward(0);
    full(1);
    forward(1);
    full(0);
  }
  for (int k = 0; k < pp - rank - 1; ++k) {  // B1, then F1 B0 overlapped
    full(1);
    forward(1);
    full(0);
  }
  // B1 B0: the second half splits its backwards (odd ranks from the first chunk's, even ranks
  // from the second's), and every later backward of chunk 0 stays split.
  const int last = rank + 1;
  bool split = false;
  for (int k = 0; k < last; ++k) {
    if (k == last / 2 && rank % 2 == 1) split = true;
    backward(1, split);
    if (k == last / 2 && rank % 2 == 0) split = true;
    backward(0, split);
  }
  for (int k = 0; k < pp - rank - 1; ++k) {
    weight();
    backward(0, split);
  }
  while (!pending.empty()) weight();
  return ops;
}

}  // namespace vramscope::schedule
