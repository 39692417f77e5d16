#include "model/inventory_builder.hpp"

#include <fmt/format.h>

#include <vector>

#include <vramscope/model/config_reader.hpp>

namespace vramscope::model::detail {

namespace {

// 10^15 parameters is far beyond any model, and keeps bytes (x8 for fp64) inside 64 bits.
constexpr std::uint64_t max_parameters = 1'000'000'000'000'000;

std::optional<std::uint64_t> checked_numel(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  return n;
}

}  // namespace

inventory_builder::inventory_builder(dtype type) { spec_.type = type; }

void inventory_builder::begin_unit(std::string name, unit_kind kind) {
  if (full()) return;
  spec_.units.push_back(unit{std::move(name), kind, 0, 0});
}

void inventory_builder::add(std::string name, std::vector<std::uint64_t> shape) {
  VRAMSCOPE_EXPECTS(!spec_.units.empty(), "inventory_builder::add before begin_unit");
  if (full()) return;
  if (spec_.tensors.size() >= max_inventory_tensors) {
    problem_ = fmt::format("the model has more than {} tensors", max_inventory_tensors);
    return;
  }
  const auto numel = checked_numel(shape);
  if (!numel || __builtin_add_overflow(total_, *numel, &total_) || total_ > max_parameters) {
    problem_ = fmt::format("the model has more than {} parameters (at tensor \"{}\" {})",
                           format_count(max_parameters), name, format_shape(shape));
    return;
  }
  spec_.tensors.push_back(
      tensor{std::move(name), std::move(shape), spec_.type, spec_.units.back().name});
}

result<model_spec> inventory_builder::finish(const std::string& source) {
  if (problem_) return error_at(source, *problem_ + ", which no real checkpoint has");
  if (spec_.tensors.empty()) return error_at(source, "the configuration describes no tensors");
  std::erase_if(spec_.units, [this](const unit& u) {
    for (const auto& t : spec_.tensors)
      if (t.unit == u.name) return false;
    return true;
  });
  recompute_units(spec_);
  return std::move(spec_);
}

void add_linear(inventory_builder& out, const std::string& base, std::uint64_t rows,
                std::uint64_t cols, bool bias) {
  out.add(base + ".weight", {rows, cols});
  if (bias) out.add(base + ".bias", {rows});
}

void add_layer_norm(inventory_builder& out, const std::string& base, std::uint64_t width) {
  out.add(base + ".weight", {width});
  out.add(base + ".bias", {width});
}

}  // namespace vramscope::model::detail
