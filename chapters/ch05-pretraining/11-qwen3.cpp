// Bonus 5.11 (ch05/11_qwen3): Qwen3 from scratch. standalone-qwen3 (and -plus-kvcache,
// --kv-cache): Qwen3 0.6B as PyTorch prints it, its logits for [1, 2, 3], its
// parameters and memory, then the reasoning model's chat prompt and a greedy answer.
// --moe: standalone-qwen3-moe, the 30B-A3B mixture of experts (about 61 GB in
// bfloat16; --config takes a smaller one) and 100 tokens with no stop. --model-dir
// reads the Hub's folder (Qwen/Qwen3-0.6B, Qwen/Qwen3-30B-A3B).
#include "notebook.h"

int main(int argc, char** argv) {
  using lesson::Cell;
  const std::string prompt = "Give me a short introduction to large language models.";
  const llm::ChatOptions reasoning{/*generation_prompt=*/true, /*thinking=*/true};
  return lesson::run_notebook(
      argc, argv,
      {{"ch05-11-qwen3", "Qwen3 from scratch (the course's standalone-qwen3 notebook)", "", "", "qwen3-0.6b.json",
        "qwen3", llm::ChatFormat::kQwen3, reasoning, prompt, 500, /*stops_at_turn_end=*/true,
        {Cell::kModel, Cell::kLogits, Cell::kParameters, Cell::kMemory, Cell::kWeights, Cell::kPrompt, Cell::kStream}},
       {"ch05-11-qwen3", "Qwen3's mixture of experts from scratch (the course's standalone-qwen3-moe notebook)", "moe",
        "The mixture-of-experts notebook (standalone-qwen3-moe): its config, prompt and 100 tokens, no stop token",
        "qwen3-30b-a3b.json", "qwen3", llm::ChatFormat::kQwen3, reasoning,
        "Implement a binary search function in Python", 100, /*stops_at_turn_end=*/false,
        {Cell::kLogits, Cell::kParameters, Cell::kMemory, Cell::kWeights, Cell::kPrompt, Cell::kStream}}});
}
