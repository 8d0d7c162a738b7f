#pragma once

namespace llm {

/// While alive, SIGINT (Ctrl-C) and SIGTERM only set a flag that a long loop checks
/// at a safe point, such as a training step boundary, to stop cleanly. A second
/// signal of the same kind ends the program at once, as usual.
class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  /// Whether a signal asked to stop.
  static bool requested();
  /// The signal that did (0 if none).
  static int signal_number();
};

}  // namespace llm
