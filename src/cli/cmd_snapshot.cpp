// vramscope snapshot FILE.pickle [--json] [--top N] [--html PAGE]: where the peak of a PyTorch
// memory snapshot is, what was live there and how fragmented the allocator was.
#include <vramscope/observe/observe_json.hpp>
#include <vramscope/observe/torch_snapshot.hpp>
#include <vramscope/report/snapshot_report.hpp>

#include <ostream>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/messages.hpp"

namespace vramscope::cli {

int cmd_snapshot(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"Analyse a PyTorch memory snapshot (torch.cuda.memory._dump_snapshot)", "snapshot"};
  std::string path;
  bool json = false;
  std::size_t top = 10;
  app.add_option("FILE", path, "the snapshot pickle")->required();
  app.add_flag("--json", json, "print the analysis as JSON (figures in bytes)");
  app.add_option("--top", top, "how many allocations and call sites to list (default 10)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{10000}));
  std::string html;
  app.add_option("--html", html, "also write a self-contained HTML page: the memory timeline, the "
                                 "largest allocations at the peak and the segment map");
  int code = 0;
  if (!parse_args(app, args, out, err, code)) return code;

  observe::snapshot_options options;
  options.top_allocations = top;
  auto summary = observe::analyze_snapshot(path, options);
  if (!summary) {
    err << "vramscope snapshot: " << summary.error().to_string() << "\n";
    return static_cast<int>(exit_status::bad_input);
  }
  if (!html.empty()) {
    if (auto written = write_file_atomic(html, report::snapshot_html(*summary, top)); !written)
      return report_bad_input(err, "snapshot", written.error());
  }
  if (json) out << observe::to_json(*summary).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else report::render_snapshot_text(out, *summary, top);
  return static_cast<int>(exit_status::ok);
}

}  // namespace vramscope::cli
