// vramscope explain [JOB.yaml | OBSERVED-FILE] [--from CONFIG] [--smi FILE ...] [--stats FILE ...] [--oom FILE ...]
//                   [--snapshot FILE] [--trace DIR] [--recorded DIR] [--json] [--rules]
//                   [--set key=value ...]
#include <vramscope/core/io.hpp>
#include <vramscope/import/loading.hpp>
#include <vramscope/doctor/finding.hpp>
#include <vramscope/trace/trace_reader.hpp>
#include <vramscope/observe/read_observation.hpp>
#include <vramscope/observe/torch_snapshot.hpp>
#include <vramscope/report/findings_report.hpp>
#include <vramscope/report/trace_report.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/messages.hpp"
#include "job/field_table.hpp"

namespace vramscope::cli {

namespace {

struct explain_args {
  std::string job_path, from;
  std::vector<std::string> smi, stats, oom, overrides;
  std::string snapshot, trace, recorded, html;
  bool json = false, rules = false;
};

// A snapshot's per-device peaks, as the allocator figures of one rank.
void add_snapshot(observe::observation& obs, const observe::snapshot_summary& s) {
  for (const auto& d : s.devices) {
    observe::torch_stats t;
    t.device = d.device;
    t.allocated.peak = d.peak_allocated.value;
    t.active.peak = d.peak_active.value;
    t.reserved.peak = d.peak_reserved.value;
    t.reserved.current = d.final_state.reserved;
    t.inactive_split.current = d.final_state.inactive_split;
    t.source = s.source;
    obs.stats.push_back(std::move(t));
  }
}

// A folder written by the Python recorder (vramscope.torch, docs/python.md): files are told
// apart by name. explain reads one snapshot, so a given --snapshot wins, else the first by name.
status add_recorded(const std::string& dir, explain_args& a) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return error_at(dir, "not a folder");
  std::vector<fs::path> files;
  // Pipes and devices named like recorded files are kept: their reader refuses them by name,
  // where skipping them said nothing.
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (!e.is_directory(ec)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::size_t used = 0;
  for (const auto& f : files) {
    const std::string name = f.filename().string();
    if (name.starts_with("memory_stats")) a.stats.push_back(f.string());
    else if (name.starts_with("oom")) a.oom.push_back(f.string());
    else if (name.starts_with("snapshot") && a.snapshot.empty()) a.snapshot = f.string();
    else continue;
    ++used;
  }
  if (used == 0)
    return error_at(dir, "no recorded files here (memory_stats_rank*.json, oom_rank*.log, "
                         "snapshot_rank*.pickle)");
  return ok();
}

// Whether `text` is a YAML job spec: a mapping whose top-level keys are mostly job sections
// (model, hardware, parallel, ...; a misspelt one among them is still the job's, for its loader
// to name). A log's "Step 1: 30.1 GiB" or "WARNING: ..." lines are not: their keys are no
// sections.
bool yaml_job_mapping(std::string_view text) {
  const auto& sections = job::detail::section_names();
  std::size_t known = 0, other = 0;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == ' ' || line.front() == '\t' || line.front() == '#' ||
        line.starts_with("---") || line.starts_with("..."))
      continue;
    const std::size_t colon = line.find(':');
    const std::string_view key = line.substr(0, colon);
    const bool named =
        colon != std::string_view::npos && !key.empty() &&
        std::all_of(key.begin(), key.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
        });
    if (named && std::find(sections.begin(), sections.end(), key) != sections.end())
      ++known;
    else
      ++other;
  }
  return known > 0 && known >= other;
}

// `explain FILE` with a file that is no job spec: what a user has at hand after a run (a
// snapshot pickle, torch.cuda.memory_stats() JSON, a memory_summary() table, nvidia-smi output,
// an OOM log or a few lines of one pasted into a file) is read as if given with its option,
// whatever the file is called. A job spec (a YAML mapping of job sections, or JSON) stays the
// job; a TOML file is one.
void route_positional(explain_args& a) {
  const std::string ext = std::filesystem::path(a.job_path).extension().string();
  if (ext == ".toml") return;
  const auto size = file_size(a.job_path);
  if (!size || *size == 0) return;  // the job loader reports what is wrong with it
  const auto head = read_file_range(a.job_path, 0, std::min<std::uint64_t>(*size, 64 * 1024));
  if (!head) return;
  if (static_cast<unsigned char>(head->front()) == 0x80) {  // pickle protocol 2+
    if (a.snapshot.empty()) a.snapshot = a.job_path;
    a.job_path.clear();
    return;
  }
  if (yaml_job_mapping(*head)) return;
  const auto format = observe::detect_observation_format(*head);
  if (!format) {
    // No reader recognises it and it is no job: an observation none could read (a note, a
    // log cut short). read_all names it in a warning, and in its error when nothing else is given.
    const std::string_view start = *head;
    if (start.find_first_not_of(" \t\r\n") != std::string_view::npos &&
        start[start.find_first_not_of(" \t\r\n")] == '{')
      return;  // JSON: a job, for its loader to read
    a.oom.push_back(a.job_path);
    a.job_path.clear();
    return;
  }
  // Any text with commas can pass for a header-less CSV: only a .csv file is taken for one.
  if (*format == observe::observation_format::smi_csv && ext != ".csv") return;
  const bool stats_keys = head->find("\"allocated_bytes.") != std::string::npos ||
                          head->find("\"reserved_bytes.") != std::string::npos ||
                          head->find("\"num_alloc_retries\"") != std::string::npos;
  if (*format == observe::observation_format::memory_stats && !stats_keys) return;  // a JSON job
  a.stats.push_back(a.job_path);  // read_observation tells the kinds apart again
  a.job_path.clear();
}

// Every observed file that can be read: one that cannot (a paste cut short, a file of another
// kind) is named in a warning and skipped, so the other inputs and the job still explain what
// they can. Fails only when no observed file could be read at all, with the first one's error.
result<observe::observation> read_all(const explain_args& a, std::string& trace_text) {
  observe::observation obs;
  std::optional<diagnostic> first_failure;
  std::size_t read = 0, given = 0;
  for (const auto* list : {&a.smi, &a.stats, &a.oom})
    for (const auto& path : *list) {
      ++given;
      auto one = observe::read_observation(path);
      if (!one) {
        obs.warnings.push_back(diagnostic{one.error().source, one.error().line, one.error().column,
                                          "not read, explained without it: " + one.error().message,
                                          one.error().context});
        if (!first_failure) first_failure = one.error();
        continue;
      }
      ++read;
      observe::append(obs, std::move(*one));
    }
  // A snapshot or trace folder that cannot be read is skipped the same way where anything else
  // (another file, the job) remains to explain.
  const bool job = !a.job_path.empty() || !a.from.empty();
  const auto skipped = [&](const diagnostic& d) {
    obs.warnings.push_back(diagnostic{d.source, d.line, d.column,
                                      "not read, explained without it: " + d.message, d.context});
  };
  if (!a.snapshot.empty()) {
    auto s = observe::analyze_snapshot(a.snapshot);
    if (s) {
      add_snapshot(obs, *s);
      ++read;
    } else if (read == 0 && a.trace.empty() && !job) {
      return s.error();
    } else {
      skipped(s.error());
    }
  }
  if (!a.trace.empty()) {  // per-process trace files merged by GPU: peaks as nvidia-smi would show
    auto t = trace::read_trace_folder(a.trace);
    if (t) {
      trace_text = report::render_trace_text(*t, a.trace);
      observe::append(obs, trace::to_observation(*t));
      ++read;
    } else if (read == 0 && !job) {
      return t.error();
    } else {
      skipped(t.error());
    }
  }
  if (given > 0 && read == 0 && !job) return *first_failure;
  return obs;
}

}  // namespace

int cmd_explain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"Explain observed GPU memory: evidence, cause, fix and its saving", "explain"};
  explain_args a;
  app.add_option("job", a.job_path,
                 "job spec (YAML); fixes are priced by re-planning it. An nvidia-smi output, "
                 "memory_stats() JSON, memory_summary() table, OOM log or snapshot pickle given "
                 "here is read as if given with its option, and so is any text that is no "
                 "mapping of job sections (a pasted log)");
  app.add_option("--from", a.from, from_option_help);
  app.add_option("--smi", a.smi, "nvidia-smi output: table, --query CSV or -q -x XML");
  app.add_option("--stats", a.stats, "torch.cuda.memory_stats() JSON or memory_summary() text, per rank");
  app.add_option("--oom", a.oom, "a log with out-of-memory messages");
  app.add_option("--snapshot", a.snapshot, "a torch.cuda.memory._dump_snapshot pickle");
  app.add_option("--trace", a.trace, "a folder written by `vramscope trace` (per-process files)");
  app.add_option("--recorded", a.recorded,
                 "a folder written by vramscope.torch (per-rank stats, OOM messages, snapshots)");
  app.add_option("--set", a.overrides, "override a job field");
  app.add_flag("--json", a.json, "print findings as JSON");
  app.add_option("--html", a.html, "also write the findings as a self-contained HTML page");
  app.add_flag("--rules", a.rules, "list the rule catalogue and exit");
  int code = 0;
  if (!parse_args(app, args, out, err, code)) return code;
  if (a.rules) {
    out << report::render_rules_text();
    return 0;
  }
  if (!a.job_path.empty()) route_positional(a);
  if (!a.recorded.empty())
    if (auto added = add_recorded(a.recorded, a); !added)
      return report_bad_input(err, "explain", added.error());
  std::string trace_text;
  auto obs = read_all(a, trace_text);
  if (!obs) return report_bad_input(err, "explain", obs.error());
  print_notes(err, obs->warnings);
  std::optional<job::loaded_job> loaded;
  std::optional<predict::prediction> prediction;
  doctor::doctor_input in;
  in.observed = &*obs;
  // A job that cannot be loaded or planned beside observations that were read: named in a
  // warning, and the observations explained without it (they stand on their own).
  const bool observed = obs->has_facts();
  const auto without_job = [&](const diagnostic& d) {
    print_notes(
        err, {diagnostic{d.source, d.line, d.column,
                         "job not read, explained from the observations without it: " + d.message,
                         d.context}});
  };
  if (!a.job_path.empty() || !a.from.empty()) {
    auto l = job::load_job_and_model(a.job_path, a.overrides, a.from);
    if (!l && !observed) return report_bad_input(err, "explain", l.error());
    if (l) {
      print_notes(err, l->notes);
      loaded = std::move(*l);
      auto p = predict::plan(loaded->model, loaded->job);
      if (!p && !observed) return report_bad_input(err, "explain", p.error());
      if (p) {
        prediction = std::move(*p);
        in.job = &loaded->job;
        in.model = &loaded->model;
        in.prediction = &*prediction;
      } else {
        without_job(p.error());
      }
    } else {
      without_job(l.error());
    }
  } else if (a.smi.empty() && a.stats.empty() && a.oom.empty() && a.snapshot.empty() && a.trace.empty()) {
    err << "vramscope explain: nothing to explain: give a job spec (or --from CONFIG) and/or "
           "--smi, --stats, --oom, --snapshot, --trace\n";
    return static_cast<int>(exit_status::bad_input);
  }
  const auto findings = doctor::diagnose(in);
  if (!a.html.empty()) {
    std::vector<std::string> inputs;
    // "memory stats: 8 files (examples/x/memory_stats_rank0.json, ...)" for long lists.
    const auto files = [&inputs](const char* kind, const std::vector<std::string>& paths) {
      if (paths.size() > 2)
        inputs.push_back(fmt::format("{}: {} files ({}, ...)", kind, paths.size(), paths.front()));
      else
        for (const auto& p : paths) inputs.push_back(fmt::format("{} {}", kind, p));
    };
    if (!a.job_path.empty()) inputs.push_back("job " + a.job_path);
    if (!a.from.empty()) inputs.push_back("config " + a.from);
    files("nvidia-smi", a.smi);
    files("memory stats", a.stats);
    files("log", a.oom);
    if (!a.snapshot.empty()) inputs.push_back("snapshot " + a.snapshot);
    if (!a.trace.empty()) inputs.push_back("trace " + a.trace);
    if (!a.recorded.empty()) inputs.push_back("recorded " + a.recorded);
    if (auto written = write_file_atomic(a.html, report::findings_html(findings, inputs)); !written)
      return report_bad_input(err, "explain", written.error());
  }
  if (!a.json) out << trace_text;
  out << (a.json ? report::findings_json(findings).dump(2) + "\n" : report::render_findings_text(findings));
  for (const auto& f : findings)
    if (f.level == doctor::severity::error) return static_cast<int>(exit_status::findings);
  return static_cast<int>(exit_status::ok);
}

}  // namespace vramscope::cli
