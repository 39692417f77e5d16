#pragma once
// A free list for the nodes of one ordered set. The allocator models insert and erase a tree
// node on nearly every event; recycling nodes from a list is cheaper than malloc or a pmr pool
// (which searches its size classes on every deallocation). One arena serves one container,
// whose nodes all have one size. Not thread-safe, like the models.

#include <cassert>
#include <cstddef>
#include <memory>
#include <vector>

namespace vramscope::alloc::detail {

class node_arena {
 public:
  node_arena() = default;
  node_arena(const node_arena&) = delete;
  node_arena& operator=(const node_arena&) = delete;

  // A recycled node in line (nearly every call); a new one out of line.
  void* allocate(std::size_t size) {
    assert((node_size_ == 0 || node_size_ == rounded(size)) && "one arena serves one node size");
    if (free_ != nullptr) {
      void* p = free_;
      free_ = free_->next;
      return p;
    }
    return allocate_new(rounded(size));
  }

  void deallocate(void* p) noexcept {
    auto* node = static_cast<free_node*>(p);
    node->next = free_;
    free_ = node;
  }

 private:
  static constexpr std::size_t rounded(std::size_t size) {
    return (size + alignof(std::max_align_t) - 1) / alignof(std::max_align_t) *
           alignof(std::max_align_t);
  }

  [[gnu::noinline]] void* allocate_new(std::size_t size) {
    node_size_ = size;
    if (left_ < size) {
      chunks_.push_back(std::make_unique_for_overwrite<std::byte[]>(chunk_bytes));  // no zeroing
      cursor_ = chunks_.back().get();
      left_ = chunk_bytes;
    }
    void* p = cursor_;
    cursor_ += size;
    left_ -= size;
    return p;
  }

  struct free_node {
    free_node* next;
  };
  static constexpr std::size_t chunk_bytes = 64 * 1024;
  std::vector<std::unique_ptr<std::byte[]>> chunks_;
  std::byte* cursor_ = nullptr;
  std::size_t left_ = 0;
  std::size_t node_size_ = 0;
  free_node* free_ = nullptr;
};

/// A standard allocator drawing single nodes from a node_arena that outlives the container.
template <typename T>
class node_allocator {
 public:
  using value_type = T;
  explicit node_allocator(node_arena* arena) noexcept : arena_(arena) {}
  template <typename U>
  node_allocator(const node_allocator<U>& other) noexcept : arena_(other.arena()) {}  // NOLINT

  T* allocate(std::size_t n) {
    if (n != 1) return static_cast<T*>(::operator new(n * sizeof(T)));
    return static_cast<T*>(arena_->allocate(sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n != 1) {
      ::operator delete(p);
      return;
    }
    arena_->deallocate(p);
  }
  [[nodiscard]] node_arena* arena() const noexcept { return arena_; }
  template <typename U>
  bool operator==(const node_allocator<U>& other) const noexcept {
    return arena_ == other.arena();
  }

 private:
  node_arena* arena_;
};

}  // namespace vramscope::alloc::detail
