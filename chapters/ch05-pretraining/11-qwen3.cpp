// Bonus 5.11 (ch05/11_qwen3, standalone-qwen3 and -plus-kvcache): Qwen3 0.6B from
// scratch. The model as PyTorch prints it, its logits for [1, 2, 3], its parameters and
// memory, then the reasoning model's chat prompt and a greedy answer (--kv-cache: the
// KV-cache notebook's). --model-dir reads the Hub's Qwen/Qwen3-0.6B folder.
#include "notebook.h"

int main(int argc, char** argv) {
  using lesson::Cell;
  return lesson::run_notebook(
      argc, argv,
      {"ch05-11-qwen3", "Qwen3 from scratch (the course's standalone-qwen3 notebook)", "qwen3-0.6b.json", "qwen3",
       llm::ChatFormat::kQwen3, llm::ChatOptions{/*generation_prompt=*/true, /*thinking=*/true},
       "Give me a short introduction to large language models.", 500, /*stops_at_turn_end=*/true,
       {Cell::kModel, Cell::kLogits, Cell::kParameters, Cell::kMemory, Cell::kWeights, Cell::kPrompt, Cell::kStream}});
}
