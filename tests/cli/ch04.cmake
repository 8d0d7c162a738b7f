# Chapter 4: the GPT.
llm_cli_test(ch04-01:logits-shape 0 "^Output shape: torch.Size\\(\\[2, 4, 50257\\]\\)$" NEEDS ${GPT2} COMMAND ch04-01-dummy-gpt)
llm_cli_test(ch04-02:layer-norm 0 "^ +\\[0.9997\\]\\], grad_fn=<VarBackward0>\\)$" COMMAND ch04-02-layer-norm)
llm_cli_test(ch04-03:feed-forward 0 "^torch.Size\\(\\[2, 3, 768\\]\\)$" COMMAND ch04-03-feed-forward)
# GELU(3) = 2.9964 beside ReLU(3) = 3: the tanh approximation, not ReLU.
llm_cli_test(ch04-03:gelu-values 0 "^ +3.00 +2.9964 +3.0000$" COMMAND ch04-03-feed-forward)
llm_cli_test(ch04-04:shortcuts 0 "layers.0.0.weight has gradient mean of 0.0002017" COMMAND ch04-04-shortcuts)
llm_cli_test(ch04-05:block-shape 0 "^Output shape: torch.Size\\(\\[2, 4, 768\\]\\)$" COMMAND ch04-05-transformer-block)
llm_cli_test(ch04-06:parameters 0 "^Total number of parameters: 163,009,536$" NEEDS ${GPT2} COMMAND ch04-06-gpt-model)
llm_cli_test(ch04-06:tied-parameters 0 "^Number of trainable parameters considering weight tying: 124,412,160$" NEEDS ${GPT2} COMMAND ch04-06-gpt-model)
llm_cli_test(ch04-06:size 0 "^Total size of the model: 621.83 MB$" NEEDS ${GPT2} COMMAND ch04-06-gpt-model)
llm_cli_test(ch04-07:lesson-tokens 0 "^Hello, I am Featureiman Byeswickattribute argue$" NEEDS ${GPT2} COMMAND ch04-07-generate)
llm_cli_test(ch04-07:empty-prompt 2 "--prompt is empty" NEEDS ${GPT2} COMMAND ch04-07-generate --prompt=)
string(REPEAT "one two three " 30 LONG_PROMPT)
llm_cli_test(ch04-07:long-prompt 0 "The prompt has 91 tokens. only its last 64 \\(context_length\\) are used" NEEDS ${GPT2}
             COMMAND ch04-07-generate --config ${CFG}/tiny.json --max-new-tokens 2 --prompt "${LONG_PROMPT}")
llm_cli_test(ch04-06:missing-config 1 "nope.json': not found" NEEDS ${GPT2} COMMAND ch04-06-gpt-model --config nope.json)
llm_cli_test(ch04-06:state-dict-of-other-config 1 "'tok_emb.weight' has shape \\[100, 16\\], expected \\[50257, 768\\]"
             NEEDS ${GPT2} COMMAND ch04-06-gpt-model --load-state-dict ${PROJECT_SOURCE_DIR}/tests/golden/micro-state-dict.pt)
llm_cli_test(ch04-06:state-dict-not-an-archive 1 "not a torch.save archive" NEEDS ${GPT2}
             COMMAND ch04-06-gpt-model --load-state-dict ${FIXTURES}/binary.bin)


foreach(exe ch04-01-dummy-gpt ch04-02-layer-norm ch04-03-feed-forward ch04-04-shortcuts ch04-05-transformer-block)
  llm_compare_test(${exe} ${exe})
endforeach()
llm_compare_test(ch04-06-tiny ch04-06-gpt-model --config ${CFG}/tiny.json)
llm_compare_test(ch04-06-tiny-gqa-eval ch04-06-gpt-model --config ${CFG}/tiny-gqa.json --eval --seed 3)
llm_compare_test(ch04-07-generate ch04-07-generate)
# Exercise 4.3: separate dropout rates after the embeddings, on the attention weights
# and on the shortcuts (training mode: the masks must be the lesson's).
llm_compare_test(ch04-06-separate-dropout-rates ch04-06-gpt-model --config ${BADCFG}/tiny-dropout-rates.json)
llm_cli_test(ch04-06:bad-dropout-rate 1 "bad-dropout-rate.json': drop_rate_attn must be in \\[0, 1\\), got 1.5" NEEDS ${GPT2}
             COMMAND ch04-06-gpt-model --config ${BADCFG}/bad-dropout-rate.json)
# Lesson 5.4's model_and_optimizer.pth, and a state dict without the mask buffers.
add_test(NAME cli:ch04-06:lesson-5.4-files COMMAND ${PYTHON_TORCH} ${CMAKE_CURRENT_SOURCE_DIR}/lesson_weights.py
                                                   ${BIN}/ch04-06-gpt-model
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch04-06:lesson-5.4-files PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
foreach(config tiny tiny-gqa)
  add_test(NAME cli:ch04-06:state-dict-round-trip-${config}
           COMMAND ${PYTHON_TORCH} scripts/reference/state_dict_roundtrip.py ${BIN}/ch04-06-gpt-model configs/${config}.json
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli:ch04-06:state-dict-round-trip-${config} PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
endforeach()
# Exercise 4.1: the solution's counts for GPT-2 small.
llm_cli_test(ch04-05:exercise-4.1 0 "^Total number of parameters in feed forward module: 4,722,432$" COMMAND ch04-05-transformer-block)
llm_cli_test(ch04-05:exercise-4.1-attention 0 "^Total number of parameters in attention module: 2,360,064$"
             COMMAND ch04-05-transformer-block)
