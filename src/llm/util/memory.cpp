#include "llm/util/memory.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <string>

#include "llm/util/error.h"

namespace llm {

uint64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

uint64_t peak_resident_memory() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {  // a few dozen short lines
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;  // "VmHWM:  812 kB"
  }
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0 || usage.ru_maxrss < 0) return 0;
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux counts kilobytes
}

bool reset_peak_resident_memory() {
  std::ofstream refs("/proc/self/clear_refs");
  refs << "5";  // reset the peak resident set size (Linux 4.0+)
  refs.flush();
  return static_cast<bool>(refs);
}

std::string format_bytes(double bytes) {
  constexpr std::array<const char*, 5> kUnits = {"B", "KB", "MB", "GB", "TB"};
  size_t unit = 0;
  while (bytes >= 1000.0 && unit + 1 < kUnits.size()) bytes /= 1000.0, ++unit;
  if (unit == 0) return fmt::format("{:.0f} B", bytes);
  return bytes < 1000.0 ? fmt::format("{:.1f} {}", bytes, kUnits[unit]) : fmt::format("{:.2g} {}", bytes, kUnits[unit]);
}

void check_fits_in_memory(double bytes, std::string_view what) {
  const uint64_t memory = physical_memory();
  if (memory == 0 || bytes <= static_cast<double>(memory)) return;
  throw Error(fmt::format("{}: about {} of memory needed; this machine has {}", what, format_bytes(bytes),
                          format_bytes(static_cast<double>(memory))));
}

}  // namespace llm
