#pragma once
// Looking tensors up in a model_spec by checkpoint name, for the family tests.

#include <vramscope/model/model_spec.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace vramscope::model {

using shape = std::vector<std::uint64_t>;

/// The tensor named `name`, or nullptr.
inline const tensor* find(const model_spec& spec, const std::string& name) {
  const auto it = std::find_if(spec.tensors.begin(), spec.tensors.end(),
                               [&](const tensor& t) { return t.name == name; });
  return it == spec.tensors.end() ? nullptr : &*it;
}

/// The shape of the tensor named `name`; a test failure (and an empty shape) when absent.
inline shape shape_of(const model_spec& spec, const std::string& name) {
  const tensor* t = find(spec, name);
  EXPECT_NE(t, nullptr) << name;
  return t ? t->shape : shape{};
}

}  // namespace vramscope::model
