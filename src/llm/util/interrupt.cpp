#include "llm/util/interrupt.h"

#include <csignal>

namespace llm {
namespace {

volatile std::sig_atomic_t g_signal = 0;
struct sigaction g_previous_int, g_previous_term;

void on_signal(int signal) { g_signal = signal; }

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

}  // namespace llm
