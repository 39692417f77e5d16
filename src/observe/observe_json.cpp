#include <vramscope/observe/observe_json.hpp>

namespace vramscope::observe {

namespace {

using json = nlohmann::json;

template <typename T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

void put(json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}

}  // namespace

json to_json(const gpu_observation& g) {
  json j = json::object();
  put(j, "index", g.index);
  put(j, "name", g.name);
  put(j, "uuid", g.uuid);
  put(j, "bus_id", g.bus_id);
  put(j, "total", g.total);
  put(j, "used", g.used);
  put(j, "free", g.free);
  put(j, "reserved", g.reserved);
  put(j, "utilization_gpu", g.utilization_gpu);
  put(j, "utilization_memory", g.utilization_memory);
  return j;
}

json to_json(const process_observation& p) {
  json j = {{"pid", p.pid}};
  put(j, "gpu_index", p.gpu_index);
  put(j, "gpu_uuid", p.gpu_uuid);
  put(j, "gpu_bus_id", p.gpu_bus_id);
  put(j, "name", p.name);
  put(j, "type", p.type);
  put(j, "used", p.used);
  put(j, "gpu_instance", p.gpu_instance);
  put(j, "compute_instance", p.compute_instance);
  return j;
}

namespace {

json to_json(const torch_stats::level& l) {
  json j = json::object();
  put(j, "current", l.current);
  put(j, "peak", l.peak);
  return j;
}

json to_json(const torch_stats& s) {
  json j = {{"origin", s.origin == stats_origin::memory_stats_json   ? "memory_stats"
                       : s.origin == stats_origin::memory_summary_text ? "memory_summary"
                                                                       : "log_figures"},
            {"allocated", to_json(s.allocated)}, {"active", to_json(s.active)},
            {"reserved", to_json(s.reserved)}, {"requested", to_json(s.requested)},
            {"inactive_split", to_json(s.inactive_split)}, {"raw", s.raw}};
  put(j, "rank", s.rank);
  put(j, "device", s.device);
  put(j, "inactive_split_blocks", s.inactive_split_blocks);
  put(j, "num_alloc_retries", s.num_alloc_retries);
  put(j, "num_ooms", s.num_ooms);
  put(j, "source", s.source);
  if (!s.missing.empty()) j["missing"] = s.missing;
  put(j, "cut_at_line", s.cut_at_line);
  if (s.cut) j["cut"] = true;
  if (!s.label.empty()) j["label"] = s.label;
  if (s.after_change) j["after_change"] = true;
  return j;
}

json to_json(const vllm_profile& v) {
  json j = {{"line", v.line}, {"source", v.source}};
  put(j, "total", v.total);
  put(j, "utilization", v.utilization);
  put(j, "claimed", v.claimed);
  put(j, "weights", v.weights);
  put(j, "non_torch", v.non_torch);
  put(j, "activation_peak", v.activation_peak);
  put(j, "kv_cache", v.kv_cache);
  put(j, "free_at_start", v.free_at_start);
  if (v.error_after) j["error_after"] = true;
  return j;
}

json to_json(const oom_report& r) {
  json j = {{"kind", r.kind == oom_kind::torch ? "torch"
                     : r.kind == oom_kind::xla ? "xla"
                                               : "cuda"},
            {"origin", r.origin == oom_origin::allocator          ? "allocator"
                       : r.origin == oom_origin::context_creation ? "context_creation"
                                                                  : "outside_allocator"},
            {"allocator", std::string(allocator_name(r.allocator))},
            {"line", r.line},
            {"raw", r.raw}};
  put(j, "rank", r.rank);
  put(j, "gpu", r.gpu);
  put(j, "requested", r.requested);
  put(j, "capacity", r.capacity);
  put(j, "free", r.free);
  put(j, "allocated_by_pytorch", r.allocated_by_pytorch);
  put(j, "reserved_by_pytorch", r.reserved_by_pytorch);
  put(j, "reserved_unallocated", r.reserved_unallocated);
  put(j, "in_use", r.in_use);
  put(j, "peak_in_use", r.peak_in_use);
  put(j, "largest_free_block", r.largest_free_block);
  put(j, "pool_held", r.pool_held);
  put(j, "other_allocations", r.other_allocations);
  if (!r.missing.empty()) j["missing"] = r.missing;
  json processes = json::array();
  for (const auto& p : r.processes) {
    json e = {{"used", p.used}};
    put(e, "pid", p.pid);
    processes.push_back(e);
  }
  j["processes"] = processes;
  return j;
}

json warnings_json(const vramscope::warnings& w) {
  json j = json::array();
  for (const auto& d : w) j.push_back(d.to_string());
  return j;
}

json to_json(const stack_frame& f);
json to_json(const snapshot_allocation& a);
json to_json(const allocation_site& s);
json to_json(const snapshot_oom& o);
json to_json(const device_snapshot& d);

template <typename T>
json list(const std::vector<T>& items) {
  json j = json::array();
  for (const auto& i : items) j.push_back(to_json(i));
  return j;
}

json to_json(const stack_frame& f) { return {{"name", f.name}, {"filename", f.filename}, {"line", f.line}}; }

json to_json(const trace_peak& p) {
  json j = {{"bytes", p.value}};
  put(j, "trace_index", p.trace_index);
  put(j, "time_us", p.time_us);
  return j;
}

json to_json(const segment_state& s) {
  return {{"segments", s.segments}, {"expandable_segments", s.expandable_segments}, {"blocks", s.blocks},
          {"reserved", s.reserved}, {"allocated", s.allocated}, {"requested", s.requested},
          {"active_pending_free", s.active_pending_free}, {"inactive", s.inactive},
          {"inactive_split", s.inactive_split}, {"inactive_split_blocks", s.inactive_split_blocks},
          {"largest_inactive_block", s.largest_inactive_block}};
}

json to_json(const snapshot_allocation& a) {
  json j = {{"address", a.address}, {"size", a.size}, {"requested", a.requested},
            {"category", name_of(a.category)}, {"frames", list(a.frames)}};
  put(j, "trace_index", a.trace_index);
  return j;
}

json to_json(const allocation_site& s) {
  return {{"category", name_of(s.category)}, {"frames", list(s.frames)}, {"count", s.count}, {"total", s.total}};
}

json to_json(const snapshot_oom& o) {
  json j = {{"trace_index", o.trace_index}, {"requested", o.requested}, {"device_free", o.device_free}};
  put(j, "time_us", o.time_us);
  return j;
}

json to_json(const device_snapshot& d) {
  json categories = json::object();
  for (std::size_t c = 0; c < memory_category_count; ++c)
    categories[std::string(name_of(static_cast<memory_category>(c)))] = d.categories_at_peak[c];
  json j = {{"device", d.device}, {"final_state", to_json(d.final_state)}, {"trace_entries", d.trace_entries},
            {"allocs", d.allocs}, {"frees", d.frees}, {"segment_allocs", d.segment_allocs},
            {"segment_frees", d.segment_frees}, {"other_entries", d.other_entries},
            {"allocated_before_trace", d.allocated_before_trace},
            {"peak_allocated", to_json(d.peak_allocated)}, {"peak_active", to_json(d.peak_active)},
            {"peak_reserved", to_json(d.peak_reserved)},
            {"reserved_at_allocated_peak", d.reserved_at_allocated_peak},
            {"fragmentation_at_allocated_peak",
             d.reserved_at_allocated_peak > d.peak_allocated.value ? d.reserved_at_allocated_peak - d.peak_allocated.value : 0},
            {"allocations_at_peak", d.allocations_at_peak}, {"categories_at_peak", categories},
            {"top_allocations", list(d.top_allocations)}, {"top_sites", list(d.top_sites)},
            {"ooms", list(d.ooms)}};
  put(j, "first_time_us", d.first_time_us);
  put(j, "last_time_us", d.last_time_us);
  return j;
}

}  // namespace

nlohmann::json to_json(const observation& o) {
  json j = {{"gpus", list(o.gpus)}, {"processes", list(o.processes)}, {"stats", list(o.stats)},
            {"ooms", list(o.ooms)}, {"warnings", warnings_json(o.warnings)}};
  if (!o.vllm.empty()) j["vllm"] = list(o.vllm);
  put(j, "driver_version", o.driver_version);
  put(j, "cuda_version", o.cuda_version);
  return j;
}

nlohmann::json to_json(const snapshot_summary& s) {
  json j = {{"source", s.source}, {"file_bytes", s.file_bytes}, {"protocol", s.protocol},
            {"devices", list(s.devices)}, {"warnings", warnings_json(s.warnings)}};
  put(j, "alloc_conf", s.alloc_conf);
  put(j, "expandable_segments", s.expandable_segments);
  return j;
}

}  // namespace vramscope::observe
