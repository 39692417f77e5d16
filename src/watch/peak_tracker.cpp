#include <vramscope/watch/peak_tracker.hpp>

#include <algorithm>

namespace vramscope::watch {

namespace {

template <typename Key>
void raise(std::map<Key, bytes>& peaks, const Key& key, std::optional<bytes> value) {
  if (!value) return;
  auto [it, fresh] = peaks.try_emplace(key, *value);
  if (!fresh) it->second = std::max(it->second, *value);
}

template <typename Key>
std::optional<bytes> lookup(const std::map<Key, bytes>& peaks, const Key& key) {
  if (auto it = peaks.find(key); it != peaks.end()) return it->second;
  return std::nullopt;
}

std::string process_gpu_key(const observe::process_observation& p) {
  if (!p.gpu_uuid.empty()) return p.gpu_uuid;
  return "#" + std::to_string(p.gpu_index.value_or(-1));
}

}  // namespace

std::string gpu_key(const observe::gpu_observation& g) {
  if (!g.uuid.empty()) return g.uuid;
  return "#" + std::to_string(g.index.value_or(-1));
}

void peak_tracker::add(const sample& s) {
  ++samples_;
  for (const auto& g : s.gpus) {
    if (g.lost) continue;
    const auto key = gpu_key(g.gpu);
    for (auto* peaks : {&window_gpu_, &total_gpu_}) {
      raise(*peaks, key, g.gpu.used);
      raise(*peaks, key, g.peak_used);
    }
  }
  for (const auto& p : s.processes) {
    const process_key key{process_gpu_key(p.process), p.process.pid};
    for (auto* peaks : {&window_process_, &total_process_}) {
      raise(*peaks, key, p.process.used);
      raise(*peaks, key, p.peak_used);
    }
  }
}

void peak_tracker::fill_window_peaks(sample& s) const {
  for (auto& g : s.gpus)
    if (!g.lost) g.peak_used = lookup(window_gpu_, gpu_key(g.gpu));
  for (auto& p : s.processes)
    p.peak_used = lookup(window_process_, process_key{process_gpu_key(p.process), p.process.pid});
}

void peak_tracker::start_window() {
  window_gpu_.clear();
  window_process_.clear();
}

std::optional<bytes> peak_tracker::gpu_peak(const gpu_reading& g) const {
  return lookup(total_gpu_, gpu_key(g.gpu));
}

std::optional<bytes> peak_tracker::process_peak(const process_reading& p) const {
  return lookup(total_process_, process_key{process_gpu_key(p.process), p.process.pid});
}

}  // namespace vramscope::watch
