#include "observe/pickle_machine.hpp"

#include "observe/pickle_opcodes.hpp"

#include <fmt/format.h>


namespace vramscope::observe::detail {


pickle_machine::pickle_machine(pickle_context& ctx, snapshot_builder& builder, byte_source& src)
    : ctx_(ctx), builder_(builder), src_(src) {
  stack_.reserve(4096);
  max_stack_ = ctx.options.max_stack;
  fast_entries_ = ctx.options.fast_trace_entries;
}

[[gnu::always_inline]] inline std::uint32_t pickle_machine::take_le(std::size_t width) {
  const auto v = static_cast<std::uint32_t>(load_le(src_.p, width));
  src_.p += width;
  return v;
}

[[gnu::always_inline]] inline bool pickle_machine::push(const value& v, std::uint64_t at) {
  if (stack_.size() >= max_stack_) [[unlikely]]
    return stack_full(at);
  stack_.push_back(v);
  return true;
}

[[gnu::always_inline]] inline bool pickle_machine::memo_push(std::uint32_t index, std::uint8_t op, std::uint64_t at) {
  value v;
  if (!ctx_.objects.memo_get(index, v)) [[unlikely]]
    return memo_missing(index, op, at);
  return push(v, at);
}

inline bool pickle_machine::memoize(std::uint64_t at) {
  const std::uint32_t index = ctx_.objects.memo_size();
  if (stack_.size() <= floor() || index >= max_memo) [[unlikely]]
    return memo_put(MEMOIZE, at, 0);  // reports the error
  ctx_.objects.memo_put(index, stack_.back());
  return true;
}

inline bool pickle_machine::long1(std::uint64_t at) {
  if (src_.ensure(1)) {
    const std::size_t n = *src_.p;
    if (n <= 8 && src_.ensure(1 + n)) {
      const value v = decode_long(src_.p + 1, n);
      src_.p += 1 + n;
      return push(v, at);
    }
  }
  return read_long(LONG1, at, 1);  // long values and errors
}

bool pickle_machine::at_end(std::uint64_t at) {
  if (!src_.io_error().empty()) return ctx_.fail(at, "read error: " + src_.io_error());
  return ctx_.fail(at, "the file ends before the STOP opcode");
}

// The opcodes of trace entries (memo references, small integers, LONG1, MARK, MEMOIZE, dicts,
// SETITEMS, APPENDS) are handled in this loop; the rest go through step().
bool pickle_machine::run() {
  if (!src_.ensure(1)) return ctx_.fail(0, "empty file: expected a pickle");
  if (*src_.p != PROTO)
    return ctx_.fail(0, fmt::format("not a pickle of protocol 2 or later: the first byte is 0x{:02x}, "
                                    "expected the PROTO opcode 0x80", *src_.p));
  while (!stopped_) {
    if (src_.p == src_.end && !src_.ensure(1)) return at_end(src_.offset());
    const std::uint64_t at = src_.offset();
    const std::uint8_t op = *src_.p++;
    bool fine = true;
    switch (op) {
      case BINGET: fine = src_.ensure(1) ? memo_push(*src_.p++, op, at) : truncated(op, at, 1); break;
      case LONG_BINGET: fine = src_.ensure(4) ? memo_push(take_le(4), op, at) : truncated(op, at, 4); break;
      case MEMOIZE: fine = memoize(at); break;
      case MARK: fine = mark(at); break;
      case EMPTY_DICT:
        if (!(fast_entries_ && fast_entry(at))) fine = push(ctx_.objects.create(okind::dict), at);
        break;
      case BININT1: fine = src_.ensure(1) ? push(value::integer(*src_.p++), at) : truncated(op, at, 1); break;
      case BININT2:
        fine = src_.ensure(2) ? push(value::integer(static_cast<std::int64_t>(take_le(2))), at) : truncated(op, at, 2);
        break;
      case BININT:
        fine = src_.ensure(4) ? push(value::integer(static_cast<std::int32_t>(take_le(4))), at) : truncated(op, at, 4);
        break;
      case LONG1: fine = long1(at); break;
      case SETITEMS: fine = set_items(op, at, false); break;
      case APPENDS: fine = append(op, at, false); break;
      default: fine = step(op, at); break;
    }
    if (!fine) return false;
  }
  return true;
}

bool pickle_machine::stack_full(std::uint64_t at) {
  return ctx_.fail(at, fmt::format("more than {} values on the unpickler stack", ctx_.options.max_stack));
}

bool pickle_machine::truncated(std::uint8_t op, std::uint64_t at, std::size_t needed) {
  if (!src_.io_error().empty()) return ctx_.fail(at, "read error: " + src_.io_error());
  const std::uint64_t have = src_.remaining();
  return ctx_.fail(at, fmt::format("the file ends inside {} (it needs {} more bytes)", opcode_name(op),
                                   needed > have ? needed - have : 1));
}

bool pickle_machine::read_uint(std::uint8_t op, std::uint64_t at, std::size_t width, std::uint64_t& out) {
  if (!src_.ensure(width)) return truncated(op, at, width);
  out = load_le(src_.p, width);
  src_.p += width;
  return true;
}

bool pickle_machine::read_string(std::uint8_t op, std::uint64_t at, std::size_t width) {
  std::uint64_t length = 0;
  if (!read_uint(op, at, width, length)) return false;
  if (op == BINSTRING && length > 0x7FFFFFFFu)
    return ctx_.fail(at, "BINSTRING declares a negative length");
  if (length > ctx_.options.max_string)
    return ctx_.fail(at, fmt::format("{} declares a string of {} bytes, longer than the {} limit",
                                     opcode_name(op), length, format_bytes(ctx_.options.max_string)));
  if (length > src_.remaining())
    return ctx_.fail(at, fmt::format("{} declares {} bytes but only {} remain in the file", opcode_name(op),
                                     length, src_.remaining()));
  const auto n = static_cast<std::size_t>(length);
  if (!src_.ensure(n)) return truncated(op, at, n);
  const std::uint32_t id = ctx_.strings.intern(std::string_view(reinterpret_cast<const char*>(src_.p), n));
  src_.p += n;
  if (ctx_.over_budget())
    return ctx_.fail(at, fmt::format("the snapshot keeps more than {} of strings and values (limit)",
                                     format_bytes(ctx_.options.max_retained)));
  return push({vkind::string, id, 0}, at);
}

bool pickle_machine::read_long(std::uint8_t op, std::uint64_t at, std::size_t width) {
  std::uint64_t length = 0;
  if (!read_uint(op, at, width, length)) return false;
  if (length > ctx_.options.max_string || length > src_.remaining())
    return ctx_.fail(at, fmt::format("{} declares an integer of {} bytes but only {} remain in the file",
                                     opcode_name(op), length, src_.remaining()));
  const auto n = static_cast<std::size_t>(length);
  if (!src_.ensure(n)) return truncated(op, at, n);
  const value v = decode_long(src_.p, n);
  src_.p += n;
  return push(v, at);
}

bool pickle_machine::read_float(std::uint64_t at) {
  if (!src_.ensure(8)) return truncated(BINFLOAT, at, 8);
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < 8; ++i) bits = (bits << 8) | src_.p[i];  // big-endian
  src_.p += 8;
  return push(value::floating(std::bit_cast<double>(bits)), at);
}

bool pickle_machine::memo_missing(std::uint64_t index, std::uint8_t op, std::uint64_t at) {
  const auto i = static_cast<std::uint32_t>(index);
  if (index < max_memo && ctx_.objects.memo_was_consumed(i))
    return ctx_.fail(at, fmt::format("{} reads memo entry {}, a trace entry or block list that was already "
                                     "consumed; a memory snapshot never refers to one twice", opcode_name(op), index));
  return ctx_.fail(at, fmt::format("{} reads memo entry {}, which was never stored", opcode_name(op), index));
}

bool pickle_machine::memo_put(std::uint8_t op, std::uint64_t at, std::size_t width) {
  std::uint64_t index = ctx_.objects.memo_size();
  if (width > 0 && !read_uint(op, at, width, index)) return false;
  if (stack_.size() <= floor()) return ctx_.fail(at, fmt::format("{} with an empty stack", opcode_name(op)));
  if (index > ctx_.objects.memo_size())
    return ctx_.fail(at, fmt::format("{} stores memo entry {}, beyond the {} entries stored so far",
                                     opcode_name(op), index, ctx_.objects.memo_size()));
  if (index >= max_memo) return ctx_.fail(at, fmt::format("more than {} memo entries", max_memo));
  ctx_.objects.memo_put(static_cast<std::uint32_t>(index), stack_.back());
  return true;
}

bool pickle_machine::mark(std::uint64_t at) {
  if (marks_.size() >= ctx_.options.max_depth)
    return ctx_.fail(at, fmt::format("nesting is deeper than {} levels", ctx_.options.max_depth));
  marks_.push_back(stack_.size());
  return true;
}

bool pickle_machine::pop_mark(std::uint8_t op, std::uint64_t at, std::size_t& mark_at, bool needs_container) {
  if (marks_.empty()) return ctx_.fail(at, fmt::format("{} has no MARK before it", opcode_name(op)));
  mark_at = marks_.back();
  marks_.pop_back();
  if (needs_container && mark_at == 0)
    return ctx_.fail(at, fmt::format("{} has no container below its MARK", opcode_name(op)));
  return true;
}

bool pickle_machine::set_items(std::uint8_t op, std::uint64_t at, bool single) {
  std::size_t first = 0;
  if (single) {
    if (stack_.size() < floor() + 3) return ctx_.fail(at, "SETITEM needs a dict, a key and a value on the stack");
    first = stack_.size() - 2;
  } else if (!pop_mark(op, at, first, true)) {
    return false;
  }
  object_slot* d = ctx_.objects.get(stack_[first - 1]);
  if (!d || d->kind != okind::dict)
    return ctx_.fail(at, fmt::format("{} needs a dict below its items, found {}", opcode_name(op),
                                     d ? "a list or tuple" : describe(stack_[first - 1].kind)));
  const std::size_t count = stack_.size() - first;
  if (count % 2 != 0)
    return ctx_.fail(at, fmt::format("{} has an odd number of items ({}) after its MARK", opcode_name(op), count));
  d->items.insert(d->items.end(), stack_.begin() + static_cast<std::ptrdiff_t>(first), stack_.end());
  ctx_.retained_values += count;
  stack_.resize(first);
  if (ctx_.over_budget())
    return ctx_.fail(at, fmt::format("the snapshot keeps more than {} of strings and values (limit)",
                                     format_bytes(ctx_.options.max_retained)));
  return builder_.dict_filled(stack_.back(), at);
}

bool pickle_machine::append(std::uint8_t op, std::uint64_t at, bool single) {
  std::size_t first = 0;
  if (single) {
    if (stack_.size() < floor() + 2) return ctx_.fail(at, "APPEND needs a list and an item on the stack");
    first = stack_.size() - 1;
  } else if (!pop_mark(op, at, first, true)) {
    return false;
  }
  object_slot* l = ctx_.objects.get(stack_[first - 1]);
  if (!l || l->kind != okind::list)
    return ctx_.fail(at, fmt::format("{} needs a list below its items, found {}", opcode_name(op),
                                     l ? "a dict or tuple" : describe(stack_[first - 1].kind)));
  if (!builder_.list_extended(stack_[first - 1], stack_.data() + first, stack_.size() - first, at)) return false;
  stack_.resize(first);
  return true;
}

bool pickle_machine::build_from_mark(std::uint8_t op, std::uint64_t at, okind kind) {
  std::size_t first = 0;
  if (!pop_mark(op, at, first, false)) return false;
  const std::size_t count = stack_.size() - first;
  if (kind == okind::dict && count % 2 != 0)
    return ctx_.fail(at, fmt::format("DICT has an odd number of items ({}) after its MARK", count));
  const value obj = ctx_.objects.create(kind);
  if (kind == okind::list) {
    if (!builder_.list_extended(obj, stack_.data() + first, count, at)) return false;
  } else {
    ctx_.objects.get(obj)->items.assign(stack_.begin() + static_cast<std::ptrdiff_t>(first), stack_.end());
    ctx_.retained_values += count;
  }
  stack_.resize(first);
  stack_.push_back(obj);
  return kind == okind::dict ? builder_.dict_filled(stack_.back(), at) : true;
}

bool pickle_machine::build_tuple(std::uint64_t at, std::size_t n) {
  if (stack_.size() < floor() + n) return ctx_.fail(at, fmt::format("TUPLE{} needs {} values on the stack", n, n));
  const value obj = ctx_.objects.create(okind::tuple);
  ctx_.objects.get(obj)->items.assign(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
  ctx_.retained_values += n;
  stack_.resize(stack_.size() - n);
  stack_.push_back(obj);
  return true;
}

bool pickle_machine::frame(std::uint64_t at) {
  std::uint64_t length = 0;
  if (!read_uint(FRAME, at, 8, length)) return false;
  if (length > src_.remaining())
    return ctx_.fail(at, fmt::format("FRAME declares {} bytes but only {} remain in the file", length, src_.remaining()));
  return true;
}

bool pickle_machine::proto(std::uint64_t at) {
  std::uint64_t version = 0;
  if (!read_uint(PROTO, at, 1, version)) return false;
  if (version > 5)
    return ctx_.fail(at, fmt::format("pickle protocol {} is newer than the protocols 2 to 5 this reader knows", version));
  protocol_ = static_cast<int>(version);
  return true;
}

bool pickle_machine::unsupported(std::uint8_t op, std::uint64_t at) {
  const char* name = opcode_name(op);
  if (!name) return ctx_.fail(at, fmt::format("unknown pickle opcode 0x{:02x}", op));
  switch (op) {
    case INT: case LONG: case STRING: case UNICODE: case FLOAT: case PUT: case GET:
      return ctx_.fail(at, fmt::format("{} is a protocol 0 text opcode; memory snapshots use protocols 2 to 5", name));
    case BYTEARRAY8: case NEXT_BUFFER: case READONLY_BUFFER:
      return ctx_.fail(at, fmt::format("{} (0x{:02x}) carries out-of-band buffers, which memory snapshots do not use",
                                       name, op));
    default:
      return ctx_.fail(at, fmt::format("{} (0x{:02x}) builds Python objects; a memory snapshot holds only dicts, "
                                       "lists, tuples, strings and numbers", name, op));
  }
}

bool pickle_machine::step(std::uint8_t op, std::uint64_t at) {
  std::uint64_t n = 0;
  std::size_t first = 0;
  switch (op) {
    case MEMOIZE: return memo_put(op, at, 0);
    case BINPUT: return memo_put(op, at, 1);
    case LONG_BINPUT: return memo_put(op, at, 4);
    case MARK: return mark(at);
    case EMPTY_DICT: return push(ctx_.objects.create(okind::dict), at);
    case EMPTY_LIST: case EMPTY_SET: return push(ctx_.objects.create(okind::list), at);
    case EMPTY_TUPLE: return push(ctx_.objects.create(okind::tuple), at);
    case SETITEMS: return set_items(op, at, false);
    case SETITEM: return set_items(op, at, true);
    case APPENDS: case ADDITEMS: return append(op, at, false);
    case APPEND: return append(op, at, true);
    case DICT: return build_from_mark(op, at, okind::dict);
    case LIST: return build_from_mark(op, at, okind::list);
    case TUPLE: case FROZENSET: return build_from_mark(op, at, okind::tuple);
    case TUPLE1: return build_tuple(at, 1);
    case TUPLE2: return build_tuple(at, 2);
    case TUPLE3: return build_tuple(at, 3);
    case BININT1: return read_uint(op, at, 1, n) && push(value::integer(static_cast<std::int64_t>(n)), at);
    case BININT2: return read_uint(op, at, 2, n) && push(value::integer(static_cast<std::int64_t>(n)), at);
    case BININT:
      return read_uint(op, at, 4, n) &&
             push(value::integer(static_cast<std::int32_t>(static_cast<std::uint32_t>(n))), at);
    case LONG1: return read_long(op, at, 1);
    case LONG4: return read_long(op, at, 4);
    case BINFLOAT: return read_float(at);
    case SHORT_BINUNICODE: case SHORT_BINBYTES: case SHORT_BINSTRING: return read_string(op, at, 1);
    case BINUNICODE: case BINBYTES: case BINSTRING: return read_string(op, at, 4);
    case BINUNICODE8: case BINBYTES8: return read_string(op, at, 8);
    case NONE: return push({vkind::none, 0, 0}, at);
    case NEWTRUE: return push({vkind::boolean, 0, 1}, at);
    case NEWFALSE: return push({vkind::boolean, 0, 0}, at);
    case FRAME: return frame(at);
    case PROTO: return proto(at);
    case POP:
      if (!marks_.empty() && marks_.back() == stack_.size()) {
        marks_.pop_back();
        return true;
      }
      if (stack_.size() <= floor()) return ctx_.fail(at, "POP with an empty stack");
      stack_.pop_back();
      return true;
    case POP_MARK:
      if (!pop_mark(op, at, first, false)) return false;
      stack_.resize(first);
      return true;
    case DUP:
      if (stack_.size() <= floor()) return ctx_.fail(at, "DUP with an empty stack");
      return push(stack_.back(), at);
    case STOP:
      if (stack_.size() <= floor()) return ctx_.fail(at, "STOP with an empty stack");
      stopped_ = true;
      return builder_.finish(stack_.back(), at);
    default: return unsupported(op, at);
  }
}

}  // namespace vramscope::observe::detail
