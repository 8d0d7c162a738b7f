#pragma once

#include <signal.h>

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
  /// How messages name it: "SIGINT (Ctrl-C)" or "SIGTERM".
  static const char* signal_name();
};

/// While alive, SIGINT and SIGTERM cannot end the program: a file being written is
/// finished first. A signal that comes meanwhile sets the stop flag as usual, and one
/// that would have ended the program (a second Ctrl-C) ends it when the guard goes,
/// with the signal's usual exit status. write_file_atomic holds one, so a second
/// Ctrl-C during a checkpoint write leaves the new checkpoint whole, never a
/// temporary file. Guards nest: only the outermost one acts.
class DeferSignals {
 public:
  DeferSignals();
  ~DeferSignals();
  DeferSignals(const DeferSignals&) = delete;
  DeferSignals& operator=(const DeferSignals&) = delete;

 private:
  struct ::sigaction previous_[2];  // SIGINT's and SIGTERM's handlers before the guard
};

}  // namespace llm
