#include "observe/pickle_opcodes.hpp"

#include <array>

namespace vramscope::observe::detail {

namespace {

struct op_name {
  std::uint8_t code;
  const char* name;
};

constexpr op_name op_names[] = {
    {MARK, "MARK"}, {STOP, "STOP"}, {POP, "POP"}, {POP_MARK, "POP_MARK"}, {DUP, "DUP"}, {FLOAT, "FLOAT"},
    {INT, "INT"}, {BININT, "BININT"}, {BININT1, "BININT1"}, {LONG, "LONG"}, {BININT2, "BININT2"},
    {NONE, "NONE"}, {PERSID, "PERSID"}, {BINPERSID, "BINPERSID"}, {REDUCE, "REDUCE"}, {STRING, "STRING"},
    {BINSTRING, "BINSTRING"}, {SHORT_BINSTRING, "SHORT_BINSTRING"}, {UNICODE, "UNICODE"},
    {BINUNICODE, "BINUNICODE"}, {APPEND, "APPEND"}, {BUILD, "BUILD"}, {GLOBAL, "GLOBAL"}, {DICT, "DICT"},
    {EMPTY_DICT, "EMPTY_DICT"}, {APPENDS, "APPENDS"}, {GET, "GET"}, {BINGET, "BINGET"}, {INST, "INST"},
    {LONG_BINGET, "LONG_BINGET"}, {LIST, "LIST"}, {EMPTY_LIST, "EMPTY_LIST"}, {OBJ, "OBJ"}, {PUT, "PUT"},
    {BINPUT, "BINPUT"}, {LONG_BINPUT, "LONG_BINPUT"}, {SETITEM, "SETITEM"}, {TUPLE, "TUPLE"},
    {EMPTY_TUPLE, "EMPTY_TUPLE"}, {SETITEMS, "SETITEMS"}, {BINFLOAT, "BINFLOAT"}, {BINBYTES, "BINBYTES"},
    {SHORT_BINBYTES, "SHORT_BINBYTES"}, {PROTO, "PROTO"}, {NEWOBJ, "NEWOBJ"}, {EXT1, "EXT1"},
    {EXT2, "EXT2"}, {EXT4, "EXT4"}, {TUPLE1, "TUPLE1"}, {TUPLE2, "TUPLE2"}, {TUPLE3, "TUPLE3"},
    {NEWTRUE, "NEWTRUE"}, {NEWFALSE, "NEWFALSE"}, {LONG1, "LONG1"}, {LONG4, "LONG4"},
    {SHORT_BINUNICODE, "SHORT_BINUNICODE"}, {BINUNICODE8, "BINUNICODE8"}, {BINBYTES8, "BINBYTES8"},
    {EMPTY_SET, "EMPTY_SET"}, {ADDITEMS, "ADDITEMS"}, {FROZENSET, "FROZENSET"}, {NEWOBJ_EX, "NEWOBJ_EX"},
    {STACK_GLOBAL, "STACK_GLOBAL"}, {MEMOIZE, "MEMOIZE"}, {FRAME, "FRAME"}, {BYTEARRAY8, "BYTEARRAY8"},
    {NEXT_BUFFER, "NEXT_BUFFER"}, {READONLY_BUFFER, "READONLY_BUFFER"},
};

constexpr std::array<const char*, 256> make_name_table() {
  std::array<const char*, 256> table{};
  for (const auto& o : op_names) table[o.code] = o.name;
  return table;
}
constexpr auto name_table = make_name_table();

}  // namespace

const char* opcode_name(std::uint8_t op) { return name_table[op]; }

}  // namespace vramscope::observe::detail
