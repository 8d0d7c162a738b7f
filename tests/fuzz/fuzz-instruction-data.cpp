// Instruction data and preference data (lesson 7.2's instruction-data.json, the DPO
// notebook's instruction-data-with-preference.json): any bytes parse into entries or
// an llm::Error. Every entry of the preference data has its chosen and rejected
// responses, and is an instruction entry the instruction parser reads the same; its
// fields print as pprint does without a crash.
#include <string>

#include "fuzz.h"
#include "llm/text/instruction_data.h"
#include "llm/text/preference_data.h"
#include "llm/util/error.h"
#include "llm/util/pprint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = llm::fuzz::bytes(data, size);
  try {
    const auto entries = llm::parse_instruction_data(text, "fuzz input");
    llm::fuzz::require(!entries.empty(), "instruction data without entries");
  } catch (const llm::Error&) {
  }
  try {
    const auto preferences = llm::parse_preference_data(text, "fuzz input");
    const auto entries = llm::parse_instruction_data(text, "fuzz input");
    llm::fuzz::require(entries.size() == preferences.size(), "the two parsers disagree on the entries");
    for (size_t i = 0; i < entries.size(); ++i) {
      const auto& entry = preferences[i].entry;
      llm::fuzz::require(entry.instruction == entries[i].instruction && entry.output == entries[i].output,
                         "a preference entry is not the instruction entry");
      llm::python_pprint({{"instruction", entry.instruction}, {"input", entry.input},
                          {"chosen", preferences[i].chosen}, {"rejected", preferences[i].rejected}});
    }
  } catch (const llm::Error&) {
  }
  return 0;
}
