#include "llm/util/interrupt.h"

#include <csignal>

namespace llm {
namespace {

volatile std::sig_atomic_t g_signal = 0;
struct sigaction g_previous_int, g_previous_term;

// The first signal is the one that asked for the stop; later ones do not rename it.
void on_signal(int signal) {
  if (g_signal == 0) g_signal = signal;
}

// Signals that came while a DeferSignals guard was alive, by kind.
volatile std::sig_atomic_t g_deferred_int = 0, g_deferred_term = 0;
int g_defer_depth = 0;  // guards alive; the outermost one acts

void on_deferred_signal(int signal) {
  if (g_signal == 0) g_signal = signal;  // a stop is requested at once; whether the program ends is decided when the guard goes
  if (signal == SIGINT) ++g_deferred_int;
  if (signal == SIGTERM) ++g_deferred_term;
}

bool is_default(const struct sigaction& action) { return action.sa_handler == SIG_DFL; }

}  // namespace

StopOnSignal::StopOnSignal() {
  g_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  action.sa_flags = SA_RESETHAND;  // a second signal of the kind takes its default action
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

StopOnSignal::~StopOnSignal() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

bool StopOnSignal::requested() { return g_signal != 0; }

int StopOnSignal::signal_number() { return g_signal; }

const char* StopOnSignal::signal_name() { return g_signal == SIGINT ? "SIGINT (Ctrl-C)" : "SIGTERM"; }

DeferSignals::DeferSignals() : previous_{} {
  if (g_defer_depth++ > 0) return;  // an outer guard already defers them
  g_deferred_int = g_deferred_term = 0;
  struct sigaction action {};
  action.sa_handler = on_deferred_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous_[0]);
  sigaction(SIGTERM, &action, &previous_[1]);
}

DeferSignals::~DeferSignals() {
  if (--g_defer_depth > 0) return;
  const int signals[2] = {SIGINT, SIGTERM};
  const int counts[2] = {g_deferred_int, g_deferred_term};
  for (int k = 0; k < 2; ++k) {
    auto previous = previous_[k];
    // What the signals would have done: with no handler (or StopOnSignal's after its
    // first signal) the first ends the program; with StopOnSignal's the first stops
    // and a second ends it.
    const bool stop_handler = previous.sa_handler == on_signal;
    if (counts[k] > 0 && stop_handler) previous.sa_handler = SIG_DFL;  // StopOnSignal's resets itself after one
    sigaction(signals[k], &previous, nullptr);
    const bool ends = (is_default(previous_[k]) && counts[k] > 0) || (stop_handler && counts[k] > 1);
    if (ends) std::raise(signals[k]);
  }
}

}  // namespace llm
