#include <vramscope/watch/stop_signal.hpp>

#include <csignal>

namespace vramscope::watch {

namespace {

volatile std::sig_atomic_t last_signal = 0;
constexpr int handled[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previous[3];

void record_signal(int signal) { last_signal = signal; }

}  // namespace

stop_signal_scope::stop_signal_scope() {
  last_signal = 0;
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: a blocking sleep or read returns early so the loop sees the signal.
  for (int i = 0; i < 3; ++i) sigaction(handled[i], &action, &previous[i]);
}

stop_signal_scope::~stop_signal_scope() {
  for (int i = 0; i < 3; ++i) sigaction(handled[i], &previous[i], nullptr);
}

int stop_signal_scope::received() { return last_signal; }

void stop_signal_scope::clear() { last_signal = 0; }

}  // namespace vramscope::watch
