// Fuzzes the out-of-memory message finder on arbitrary log text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <vramscope/observe/oom_report.hpp>

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  vramscope::warnings warnings;
  const auto reports = vramscope::observe::find_oom_reports(text, "fuzz.log", warnings);
  int last_line = 0;
  for (const auto& r : reports) {
    check(r.line >= 1 && r.line >= last_line);
    check(r.raw.size() <= size * 6 + 16);  // joined wrapped lines, never more than the log
    check(!r.compile_estimate ||
          r.kind == vramscope::observe::oom_kind::xla);  // the compiler's is XLA's
    // A CuPy or MPS pool's free figure is what its limit leaves (never more than the limit, never
    // without it), and its report is an allocator's own (kind cuda, neither torch's nor XLA's).
    const bool pool = r.allocator == vramscope::observe::oom_allocator::cupy_pool ||
                      r.allocator == vramscope::observe::oom_allocator::torch_mps;
    check(!pool || !r.free || (r.capacity && *r.free <= *r.capacity));
    check((r.allocator != vramscope::observe::oom_allocator::cupy_pool &&
           r.allocator != vramscope::observe::oom_allocator::torch_mps) ||
          r.kind == vramscope::observe::oom_kind::cuda);
    // A cut message names what it lacks; a status that names no memory is a library's.
    check(!r.message_cut || !r.missing.empty());
    check(!r.status_not_memory || !r.library.empty());
    last_line = r.line;
  }
  // The compiler's estimate stands only where no allocator's message does: all or none.
  std::size_t estimates = 0;
  for (const auto& r : reports) estimates += r.compile_estimate;
  check(estimates == 0 || estimates == reports.size());
  return 0;
}
