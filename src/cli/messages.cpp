#include "cli/messages.hpp"

#include <vramscope/cli/run.hpp>
#include <vramscope/job/overrides.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <regex>

namespace vramscope::cli {

int report_bad_input(std::ostream& err, const std::string& command, const diagnostic& d) {
  err << "vramscope " << command << ": " << d.to_string() << "\n";
  return static_cast<int>(exit_status::bad_input);
}

void print_notes(std::ostream& err, const warnings& notes) {
  for (const auto& n : notes) err << "warning: " << n.to_string() << "\n";
}

namespace {

// A kind of note the importers give many of, and how to name one of them in a summary.
struct note_kind {
  const char* marker;  // a note of this kind contains it
  const char* one;     // "1 {one}: name"
  const char* many;    // "{n} {many}: names"
  bool quoted_name;    // the name is the note's first "quoted" text (an option; each once);
                       // else what was assumed
};

constexpr note_kind note_kinds[] = {
    {"unknown option \"", "unknown option, ignored", "unknown options, ignored", true},
    {"is not among the options of the", "option of no release vramscope knows, ignored",
     "options of no release vramscope knows, ignored", true},
    {"changes memory but vramscope does not model it",
     "option changes memory but is not modelled, ignored",
     "options change memory but are not modelled, ignored", true},
    {"\" is \"auto\"", "option is \"auto\" (filled in at launch)",
     "options are \"auto\" (filled in at launch)", true},
    {"the config does not ", "value the config does not give was assumed",
     "values the config does not give were assumed", false},
};

const note_kind* kind_of(const diagnostic& d) {
  for (const auto& k : note_kinds)
    if (d.message.find(k.marker) != std::string::npos) return &k;
  return nullptr;
}

// "zero_optimization.stage3_gather_16bit_weights_on_model_save", or "llama-3.1-8b" from
// "...: assumed llama-3.1-8b; set it with ...".
std::string name_in(const diagnostic& d, const note_kind& k) {
  const std::string& m = d.message;
  if (k.quoted_name) {
    const auto open = m.find('"');
    const auto close = open == std::string::npos ? open : m.find('"', open + 1);
    if (close == std::string::npos) return m;
    std::string name = m.substr(open + 1, close - open - 1);
    // What an "auto" value was taken as: "(assumed 8, ..." or ": parallel.x = 16777216".
    if (const auto assumed = m.find("(assumed "); assumed != std::string::npos) {
      const auto end = m.find_first_of(",;)", assumed);
      name += " (assumed " +
              m.substr(assumed + 9, end == std::string::npos ? end : end - assumed - 9) + ")";
    } else if (const auto filled = m.rfind(" = "); filled != std::string::npos) {
      name += " =" + m.substr(filled + 2);
    }
    return name;
  }
  // "the config does not name the GPU: assumed H100-80GB; ..." -> "the GPU (H100-80GB)"
  const auto verb = m.find("does not ");
  const auto what = verb == std::string::npos ? verb : m.find(' ', verb + 9);
  const auto assumed = m.find(": assumed ");
  if (what == std::string::npos || assumed == std::string::npos || what > assumed) return m;
  const auto end = m.find(';', assumed);
  return m.substr(what + 1, assumed - what - 1) + " (" +
         m.substr(assumed + 10, end == std::string::npos ? end : end - assumed - 10) + ")";
}

// The job keys an assumption names ("set it with --set model=NAME", "set hardware.nodes and
// hardware.gpus_per_node"): every known key the text mentions.
std::vector<std::string> keys_named(const std::string& message) {
  static const std::regex word(R"([a-z_]+(\.[a-z0-9_]+)*)");
  static const auto known = job::field_paths();
  std::vector<std::string> keys;
  const auto set = message.find("set ");
  if (set == std::string::npos) return keys;
  const std::string tail = message.substr(set);
  for (auto it = std::sregex_iterator(tail.begin(), tail.end(), word); it != std::sregex_iterator();
       ++it)
    if (std::find(known.begin(), known.end(), it->str()) != known.end()) keys.push_back(it->str());
  return keys;
}

// Whether --set settles what the note says was assumed: it names keys, all given by --set.
bool settled_by_set(const diagnostic& d, const std::vector<std::string>& overrides) {
  if (d.message.find("assumed") == std::string::npos) return false;
  const auto keys = keys_named(d.message);
  if (keys.empty()) return false;
  return std::all_of(keys.begin(), keys.end(), [&](const std::string& key) {
    return std::any_of(overrides.begin(), overrides.end(),
                       [&](const std::string& o) { return o.substr(0, o.find('=')) == key; });
  });
}

}  // namespace

void print_notes(std::ostream& err, const warnings& notes, const note_options& options) {
  // A note said twice (a check run on the job as imported and again as planned) is printed once.
  warnings left;
  for (const auto& n : notes)
    if (!settled_by_set(n, options.overrides) &&
        std::find(left.begin(), left.end(), n) == left.end())
      left.push_back(n);
  if (options.verbose) return print_notes(err, left);
  std::vector<std::vector<const diagnostic*>> by_kind(std::size(note_kinds));
  for (const auto& n : left)
    if (const auto* k = kind_of(n)) by_kind[static_cast<std::size_t>(k - note_kinds)].push_back(&n);
  bool summarized = false;
  for (const auto& n : left) {
    const auto* k = kind_of(n);
    const auto& same =
        k ? by_kind[static_cast<std::size_t>(k - note_kinds)] : std::vector<const diagnostic*>{};
    if (same.size() < 2) {
      err << "warning: " << n.to_string() << "\n";
      continue;
    }
    if (same.front() != &n) continue;  // the kind's line is printed at its first note
    // In order, each key once, with the most it was said about (an "auto" value noted when
    // read and again when filled in).
    std::vector<std::string> names;
    for (const auto* d : same) {
      auto name = name_in(*d, *k);
      const auto key = k->quoted_name ? name.substr(0, name.find(' ')) : name;
      const auto seen = std::find_if(names.begin(), names.end(), [&](const std::string& n) {
        return (k->quoted_name ? n.substr(0, n.find(' ')) : n) == key;
      });
      if (seen == names.end())
        names.push_back(std::move(name));
      else if (name.size() > seen->size())
        *seen = std::move(name);
    }
    constexpr std::size_t shown = 6;
    std::string list;
    for (std::size_t i = 0; i < std::min(shown, names.size()); ++i)
      list += (i ? ", " : "") + names[i];
    if (names.size() > shown) list += fmt::format(", and {} more", names.size() - shown);
    err << fmt::format("warning: {} {}: {}\n", names.size(), names.size() == 1 ? k->one : k->many,
                       list);
    summarized = true;
  }
  if (summarized) err << "  (--verbose shows each warning with its file and line)\n";
}

}  // namespace vramscope::cli
