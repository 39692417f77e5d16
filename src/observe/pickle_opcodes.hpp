#pragma once
// Pickle opcode bytes and operand decoding (CPython Lib/pickletools.py; the opcodes read are
// listed in docs/formats/snapshot.md, "Reading it without Python").

#include <bit>
#include <cstdint>
#include <cstring>

#include "observe/pickle_value.hpp"

namespace vramscope::observe::detail {

// Opcode bytes of the pickle protocol (CPython Lib/pickletools.py).
enum op : std::uint8_t {
  MARK = '(', STOP = '.', POP = '0', POP_MARK = '1', DUP = '2', FLOAT = 'F', INT = 'I', BININT = 'J',
  BININT1 = 'K', LONG = 'L', BININT2 = 'M', NONE = 'N', PERSID = 'P', BINPERSID = 'Q', REDUCE = 'R',
  STRING = 'S', BINSTRING = 'T', SHORT_BINSTRING = 'U', UNICODE = 'V', BINUNICODE = 'X', APPEND = 'a',
  BUILD = 'b', GLOBAL = 'c', DICT = 'd', EMPTY_DICT = '}', APPENDS = 'e', GET = 'g', BINGET = 'h',
  INST = 'i', LONG_BINGET = 'j', LIST = 'l', EMPTY_LIST = ']', OBJ = 'o', PUT = 'p', BINPUT = 'q',
  LONG_BINPUT = 'r', SETITEM = 's', TUPLE = 't', EMPTY_TUPLE = ')', SETITEMS = 'u', BINFLOAT = 'G',
  BINBYTES = 'B', SHORT_BINBYTES = 'C',
  PROTO = 0x80, NEWOBJ = 0x81, EXT1 = 0x82, EXT2 = 0x83, EXT4 = 0x84, TUPLE1 = 0x85, TUPLE2 = 0x86,
  TUPLE3 = 0x87, NEWTRUE = 0x88, NEWFALSE = 0x89, LONG1 = 0x8a, LONG4 = 0x8b, SHORT_BINUNICODE = 0x8c,
  BINUNICODE8 = 0x8d, BINBYTES8 = 0x8e, EMPTY_SET = 0x8f, ADDITEMS = 0x90, FROZENSET = 0x91,
  NEWOBJ_EX = 0x92, STACK_GLOBAL = 0x93, MEMOIZE = 0x94, FRAME = 0x95, BYTEARRAY8 = 0x96,
  NEXT_BUFFER = 0x97, READONLY_BUFFER = 0x98,
};

/// The opcode's name ("BINUNICODE"), or nullptr for a byte that is no opcode.
const char* opcode_name(std::uint8_t op);

inline constexpr std::uint32_t max_memo = 1u << 29;

static_assert(std::endian::native == std::endian::little, "pickle integers are read by memcpy");

// Little-endian unsigned integer of `width` <= 8 bytes.
inline std::uint64_t load_le(const std::uint8_t* p, std::size_t width) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, width);
  return v;
}

// Two's complement little-endian integer of n bytes (LONG1/LONG4), as compact as it fits.
inline value decode_long(const std::uint8_t* b, std::size_t n) {
  if (n == 0) return value::integer(0);
  if (n <= 8) {
    std::uint64_t v = load_le(b, n);
    if ((b[n - 1] & 0x80) && n < 8) v |= ~std::uint64_t{0} << (8 * n);  // sign-extend
    return {vkind::integer, 0, v};
  }
  while (n > 8 && ((b[n - 1] == 0x00 && !(b[n - 2] & 0x80)) || (b[n - 1] == 0xFF && (b[n - 2] & 0x80)))) --n;
  if (n <= 8) return decode_long(b, n);
  if (n == 9 && b[8] == 0x00) return {vkind::big_integer, 0, load_le(b, 8)};
  return {vkind::huge_integer, 0, 0};
}

}  // namespace vramscope::observe::detail
