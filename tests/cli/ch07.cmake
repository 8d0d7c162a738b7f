# Chapter 7: instruction finetuning. Lessons 7.2-7.3 against the lesson's code on the
# lesson's data, its printed numbers, the finetuning and responses replayed in
# PyTorch, the Ollama client against a fake server, and the bad inputs.
set(INSTRUCTIONS ${FIXTURES}/instructions)
set(LESSON_DATA instruction-data.json)

llm_compare_test(ch07-01-data ch07-01-data)
llm_compare_test(ch07-01-data-phi3 ch07-01-data --prompt-style phi3 --entries 0,1)
llm_compare_test(ch07-02-batching ch07-02-batching)
llm_compare_test(ch07-02-batching-masked ch07-02-batching --mask-instructions --prompt-style phi3)

# What the lesson prints besides its numbers (those: docs/lesson-numbers.md).
llm_cli_test(ch07-01:lesson-entry-50-and-prompt 0
             "^ \\{'instruction': 'Identify the correct spelling of the following word.', 'input': 'Ocassion', 'output': \"The correct spelling is 'Occasion.'\"\\}$
^### Instruction:$"
             NEEDS ${LESSON_DATA} COMMAND ch07-01-data)
llm_cli_test(ch07-02:lesson-toy-targets-and-loss 0 "^        \\[    8,     9, 50256,  -100,  -100\\]\\]\\)$
^loss_1 == loss_3: tensor\\(True\\)$"
             NEEDS ${LESSON_DATA} ${GPT2} COMMAND ch07-02-batching)

# Lessons 7.5-7.7 in PyTorch: the run's losses, resuming, the responses.
add_test(NAME cli:ch07:finetune:compare-with-pytorch
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/instruct_run.sh ${BIN} ${PYTHON_TORCH} ${CMAKE_CURRENT_BINARY_DIR}/instruct-run
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch07:finetune:compare-with-pytorch PROPERTIES LABELS cli SKIP_RETURN_CODE 77)

# The DPO bonus in PyTorch: the data, the run's losses and rewards, resuming, the reference.
llm_compare_test(ch07-06-preference-data ch07-06-preference-data)
add_test(NAME cli:ch07:dpo:compare-with-pytorch
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/dpo_run.sh ${BIN} ${PYTHON_TORCH} ${CMAKE_CURRENT_BINARY_DIR}/dpo-run
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch07:dpo:compare-with-pytorch PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
set(PREFERENCE_DATA instruction-data-with-preference.json)
# Another family with its own tokenizer: a small Qwen3 of the real vocabulary.
llm_cli_test(ch07-07:qwen3 0 "^Ep 1 \\(Step 000001\\): Train loss [0-9.]+, Val loss [0-9.]+, Train reward margins -?[0-9.]+, Val reward margins -?[0-9.]+$"
             NEEDS tokenizers/qwen3/tokenizer.json SCRATCH ${CMAKE_CURRENT_BINARY_DIR}/dpo-qwen3
             COMMAND ch07-07-dpo --train-config ${CFG}/train-dpo-quick.json --config ${BADCFG}/tiny-qwen3-vocab.json
             --tokenizer qwen3 --data ${FIXTURES}/preferences/small.json --max-steps 2 --eval-freq 1 --eval-iter 1
             --response-tokens 4 --max-new-tokens 4 --no-plot --overwrite --out-dir ${CMAKE_CURRENT_BINARY_DIR}/dpo-qwen3)
# The lesson's entry count, entry 50's rejected answer, the split, entry 0's chosen
# length and the first batch's shapes: one run.
llm_cli_test(ch07-06:lesson-lines 0 "^Number of entries: 1100$
^ 'rejected': \"The correct spelling is obviously 'Occasion.'\",$
^Validation set length: 55$
^chosen inputs: torch.Size\\(\\[81\\]\\)$
^torch.Size\\(\\[8, 77\\]\\) torch.Size\\(\\[8, 77\\]\\)$"
             NEEDS ${PREFERENCE_DATA} ${GPT2} COMMAND ch07-06-preference-data)

# Lesson 7.8's client against a fake Ollama on 127.0.0.1: good and bad answers.
add_test(NAME cli:ch07:evaluate:fake-ollama
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ollama_fake.sh ${BIN} ${PYTHON_TORCH} ${CMAKE_CURRENT_BINARY_DIR}/ollama
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch07:evaluate:fake-ollama PROPERTIES LABELS "cli;robustness" TIMEOUT 120)

# Bad input: one line naming it.
set(INSTRUCT --train-config ${CFG}/train-instruct-quick.json --out-dir ${CMAKE_CURRENT_BINARY_DIR}/instruct-bad)
llm_cli_test(ch07-01:not-a-list 1 "not-a-list.json': expected a JSON list of entries, got object"
             COMMAND ch07-01-data --data ${INSTRUCTIONS}/not-a-list.json)
llm_cli_test(ch07-01:no-output 1 "no-output.json': entry 1: no \"output\""
             COMMAND ch07-01-data --data ${INSTRUCTIONS}/no-output.json)
llm_cli_test(ch07-01:bad-style 2 "--prompt-style must be alpaca or phi3, got 'chatml'"
             COMMAND ch07-01-data --prompt-style chatml)
llm_cli_test(ch07-03:prompt-longer-than-context 1
             "long-prompt.json': entry 0: its prompt has [0-9]+ tokens, as many as the model's context_length 64 or more"
             NEEDS ${GPT2} COMMAND ch07-03-finetune ${INSTRUCT} --config ${CFG}/tiny.json --data ${INSTRUCTIONS}/long-prompt.json)
llm_cli_test(ch07-03:not-a-list 1 "not-a-list.json': expected a JSON list of entries, got object"
             COMMAND ch07-03-finetune ${INSTRUCT} --data ${INSTRUCTIONS}/not-a-list.json)
llm_cli_test(ch07-03:classify-config 2 "this step finetunes on instructions: the run's task must be \"instruct\", got \"classify\""
             COMMAND ch07-03-finetune --train-config ${CFG}/train-classify-quick.json)
llm_cli_test(ch07-03:bad-prompt-style 2 "prompt_style must be \"alpaca\" or \"phi3\", got \"chatml\""
             COMMAND ch07-03-finetune ${INSTRUCT} --prompt-style chatml)
llm_cli_test(ch05-02:instruct-config 2 "this step pretrains: the run's task must be \"pretrain\", got \"instruct\""
             COMMAND ch05-02-train --train-config ${CFG}/train-instruct-quick.json --out-dir ${RUNS}/instruct-config)
set(PREFERENCES ${FIXTURES}/preferences)
set(DPO --train-config ${CFG}/train-dpo-quick.json --out-dir ${CMAKE_CURRENT_BINARY_DIR}/dpo-bad)
llm_cli_test(ch07-06:no-chosen 1 "no-chosen.json': entry 1: no \"chosen\""
             COMMAND ch07-06-preference-data --data ${PREFERENCES}/no-chosen.json)
llm_cli_test(ch07-07:no-chosen 1 "no-chosen.json': entry 1: no \"chosen\""
             NEEDS ${GPT2} COMMAND ch07-07-dpo ${DPO} --data ${PREFERENCES}/no-chosen.json)
llm_cli_test(ch07-07:response-fills-context 1
             "small.json': entry 0: its prompt with the chosen response has [0-9]+ tokens, more than the model's context_length 64"
             NEEDS ${GPT2} COMMAND ch07-07-dpo ${DPO} --config ${CFG}/tiny.json --data ${PREFERENCES}/small.json)
llm_cli_test(ch07-07:reference-of-other-architecture 1
             "state dict '.*micro-state-dict.pt': 'tok_emb.weight' has shape \\[100, 16\\], expected \\[50257, 64\\]"
             NEEDS ${GPT2} ${PREFERENCE_DATA}
             COMMAND ch07-07-dpo ${DPO} --reference ${PROJECT_SOURCE_DIR}/tests/golden/micro-state-dict.pt)
llm_cli_test(ch07-07:missing-reference 1 "no-such-reference.pth': not found" NEEDS ${GPT2} ${PREFERENCE_DATA}
             COMMAND ch07-07-dpo ${DPO} --reference no-such-reference.pth)
llm_cli_test(ch07-07:zero-beta 2 "beta must be positive, got 0" COMMAND ch07-07-dpo ${DPO} --beta 0)
llm_cli_test(ch07-07:negative-beta 2 "beta must be positive, got -0.1" COMMAND ch07-07-dpo ${DPO} --beta -0.1)
llm_cli_test(ch07-07:phi3 2 "prompt_style must be \"alpaca\" for DPO" COMMAND ch05-02-train ${DPO} --prompt-style phi3)
# A step that runs one task offers that task's settings only (Task::reads).
llm_cli_test(ch07-07:no-prompt-style-flag 2 "Option 'prompt-style' does not exist" COMMAND ch07-07-dpo --prompt-style alpaca)
llm_cli_test(ch06-04:no-pretraining-flags 2 "Option 'stride' does not exist" COMMAND ch06-04-finetune --stride 4)
llm_cli_test(ch06-04:no-task-flag 2 "Option 'task' does not exist" COMMAND ch06-04-finetune --task classify)
llm_cli_test(ch07-03:no-classifier-flags 2 "Option 'num-classes' does not exist" COMMAND ch07-03-finetune --num-classes 3)
llm_cli_test(ch05-14:no-finetuning-flags 2 "Option 'lora-rank' does not exist" COMMAND ch05-14-other-llms --lora-rank 4)
llm_cli_test(ch07-07:instruct-config 2 "this step tunes preferences with DPO: the run's task must be \"dpo\", got \"instruct\""
             COMMAND ch07-07-dpo --train-config ${CFG}/train-instruct-quick.json --out-dir ${RUNS}/instruct-config-dpo)
llm_cli_test(ch07-04:zero-tokens 2 "--max-new-tokens must be positive, got 0" COMMAND ch07-04-responses --max-new-tokens 0)
llm_cli_test(ch07-05:no-responses 1 "small.json': entry 0 has no \"model_response\""
             COMMAND ch07-05-evaluate --data ${INSTRUCTIONS}/small.json)
llm_cli_test(ch07-05:bad-port 2 "--port must be 1..65535, got 70000" COMMAND ch07-05-evaluate --port 70000)
