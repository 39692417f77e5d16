#pragma once
// Reading a job spec: the YAML documented field by field in docs/job-spec.md. Reading has two
// steps: the YAML is turned into a job_spec holding exactly what the file says (read_job_yaml),
// then resolve_job (resolve.hpp) fills the derived values and checks the combinations.
// parse_job_yaml and load_job do both.
//
// Every failure is a diagnostic naming the file, line, column and field, with the offending line
// and a caret:
//
//   job.yaml:7:3: unknown key "optimiser" in section "training" (did you mean "optimizer"?)
//     optimiser: adamw
//     ^ near here
//
// The classes of message (each asserted in tests/job/job_reader_test.cpp):
//   unknown section "X" (did you mean "Y"?)
//   unknown key "X" in section "S" (did you mean "Y"?)       Y may be a path elsewhere: "parallel.tp"
//   duplicate key "X" (first given on line N)
//   section "S": expected a map, got a scalar
//   P: expected an integer, got "four"                        (wrong type; P is the dotted path)
//   P: 0 is out of range (expected 1 to 1024)
//   P: invalid value "fsdp3" (expected one of: ddp, fsdp1, ...)
//   yaml syntax error: <what yaml-cpp reports>
// Thread-safe: no shared state.

#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>
#include <vramscope/job/job_spec.hpp>

namespace vramscope::job {

/// Reads the YAML text without resolving it: fields the text does not set keep job_spec's
/// defaults, and derived values (hardware.gpu_memory from the catalog, parallel.dp_shard, ...)
/// are still 0 / empty. `source` names the text in messages ("job.yaml", "<stdin>").
/// Records where each field was set in job.provenance.
result<job_spec> read_job_yaml(std::string_view text, std::string source);

/// read_job_yaml, then resolve_job. Validation warnings (tp spanning nodes, a mistyped
/// environment variable, ...) are appended to `notes` when it is given.
result<job_spec> parse_job_yaml(std::string_view text, std::string source,
                                warnings* notes = nullptr);

/// Reads the file at `path`, applies `overrides` ("parallel.tp=4", as for --set) to what the
/// file says, then resolves. Overrides are applied before resolution, so derived values follow
/// them. Fails on an unreadable file with core's read_file message.
result<job_spec> load_job(const std::string& path, const std::vector<std::string>& overrides = {},
                          warnings* notes = nullptr);

}  // namespace vramscope::job
