#pragma once
// The last few entries of a per-thread cache: appended until it holds `capacity`, then each new
// one in place of the oldest.

#include <cstddef>
#include <utility>
#include <vector>

namespace vramscope::schedule {

template <typename T>
void keep_last(std::vector<T>& cache, std::size_t& oldest, std::size_t capacity, T entry) {
  if (cache.size() < capacity) {
    cache.push_back(std::move(entry));
    return;
  }
  cache[oldest] = std::move(entry);
  oldest = (oldest + 1) % capacity;
}

}  // namespace vramscope::schedule
