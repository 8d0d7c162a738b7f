#pragma once

#include <string>

#include "llm/io/tensor_archive.h"
#include "llm/model/gpt_config.h"
#include "llm/model/gpt_model.h"
#include "llm/train/train_config.h"

namespace llm {

/// Lessons 6.4-6.5 for a classification run: the GPT of `model_config` with the seed's
/// weights, or `weights` (a file load_gpt_weights reads: GPT-2's, or a pretraining
/// run's) when given; then, after torch.manual_seed(seed) as the lesson has it, the
/// classification head of config.num_classes, with config.trainable choosing what
/// trains (make_classifier). With config.lora_rank set, appendix E follows: every
/// parameter frozen, and a LoRA of that rank and alpha on every Linear, the head's
/// included, drawn where the appendix draws them. `source` names `weights` in errors.
GPTModel classifier_for_run(const GPTConfig& model_config, const TrainConfig& config, const NamedTensors& weights = {},
                            const std::string& source = "");

/// Lesson 7.5 for an instruction run: the GPT of `model_config` with the seed's
/// weights, or `weights` when given (GPT-2's: the lesson loads 355M). With
/// config.lora_rank set, exercise 7.4 follows: every parameter frozen, and a LoRA on
/// every Linear, drawn next from the generator as the exercise does. `source` names
/// `weights` in errors.
GPTModel instruction_model_for_run(const GPTConfig& model_config, const TrainConfig& config,
                                   const NamedTensors& weights = {}, const std::string& source = "");

/// The model a training checkpoint holds, with its weights: the GPT of its config,
/// given the classification head first when its run classifies, and its LoRA when it
/// had one (frozen as in training). `source` names it in errors.
GPTModel checkpoint_model(const NamedTensors& checkpoint, const std::string& source);

}  // namespace llm
