#include "observe/pickle_value.hpp"

#include <algorithm>

namespace vramscope::observe::detail {


const char* describe(vkind k) {
  switch (k) {
    case vkind::none: return "None";
    case vkind::boolean: return "a boolean";
    case vkind::integer: return "an integer";
    case vkind::big_integer: return "an integer";
    case vkind::huge_integer: return "an integer wider than 64 bits";
    case vkind::floating: return "a float";
    case vkind::string: return "a string";
    case vkind::object: return "a container";
    case vkind::frame: return "a frame dict";
    case vkind::traceback: return "a frame list";
    case vkind::block: return "a block dict";
    case vkind::segment: return "a segment dict";
    case vkind::event: return "a trace entry";
  }
  return "a value";
}

string_table::string_table() { intern(""); }

std::uint32_t string_table::intern(std::string_view s) {
  if (auto it = ids_.find(s); it != ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(strings_.size());
  strings_.emplace_back(s);
  ids_.emplace(std::string_view(strings_.back()), id);
  bytes_ += s.size() + 48;  // the string plus its share of the table's bookkeeping
  return id;
}



void object_store::release(const value& v, const value* replacement) {
  object_slot* s = get(v);
  if (!s) return;
  if (s->memo != no_index && memo_[s->memo] == pack(object_tag, v.ref)) {
    ++rewrites_;
    if (replacement) {
      memo_[s->memo] = encode(*replacement, s->memo);
    } else {
      memo_[s->memo] = consumed_word;
    }
  }
  s->kind = okind::free;
  ++s->gen;
  s->items.clear();
  if (s->items.capacity() > 4096) s->items.shrink_to_fit();  // do not keep a huge list's buffer
  free_.push_back(v.ref);
}

std::uint32_t object_store::encode(const value& v, std::uint32_t index) {
  const auto fits = v.ref <= ref_mask;
  switch (v.kind) {
    case vkind::string: if (fits) return pack(string_tag, v.ref); break;
    case vkind::frame: if (fits) return pack(frame_tag, v.ref); break;
    case vkind::traceback: if (fits) return pack(traceback_tag, v.ref); break;
    case vkind::block: if (fits) return pack(block_tag, v.ref); break;
    case vkind::segment: if (fits) return pack(segment_tag, v.ref); break;
    case vkind::object: {
      object_slot& s = slots_[v.ref];
      if (fits && s.memo == no_index) {
        s.memo = index;
        return pack(object_tag, v.ref);
      }
      break;
    }
    default: break;
  }
  if (index < memo_.size() && (memo_[index] >> ref_bits) == boxed_tag) {  // reuse: no growth on re-puts
    boxed_[memo_[index] & ref_mask] = v;
    return memo_[index];
  }
  boxed_.push_back(v);
  return pack(boxed_tag, static_cast<std::uint32_t>(boxed_.size() - 1) & ref_mask);
}

}  // namespace vramscope::observe::detail
