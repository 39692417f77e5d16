#pragma once
// Ctrl-C and friends for the long-running commands (`watch`, `trace`): while a
// stop_signal_scope lives, SIGINT, SIGTERM and SIGHUP only record which signal arrived; the
// loop polls stop_signal_scope::received() and ends cleanly. The previous handlers come back
// when the scope ends, so the CLI can be driven in-process by tests.

namespace vramscope::watch {

class stop_signal_scope {
 public:
  /// Installs the handlers and clears any earlier signal. Scopes do not nest.
  stop_signal_scope();
  ~stop_signal_scope();
  stop_signal_scope(const stop_signal_scope&) = delete;
  stop_signal_scope& operator=(const stop_signal_scope&) = delete;

  /// The last signal received while the scope lived, or 0. Async-signal-safe.
  static int received();

  /// Forgets the signal received (trace forwards it to its child and goes on waiting).
  static void clear();
};

}  // namespace vramscope::watch
