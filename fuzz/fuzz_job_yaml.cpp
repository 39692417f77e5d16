// Fuzzes the readers of the job and import modules: the same bytes go to the YAML job reader, to
// the framework config importers and to a --set override. Each must give a value or a
// diagnostic, never a crash. A job that is accepted must keep the promises of resolve_job (the
// mesh covers the world, a capacity is known) and must read back equal from what to_yaml writes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <vramscope/import/importers.hpp>
#include <vramscope/job/job_reader.hpp>
#include <vramscope/job/job_writer.hpp>
#include <vramscope/job/overrides.hpp>

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

void check_resolved(const vramscope::job::job_spec& job) {
  const auto& p = job.parallel;
  check(job.world_size() >= 1);
  check(static_cast<long long>(p.tp) * p.dp_replicate * p.dp_shard * p.pp * p.cp == job.world_size());
  check(job.hardware.capacity > 0);
  check(job.hardware.compute_capability > 0);
  auto again = vramscope::job::parse_job_yaml(vramscope::job::to_yaml(job), "fuzz/written.yaml");
  check(again.has_value());
  check(vramscope::job::to_json(*again) == vramscope::job::to_json(job));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  auto job = vramscope::job::parse_job_yaml(text, "fuzz/job.yaml");
  if (job)
    check_resolved(*job);
  else
    check(!job.error().to_string().empty());

  auto imported = vramscope::job::import_config_text(text, "fuzz/config");
  if (imported)
    check_resolved(imported->job);
  else
    check(!imported.error().message.empty());

  vramscope::job::job_spec base;
  auto resolved = vramscope::job::parse_job_yaml("{}\n", "fuzz/base.yaml");
  check(resolved.has_value());
  base = *resolved;
  const std::string first_line(text.substr(0, text.find('\n')));
  auto overridden = vramscope::job::apply_override(base, first_line);
  if (overridden) check_resolved(base);
  return 0;
}
