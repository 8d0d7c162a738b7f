// A zip archive, byte for byte (ZipReader, which lesson 6.2 unzips the SMS Spam
// Collection with). The reader must list entries that lie inside the bytes or throw an
// llm::Error; every entry then reads (or verifies, when large) to exactly its stated
// size, or throws an llm::Error.
#include "fuzz.h"
#include "llm/io/zip.h"
#include "llm/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = llm::fuzz::bytes(data, size);
  try {
    const llm::ZipReader zip(bytes, "fuzz input");
    for (const auto& entry : zip.entries()) {
      llm::fuzz::require(entry.data_offset <= bytes.size() && entry.compressed_size <= bytes.size() - entry.data_offset,
                         "an entry's data lies outside the bytes");
      try {
        if (entry.size > (uint64_t{1} << 24)) {
          zip.verify(entry);  // a hostile stated size: checked without allocating it
        } else {
          llm::fuzz::require(zip.read(entry).size() == entry.size, "an entry read to another size than it states");
        }
      } catch (const llm::Error&) {
      }
    }
  } catch (const llm::Error&) {
  }
  return 0;
}
