#pragma once
// Builds a model_spec one tensor at a time, llm.c style: family code calls begin_unit() then
// add() for each tensor in checkpoint order. The builder checks sizes as it goes (no shape
// product may overflow, the inventory stays below max_inventory_tensors) and computes the
// units' totals at the end.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::model::detail {

class inventory_builder {
 public:
  /// `type` is the dtype given to every tensor added.
  explicit inventory_builder(dtype type);

  /// Starts unit `name`; the tensors added next belong to it.
  void begin_unit(std::string name, unit_kind kind);
  /// Adds a tensor to the current unit. Requires: begin_unit was called.
  void add(std::string name, std::vector<std::uint64_t> shape);

  /// True once the inventory is too large; later add() calls are ignored.
  [[nodiscard]] bool full() const { return problem_.has_value(); }

  /// The model being built; family code fills its stacks directly.
  model_spec& spec() { return spec_; }

  /// The finished model, or an error naming `source` when it grew too large.
  result<model_spec> finish(const std::string& source);

 private:
  model_spec spec_;
  std::uint64_t total_ = 0;
  std::optional<std::string> problem_;
};

/// Adds "<base>.weight" [rows, cols] and, when `bias`, "<base>.bias" [rows]: a Linear layer.
void add_linear(inventory_builder& out, const std::string& base, std::uint64_t rows,
                std::uint64_t cols, bool bias);

/// Adds "<base>.weight" and "<base>.bias" [width]: an nn.LayerNorm.
void add_layer_norm(inventory_builder& out, const std::string& base, std::uint64_t width);

}  // namespace vramscope::model::detail
