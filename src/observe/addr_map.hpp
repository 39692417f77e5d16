#pragma once
// A hash map from device addresses to small records, for replaying millions of trace entries:
// open addressing with linear probing and backward-shift deletion (no tombstones), so lookups
// stay fast however many blocks come and go. Not thread-safe.

#include <cstdint>
#include <optional>
#include <vector>

namespace vramscope::observe::detail {

template <typename V>
class addr_map {
 public:
  addr_map() { rehash(64); }

  V* find(std::uint64_t key) {
    if (key == empty) return special_ ? &*special_ : nullptr;
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return &values_[i];
      if (keys_[i] == empty) return nullptr;
    }
  }

  /// Inserts or overwrites.
  V& insert(std::uint64_t key, const V& v) {
    if (key == empty) {
      if (!special_) ++size_;
      special_ = v;
      return *special_;
    }
    if ((size_ + 1) * 4 > keys_.size() * 3) rehash(keys_.size() * 2);
    std::size_t i = slot(key);
    while (keys_[i] != empty && keys_[i] != key) i = (i + 1) & mask_;
    if (keys_[i] == empty) ++size_;
    keys_[i] = key;
    values_[i] = v;
    return values_[i];
  }

  bool erase(std::uint64_t key) {
    if (key == empty) {
      if (!special_) return false;
      special_.reset();
      --size_;
      return true;
    }
    std::size_t i = slot(key);
    while (keys_[i] != key) {
      if (keys_[i] == empty) return false;
      i = (i + 1) & mask_;
    }
    // Backward shift: pull later entries of the same probe run into the hole.
    for (std::size_t j = (i + 1) & mask_; keys_[j] != empty; j = (j + 1) & mask_) {
      const std::size_t home = slot(keys_[j]);
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        keys_[i] = keys_[j];
        values_[i] = values_[j];
        i = j;
      }
    }
    keys_[i] = empty;
    --size_;
    return true;
  }

  std::size_t size() const { return size_; }

  template <typename F>
  void for_each(F f) const {
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] != empty) f(keys_[i], values_[i]);
    if (special_) f(empty, *special_);
  }

 private:
  static constexpr std::uint64_t empty = ~std::uint64_t{0};

  std::size_t slot(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void rehash(std::size_t capacity) {
    std::vector<std::uint64_t> old_keys(capacity, empty);
    std::vector<V> old_values(capacity);
    old_keys.swap(keys_);
    old_values.swap(values_);
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    const bool had_special = special_.has_value();
    size_ = had_special ? 1 : 0;
    for (std::size_t i = 0; i < old_keys.size(); ++i)
      if (old_keys[i] != empty) insert(old_keys[i], old_values[i]);
  }

  std::vector<std::uint64_t> keys_;
  std::vector<V> values_;
  std::optional<V> special_;  // the key equal to the empty marker
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
  int shift_ = 58;
};

}  // namespace vramscope::observe::detail
