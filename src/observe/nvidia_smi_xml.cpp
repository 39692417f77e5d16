// `nvidia-smi -q -x`. Facts used (docs/formats/nvidia-smi.md): root <nvidia_smi_log>; one <gpu id=
// "bus id"> per device with product_name, uuid, fb_memory_usage/{total,reserved,used,free} as
// "<n> MiB" (reserved absent on old drivers, "N/A" on unified-memory GPUs), utilization/
// {gpu_util,memory_util} as "<n> %", processes/process_info/{gpu_instance_id, compute_instance_id,
// pid, type, process_name, used_memory}. bar1_memory_usage and cc_protected_memory_usage have the
// same child names but are not device memory. The DTD name changes between drivers; unknown
// elements appear in every release, so elements are read by path and the rest ignored.
#include <vramscope/observe/nvidia_smi.hpp>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "observe/text_util.hpp"

namespace vramscope::observe {

namespace {

struct xml_reader {
  std::string_view text;
  const std::string& source;

  diagnostic bad(const pugi::xml_node& node, std::string message) const {
    const auto offset = node.offset_debug();
    if (offset < 0) return error_at(source, std::move(message));
    return detail::error_at_offset(source, text, static_cast<std::size_t>(offset), std::move(message));
  }

  static std::string_view value_of(const pugi::xml_node& node) {
    return detail::trim(node.child_value());
  }

  static bool is_missing(std::string_view v) {
    return v.empty() || v == "N/A" || v.front() == '[' || detail::contains(v, "Not Supported") ||
           detail::contains(v, "deprecated") || detail::contains(v, "Insufficient Permissions");
  }

  result<std::optional<bytes>> size(const pugi::xml_node& parent, const char* child) const {
    const pugi::xml_node node = parent.child(child);
    const std::string_view v = value_of(node);
    if (!node || is_missing(v)) return std::optional<bytes>{};
    if (auto b = detail::parse_size(v, 0)) return std::optional<bytes>{*b};
    return bad(node, fmt::format("<{}>: expected a size such as \"8188 MiB\", got {}", child, detail::quoted(v)));
  }

  result<std::optional<int>> percent(const pugi::xml_node& parent, const char* child) const {
    const pugi::xml_node node = parent.child(child);
    std::string_view v = value_of(node);
    if (!node || is_missing(v)) return std::optional<int>{};
    if (!v.empty() && v.back() == '%') v = detail::trim(v.substr(0, v.size() - 1));
    if (auto n = detail::parse_uint(v); n && *n <= 100) return std::optional<int>{static_cast<int>(*n)};
    return bad(node, fmt::format("<{}>: expected a percentage such as \"30 %\", got {}", child,
                                 detail::quoted(value_of(node))));
  }

  static std::optional<int> small_int(const pugi::xml_node& node) {
    if (auto v = detail::parse_uint(value_of(node)); v && *v < 1'000'000) return static_cast<int>(*v);
    return std::nullopt;
  }

  status read_memory(const pugi::xml_node& gpu_node, gpu_observation& g) const {
    const pugi::xml_node fb = gpu_node.child("fb_memory_usage");
    auto total = size(fb, "total");
    auto reserved = size(fb, "reserved");
    auto used = size(fb, "used");
    auto free = size(fb, "free");
    for (auto* r : {&total, &reserved, &used, &free})
      if (!*r) return r->error();
    g.total = *total;
    g.reserved = *reserved;
    g.used = *used;
    g.free = *free;
    const pugi::xml_node util = gpu_node.child("utilization");
    auto gpu_util = percent(util, "gpu_util");
    if (!gpu_util) return gpu_util.error();
    auto memory_util = percent(util, "memory_util");
    if (!memory_util) return memory_util.error();
    g.utilization_gpu = *gpu_util;
    g.utilization_memory = *memory_util;
    return ok();
  }

  status read_process(const pugi::xml_node& info, int gpu_index, const std::string& bus_id,
                      observation& out) const {
    process_observation p;
    p.gpu_index = gpu_index;
    p.gpu_bus_id = bus_id;
    const pugi::xml_node pid = info.child("pid");
    const auto pid_value = detail::parse_uint(value_of(pid));
    if (!pid_value || *pid_value > static_cast<std::uint64_t>(INT32_MAX))
      return bad(pid ? pid : info, fmt::format("<pid>: expected a process id, got {}",
                                               detail::quoted(value_of(pid))));
    p.pid = static_cast<std::int64_t>(*pid_value);
    p.type = std::string(value_of(info.child("type")));
    p.name = std::string(value_of(info.child("process_name")));
    p.gpu_instance = small_int(info.child("gpu_instance_id"));
    p.compute_instance = small_int(info.child("compute_instance_id"));
    auto used = size(info, "used_memory");
    if (!used) return used.error();
    p.used = *used;
    out.processes.push_back(std::move(p));
    return ok();
  }

  status read_gpu(const pugi::xml_node& node, int index, observation& out) const {
    gpu_observation g;
    g.index = index;
    g.name = std::string(value_of(node.child("product_name")));
    g.uuid = std::string(value_of(node.child("uuid")));
    g.bus_id = node.attribute("id").value();
    if (g.bus_id.empty()) g.bus_id = std::string(value_of(node.child("pci").child("pci_bus_id")));
    auto st = read_memory(node, g);
    if (!st) return st.error();
    for (const pugi::xml_node info : node.child("processes").children("process_info")) {
      st = read_process(info, index, g.bus_id, out);
      if (!st) return st.error();
    }
    out.gpus.push_back(std::move(g));
    return ok();
  }
};

}  // namespace

result<observation> parse_nvidia_smi_xml(std::string_view text, const std::string& source) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size(), pugi::parse_default);
  if (!parsed) {
    const auto offset = parsed.offset < 0 ? std::size_t{0} : static_cast<std::size_t>(parsed.offset);
    return detail::error_at_offset(source, text, offset, fmt::format("invalid XML: {}", parsed.description()));
  }
  const pugi::xml_node root = doc.document_element();
  const xml_reader reader{text, source};
  if (std::string_view(root.name()) != "nvidia_smi_log")
    return reader.bad(root, fmt::format("expected <nvidia_smi_log> as the root element (nvidia-smi -q -x), found <{}>",
                                        root.name()));
  observation out;
  out.driver_version = std::string(xml_reader::value_of(root.child("driver_version")));
  out.cuda_version = std::string(xml_reader::value_of(root.child("cuda_version")));
  int index = 0;
  for (const pugi::xml_node gpu : root.children("gpu")) {
    auto st = reader.read_gpu(gpu, index++, out);
    if (!st) return st.error();
  }
  if (out.gpus.empty()) out.warnings.push_back(error_at(source, "<nvidia_smi_log> lists no <gpu> element"));
  return out;
}

}  // namespace vramscope::observe
