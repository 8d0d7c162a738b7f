// The checkpoint loader on any file, byte for byte: the zip layer with its CRC-32
// checks, the pickle, then every step of reading a checkpoint. Mutated bytes seldom
// pass the checksums; fuzz-archive reaches the steps behind them.
#include "fuzz.h"
#include "fuzz_checkpoint.h"
#include "llm/io/torch_pickle.h"
#include "llm/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    llm::fuzz::load_as_checkpoint(llm::read_torch_archive(llm::fuzz::bytes(data, size), "fuzz input"), "fuzz input");
  } catch (const llm::Error&) {
  }
  return 0;
}
