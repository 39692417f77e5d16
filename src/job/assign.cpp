#include "job/assign.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "job/field_table.hpp"
#include "job/source_text.hpp"

namespace vramscope::job::detail {

bool is_env_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '_';
  });
}

bool is_env_path(const std::string& path) {
  return path.rfind("env.", 0) == 0 && is_env_name(path.substr(4));
}

namespace {

void record(job_spec& job, const std::string& path, const diagnostic& where) {
  job.provenance.set_at[path] = where;
  auto& derived = job.provenance.derived;
  derived.erase(std::remove(derived.begin(), derived.end(), path), derived.end());
}

}  // namespace

std::optional<diagnostic> assign(job_spec& job, const std::string& path, const raw_value& value,
                                 const diagnostic& where) {
  if (is_env_path(path)) {
    if (value.is_list) return at(where, path + ": expected a string, got a list");
    job.env[path.substr(4)] = value.text;
    record(job, path, where);
    return std::nullopt;
  }
  const field* f = find_field(path);
  if (f == nullptr) return at(where, fmt::format("unknown key \"{}\"", path));
  // Set in place: every setter leaves the job untouched when it fails (the codecs' contract,
  // field_codecs.hpp, which the table's own setters keep too). A copy of the whole spec per
  // setting was a tenth of what resolving a what-if row costs.
  if (std::string problem = f->set(job, value); !problem.empty())
    return at(where, path + ": " + problem);
  if (section_of(path) == "lora" && path != "lora.enabled" &&
      job.provenance.set_at.count("lora.enabled") == 0)
    job.lora.enabled = true;
  record(job, path, where);
  return std::nullopt;
}

}  // namespace vramscope::job::detail
