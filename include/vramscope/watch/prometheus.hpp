#pragma once
// `watch --prometheus ADDR:PORT`: the latest frame in the Prometheus text exposition format
// 0.0.4 (the Prometheus documentation, "Exposition formats"), served at /metrics by a small
// HTTP server.
//
// Names use base units (bytes, ratios) and a vramscope_ prefix. GPU samples carry our labels
// (`gpu` = index, `uuid`, `pci_bus_id`, `model_name`) and the names dcgm-exporter gives the same
// facts (`UUID`, `modelName`, `Hostname`), so one dashboard or join (`on(Hostname, gpu)` or
// `on(UUID)` with DCGM_FI_DEV_FB_USED) serves both exporters. docs/watch.md lists every metric:
//
//   vramscope_gpu_memory_{total,used,free,reserved}_bytes{gpu,uuid,pci_bus_id,model_name,...}
//   vramscope_gpu_memory_window_peak_bytes, vramscope_gpu_memory_peak_bytes
//   vramscope_gpu_utilization_ratio, vramscope_gpu_memory_activity_ratio, vramscope_gpu_lost
//   vramscope_process_memory_used_bytes{gpu,uuid,pid,comm,rank,local_rank,Hostname,UUID}
//   vramscope_process_memory_window_peak_bytes, vramscope_process_memory_peak_bytes
//   vramscope_alert_active{alert,gpu,Hostname}  1 while the alert holds, else 0 (every alert x GPU)
//   vramscope_torch_{allocated,active,reserved}_bytes{rank,file,Hostname}  (watch --stats DIR)
//   vramscope_torch_{allocated,reserved}_peak_bytes, vramscope_torch_alloc_retries_total,
//   vramscope_torch_ooms_total, vramscope_torch_stats_age_seconds
//   vramscope_torch_stats_files_skipped{Hostname}
//   vramscope_samples_total, vramscope_last_sample_timestamp_seconds

#include <memory>
#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/watch/peak_tracker.hpp>
#include <vramscope/watch/sampler.hpp>
#include <vramscope/watch/stats_folder.hpp>
#include <vramscope/watch/web_config.hpp>

namespace vramscope::watch {

/// What the exposition adds to a frame from outside the GPU source.
struct exposition_extras {
  std::string hostname;  // the `Hostname` label on every GPU, process and alert sample; "" = none
  const stats_folder* ranks = nullptr;  // the ranks' allocator figures (`watch --stats DIR`)
};

/// The exposition text for one frame. Figures that are unknown are left out (no sample line);
/// lost GPUs report only vramscope_gpu_lost 1. Ends with a newline.
std::string render_prometheus(const frame& f, const peak_tracker& peaks,
                              const exposition_extras& extras = {});

/// Escapes a label value: backslash, double quote and newline. Bytes that are not UTF-8 (a
/// process name the kernel cut mid-character at 15 bytes) become U+FFFD each, since one such
/// byte makes the whole exposition invalid for Prometheus.
std::string escape_label_value(const std::string& value);

/// HTTP server answering GET /metrics with the latest published text and GET / with a small
/// HTML page linking it (404 elsewhere), on a background thread. publish() may be called from any thread. The destructor stops the
/// server and joins its thread.
class metrics_server {
 public:
  /// Binds `address` ("127.0.0.1:9400", "0.0.0.0:9400", ":9400" = all interfaces; port 0 picks a
  /// free one) and starts serving, over TLS and asking for a user when `security` says so
  /// (web_config.hpp). Fails with "cannot listen on ADDR: ..." (the reason OpenSSL gives for a
  /// certificate or key it refuses included) or a malformed address message (source
  /// "--prometheus").
  static result<std::unique_ptr<metrics_server>> start(const std::string& address,
                                                       const web_config& security = {});

  ~metrics_server();
  metrics_server(const metrics_server&) = delete;
  metrics_server& operator=(const metrics_server&) = delete;

  /// Replaces the text served at /metrics.
  void publish(std::string text);

  /// The port actually bound (useful with port 0).
  [[nodiscard]] int port() const;

  struct impl;

 private:
  explicit metrics_server(std::unique_ptr<impl> impl);
  std::unique_ptr<impl> impl_;
};

/// Splits "HOST:PORT" (HOST may be empty for all interfaces, or [v6] in brackets). Fails on
/// a missing colon or a port outside 0-65535.
result<std::pair<std::string, int>> parse_listen_address(const std::string& address);

}  // namespace vramscope::watch
