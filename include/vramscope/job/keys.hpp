#pragma once
// The job spec's settable keys as documentation: what `vramscope keys` prints, what the man
// page and the shell completions list after --set. Read from the same field table the YAML
// reader and --set use, so a new field shows up here without being named twice.
// Thread-safe: built from immutable tables on each call.

#include <string>
#include <vector>

namespace vramscope::job {

/// One key of the job spec.
struct key_doc {
  std::string path;           // dotted key, as --set takes it: "parallel.tp"
  std::string allowed;        // what it accepts, with its range: "an integer, 1 to 1024"
  std::string default_value;  // the value of an unset key as --set would write it ("1",
                              // "bf16", "true"); "from hardware.gpu" for derived ones; "" for
                              // shorthands that only expand into other keys
  std::vector<std::string> values;  // values to offer: the closed set of an enum or boolean, or
                                    // the known names of an open key (presets for "model",
                                    // catalog GPUs for "hardware.gpu"); empty otherwise
};

/// Every key in the order of docs/job-spec.md, shorthands ("precision", "optimizer") included.
/// Environment variables (`env.NAME`) take any NAME and are not listed.
std::vector<key_doc> key_docs();

}  // namespace vramscope::job
