// Bonus 5.12 (ch05/12_gemma3, standalone-gemma3 and -plus-kvcache): Gemma 3 270M from
// scratch. The model as PyTorch prints it, its logits for [1, 2, 3], its parameters and
// memory, then the chat prompt and a greedy answer (--kv-cache: the KV-cache
// notebook's). --model-dir reads the Hub's google/gemma-3-270m-it folder.
#include "notebook.h"

int main(int argc, char** argv) {
  using lesson::Cell;
  return lesson::run_notebook(
      argc, argv,
      {{"ch05-12-gemma3", "Gemma 3 from scratch (the course's standalone-gemma3 notebook)", "", "",
        "gemma3-270m.json", "gemma3", llm::ChatFormat::kGemma3, llm::ChatOptions{},
        "Give me a short introduction to large language models.", 500, /*stops_at_turn_end=*/true,
        {Cell::kModel, Cell::kLogits, Cell::kParameters, Cell::kMemory, Cell::kWeights, Cell::kPrompt,
         Cell::kStream}}});
}
