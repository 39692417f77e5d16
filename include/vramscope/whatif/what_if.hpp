#pragma once
// The what-if engine (module whatif) that `compare` and `fit` share: the job file (or imported config) is read
// and its model loaded once; each row applies its own "key=value" settings to a copy of that job,
// resolves it exactly as `plan --set` would, and plans it. Rows run on all cores.
//
// A row's figures are those of its busiest rank (predict::busiest_rank). A row that does not fit
// is planned a second time on a GPU of unlimited memory (no memory fraction either) when asked,
// so that it shows what it would need rather than the state at the out-of-memory error.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/core/units.hpp>
#include <vramscope/import/importers.hpp>
#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/predict/prediction.hpp>
#include <vramscope/schedule/event.hpp>

namespace vramscope::whatif {

/// A row's settings as the tables show them: "key=value key=value".
std::string settings_text(const std::vector<std::string>& settings);

struct row_outcome {
  std::vector<std::string> settings;  // the row's "key=value" items
  bool fits = false;                  // plan's verdict
  bytes capacity = 0;                 // device memory of one GPU
  bytes reserved = 0, device = 0;     // as planned on the device (at the OOM when it fails)
  std::optional<bytes> need;          // device memory the row needs: `device` when it fits,
                                      // else planned with unlimited memory (when asked for)
  bytes host = 0;                     // host memory of offloaded state per rank
  double recompute = 0;               // cost proxy: see recompute_share()
  bytes network = 0;                  // cost proxy: see network_per_step()
  std::uint64_t tokens = 0;           // tokens the job trains per step: see tokens_per_step()
  double network_per_token = 0;       // bytes all ranks send per token trained: network x
                                      // ranks / tokens; fit --try ranks by it
  predict::verdict_facts verdict;     // report::verdict_line words it
  /// When the row changes parallel.strategy: the base job's options carried over to their
  /// counterparts, or dropped where the row's strategy has none ("parallel.strategy=fsdp2:
  /// parallel.sync_module_states dropped (applies to fsdp1 only ...)").
  std::vector<std::string> notes;
  /// compare: why the job rules refuse this row's combination (diagnostic text); such a row has
  /// no figures. Empty for a planned row.
  std::string refused;

  /// fits, tight (fits with less headroom than the job's safety margin) or does_not_fit.
  [[nodiscard]] predict::fit_state state() const { return verdict.state(); }

  /// capacity - need, negative for a shortfall. Requires: need.
  [[nodiscard]] std::int64_t headroom() const {
    return static_cast<std::int64_t>(capacity) - static_cast<std::int64_t>(need.value());
  }
};

/// The share of a step's FLOPs spent recomputing the forward pass for activation checkpointing:
/// a step is about 3 forwards (forward 1, backward 2); full checkpointing adds one forward of
/// every block (1/3), selective every Nth block (1/(3N)), torchtitan's per-op policy about half
/// of the matmuls (1/6, it saves every second one). Recomputing core attention
/// (core_attention) repeats its two sequence x sequence matmuls, 4 b s^2 h FLOPs of a layer's
/// 72 b s h^2 + 12 b s^2 h a step (Korthikanti et al. 2022, section 5's counts): s / (18 h + 3 s)
/// for `model`'s hidden size h. 0 without checkpointing.
double recompute_share(const job::job_spec& job, const model::model_spec& model);

/// Tokens the whole job trains per optimizer step: micro-batch x sequence length x
/// micro-batches per step x data-parallel groups (world / (tp x pp x cp); tensor, pipeline and
/// context parallel ranks share their sequences).
std::uint64_t tokens_per_step(const job::job_spec& job);

/// Bytes one rank sends over the network per optimizer step in its collectives, with ring
/// algorithms (an all-gather or a reduce-scatter over n ranks sends (n-1)/n of the buffer, an
/// all-reduce twice that): DDP all-reduces the gradients; FSDP and ZeRO-3 all-gather the
/// parameters (frozen ones too) in forward and again in backward unless they stay unsharded
/// between them, and reduce-scatter the gradients; ZeRO-1/2 reduce-scatter the gradients and
/// all-gather the updated parameters; HSDP adds an all-reduce of the gradient shards across
/// replicas; tensor parallelism all-reduces each block's activations twice in forward and twice
/// in backward (again in recomputed forwards). Gradients go once per micro-batch, or once per
/// step under no_sync. JAX jobs: 0 (not modelled).
bytes network_per_step(const model::model_spec& model, const job::job_spec& job);
/// The same, given schedule::split_parameters(model, job) (prediction::parameters_split).
bytes network_per_step(const model::model_spec& model, const job::job_spec& job,
                       const schedule::parameter_split& split);

class what_if {
 public:
  /// Reads the job at `path` (or imports `from`) with `overrides` set for every row, and loads
  /// its model. Fails as plan would on the same input.
  static result<what_if> open(const std::string& path, const std::vector<std::string>& overrides,
                              const std::string& from);

  /// Checks that each setting is valid input on its own (a known key, a value of its type),
  /// without resolving: what is left to fail in a row is the combination. Errors name `option`.
  [[nodiscard]] status check_settings(const std::vector<std::string>& settings,
                                      const std::string& option) const;

  /// The job of one row, resolved and checked against its model. A setting that is not valid
  /// input is a diagnostic whose source is `option` ("--vary", "--try", "--maximize"). A row
  /// that changes parallel.strategy has the base job's strategy options translated first
  /// (row_outcome::notes).
  /// Thread-safe.
  [[nodiscard]] result<job::job_spec> job_with(const std::vector<std::string>& settings,
                                               const std::string& option) const;

  /// Plans one row. `need_when_missing`: plan a row that does not fit again with unlimited
  /// memory to fill `need`. Thread-safe.
  [[nodiscard]] result<row_outcome> evaluate(const std::vector<std::string>& settings,
                                             const std::string& option,
                                             bool need_when_missing) const;

  /// Fills `need` of a row evaluated without it. Thread-safe.
  [[nodiscard]] status fill_need(row_outcome& row, const std::string& option) const;

  /// evaluate() for every row, on `threads` threads (0: one per core). Results in row order.
  [[nodiscard]] std::vector<result<row_outcome>> evaluate_all(
      const std::vector<std::vector<std::string>>& rows, const std::string& option,
      bool need_when_missing, unsigned threads = 0) const;

  /// The job with no row settings, resolved.
  [[nodiscard]] const job::job_spec& base_job() const { return resolved_; }
  [[nodiscard]] const model::model_spec& model() const { return *model_; }
  [[nodiscard]] const warnings& notes() const { return notes_; }

 private:
  struct row_job {
    job::job_spec job;
    std::shared_ptr<const model::model_spec> model;
    std::vector<std::string> notes;  // how the base job's options met a new strategy
  };
  [[nodiscard]] result<row_job> resolve_row(const std::vector<std::string>& settings,
                                            const std::string& option) const;

  std::string path_;
  std::vector<std::string> overrides_;
  bool imported_ = false;             // base_ was imported and is already resolved
  job::job_spec base_;                // the job before the row's settings
  job::job_spec resolved_;            // base_ resolved
  std::shared_ptr<const model::model_spec> model_;
  std::vector<job::hidden_size_auto> autos_;
  warnings notes_;
};

}  // namespace vramscope::whatif
