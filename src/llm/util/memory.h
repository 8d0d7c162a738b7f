#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace llm {

/// The machine's physical memory in bytes (0 when the system does not say).
uint64_t physical_memory();

/// The most memory this process has held resident (Linux's VmHWM, else getrusage's
/// ru_maxrss), in bytes, since it started or since reset_peak_resident_memory(): the
/// CPU's counterpart of the course's torch.cuda.max_memory_allocated().
uint64_t peak_resident_memory();

/// Starts peak_resident_memory() again from what the process holds now (Linux's
/// clear_refs), as torch.cuda.reset_peak_memory_stats() does: false where the system
/// does not allow it, and the peak stays the whole run's.
bool reset_peak_resident_memory();

/// A byte count for people: "512 B", "3.1 MB", "24.0 GB", "2.5e+04 TB".
std::string format_bytes(double bytes);

/// Throws llm::Error, "{what}: about {bytes} of memory needed; this machine has {its
/// memory}", when `bytes` is more than the machine's physical memory: a size that
/// cannot fit is refused, naming what asked for it, before anything is allocated.
void check_fits_in_memory(double bytes, std::string_view what);

}  // namespace llm
