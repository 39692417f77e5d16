#pragma once
// What print(torch.cuda.memory_stats()) shows: Python's repr of the dict, not JSON. Older
// releases return an OrderedDict ("OrderedDict([('active.all.allocated', 5), ...])"), newer ones
// a dict with single-quoted keys ("{'active.all.allocated': 5, ...}");
// memory_stats_as_nested_dict() prints nested dicts. This rewrites such text as JSON, line for
// line (every line break is kept), so the JSON reader's positions, checks and reading of a text
// cut short apply unchanged.

#include <optional>
#include <string>
#include <string_view>

#include <vramscope/core/result.hpp>

namespace vramscope::observe::detail {

/// Whether `text` (after white space and a byte-order mark) starts as a Python repr of a dict:
/// "OrderedDict(", or "{" / "[{" whose first key is quoted with '.
bool looks_like_python_repr(std::string_view text);

/// The JSON text of a Python repr made of dicts, OrderedDict([(key, value), ...]), lists, tuples
/// (as lists), strings in ' or ", numbers, True, False and None. A text that ends early (a paste
/// cut short) gives JSON that ends at the same place. Fails, naming the line and column, on any
/// other name or call (a tensor(...), a defaultdict) and on a character no repr holds.
result<std::string> python_repr_as_json(std::string_view text, const std::string& source);

}  // namespace vramscope::observe::detail
