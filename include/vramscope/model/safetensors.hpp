#pragma once
// safetensors headers: the tensor list of a checkpoint without its weights. A safetensors
// file is an 8-byte little-endian header length N, N bytes of JSON mapping each tensor name to
// {dtype, shape, data_offsets} (plus an optional "__metadata__" map of strings), then the
// data. docs/formats/safetensors.md describes the format and every check made here.
// Everything here reads headers only: a 140 GB checkpoint costs a few kilobytes of I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/dtype.hpp>
#include <vramscope/core/result.hpp>
#include <vramscope/core/units.hpp>

namespace vramscope::model {

/// Headers larger than this are refused (the reference implementation's limit is the same).
inline constexpr bytes max_safetensors_header = 100_MiB;

/// One tensor entry of a header.
struct safetensors_entry {
  std::string name;
  dtype type = dtype::f32;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0;  // data_offsets[0], relative to the first data byte
  std::uint64_t end = 0;    // data_offsets[1], one past the last byte
};

/// A parsed, validated header.
struct safetensors_header {
  std::uint64_t header_length = 0;                            // N
  std::uint64_t data_start = 0;                               // 8 + N: file offset of data byte 0
  std::vector<safetensors_entry> entries;                     // sorted by data offset
  std::vector<std::pair<std::string, std::string>> metadata;  // "__metadata__", file order
  warnings notes;  // holes between tensors or bytes after the last one (allowed, but odd)
};

/// Parses and validates a header held in memory. `bytes` starts at file offset 0 and must
/// hold at least the 8 + N header bytes when the file is that long; `file_size` is the size
/// of the whole file (default: bytes.size(), i.e. `bytes` is the whole file).
/// Checks: the length prefix (at least 8 bytes; N <= max_safetensors_header; 8 + N within the
/// file), JSON validity, that the top level is an object, every entry's dtype (safetensors
/// names: F64 F32 F16 BF16 F8_E4M3 F8_E5M2 I64 I32 I16 I8 U8 BOOL), shape and data_offsets,
/// that shape x dtype size equals the offsets' span, that offsets lie within the file and do
/// not overlap. Errors read "<source>: byte <offset>: <problem>". Never throws.
result<safetensors_header> parse_safetensors_header(std::string_view bytes, std::string source,
                                                    std::optional<std::uint64_t> file_size = {});

/// Reads and validates the header of one .safetensors file (reads 8 + N bytes only).
result<safetensors_header> read_safetensors_header(const std::string& path);

/// A tensor of a checkpoint and the file that holds it.
struct checkpoint_entry {
  safetensors_entry entry;
  std::string file;  // path of the .safetensors file
};

/// All tensors of a checkpoint.
struct safetensors_checkpoint {
  std::string source;                     // the index file, the single file, or the folder
  std::vector<checkpoint_entry> tensors;  // index order, or file order then data offset
  warnings notes;
};

/// Reads a checkpoint's headers: `path` is a .safetensors file, a model.safetensors.index.json,
/// or a folder holding either (index preferred) or else any *.safetensors files (read in name
/// order). With an index: shard names must be plain file names in the index's folder, every
/// mapped tensor must be in its shard, and a tensor may not appear in two shards. Fails when
/// the folder holds no safetensors at all ("<folder>: no safetensors files").
result<safetensors_checkpoint> read_safetensors_checkpoint(const std::string& path);

}  // namespace vramscope::model
