// Bonus 5.7 (ch05/07_gpt_to_llama, standalone-llama32): Llama 3.2 1B from scratch. Its
// memory and parameters, then "What do llamas eat?" in Llama 3's chat format, answered
// greedily by chapter 5's generate() (150 tokens, no stop token, as the notebook).
// --model-dir reads the Hub's meta-llama/Llama-3.2-1B-Instruct folder.
#include "notebook.h"

int main(int argc, char** argv) {
  using lesson::Cell;
  return lesson::run_notebook(
      argc, argv,
      {{"ch05-07-llama32", "Llama 3.2 from scratch (the course's standalone-llama32 notebook)", "", "",
        "llama32-1b.json", "llama3", llm::ChatFormat::kLlama3, llm::ChatOptions{}, "What do llamas eat?", 150,
        /*stops_at_turn_end=*/false, {Cell::kMemory, Cell::kParameters, Cell::kWeights, Cell::kTimed}}});
}
