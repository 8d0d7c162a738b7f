#include "llm/train/lesson_seeds.h"

#include <torch/torch.h>

namespace llm {

void LessonSeeds::reseed() const { torch::manual_seed(static_cast<uint64_t>(seed_)); }

void LessonSeeds::before_lora() const {
  reseed();
  constexpr int kAccuracyCheckLoaderSeeds = 4;  // calc_accuracy_loader on train (2), val and test loaders
  for (int draw = 0; draw < kAccuracyCheckLoaderSeeds; ++draw) torch::empty({}, torch::kLong).random_();
}

}  // namespace llm
