# Chapter 4: the GPT.
llm_cli_test(ch04-01:logits-shape 0 "^Output shape: torch.Size\\(\\[2, 4, 50257\\]\\)$" NEEDS ${GPT2} COMMAND ch04-01-dummy-gpt)
llm_cli_test(ch04-02:layer-norm 0 "^ +\\[0.9997\\]\\], grad_fn=<VarBackward0>\\)$" COMMAND ch04-02-layer-norm)
# The output's shape, and GELU(3) = 2.9964 beside ReLU(3) = 3: the tanh approximation,
# not ReLU.
llm_cli_test(ch04-03:feed-forward 0 "^torch.Size\\(\\[2, 3, 768\\]\\)$
^ +3.00 +2.9964 +3.0000$" COMMAND ch04-03-feed-forward)
llm_cli_test(ch04-04:shortcuts 0 "layers.0.0.weight has gradient mean of 0.0002017" COMMAND ch04-04-shortcuts)
# The block's output shape, and exercise 4.1: the solution's counts for GPT-2 small.
llm_cli_test(ch04-05:block-shape-and-exercise-4.1 0 "^Output shape: torch.Size\\(\\[2, 4, 768\\]\\)$
^Total number of parameters in feed forward module: 4,722,432$
^Total number of parameters in attention module: 2,360,064$" COMMAND ch04-05-transformer-block)
llm_cli_test(ch04-06:parameters-and-size 0 "^Total number of parameters: 163,009,536$
^Number of trainable parameters considering weight tying: 124,412,160$
^Total size of the model: 621.83 MB$" NEEDS ${GPT2} COMMAND ch04-06-gpt-model)
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

# Chapter 4's bonus memory estimators (ch04-11-kv-memory): the READMEs' numbers, every
# table equal to the course's own estimators' (scripts/reference/course_ch04/) for the
# same flags, the plots, and the flags it refuses.
llm_cli_test(ch04-11:gqa-and-moe-readme 0 "^GQA total KV cache  : 4.29 GB$
^MoE ACTIVE/Token       : 77,127,680 \\(0.15 GB\\)$" COMMAND ch04-11-kv-memory)
llm_cli_test(ch04-11:mla-readme 0 "^Ratio \\(MHA / MLA\\)   : 4.03x$" COMMAND ch04-11-kv-memory --estimator mla)
llm_cli_test(ch04-11:swa-readme 0 "^MHA \\+ SWA \\(ratio 5:1\\)  : 3.14 GB$" COMMAND ch04-11-kv-memory --estimator swa)
add_test(NAME cli:ch04-11:compare-with-the-course COMMAND ${PYTHON_TORCH} ${CMAKE_CURRENT_SOURCE_DIR}/kv_memory_compare.py
                                                          ${BIN}/ch04-11-kv-memory
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch04-11:compare-with-the-course PROPERTIES LABELS cli TIMEOUT 300)
llm_cli_test(ch04-11:bad-estimator 2 "--estimator must be all, gqa, mla, swa or moe, got 'mqa'"
             COMMAND ch04-11-kv-memory --estimator mqa)
llm_cli_test(ch04-11:groups-not-dividing 2 "--n-kv-groups must divide --n-heads exactly, got 5 and 32"
             COMMAND ch04-11-kv-memory --n-kv-groups 5)
llm_cli_test(ch04-11:bad-ratio 2 "--swa-ratio must be 'a:b', whole numbers a, b >= 0 with a\\+b > 0, got '0:0'"
             COMMAND ch04-11-kv-memory --swa-ratio 0:0)
llm_cli_test(ch04-11:flag-of-another-estimator 2 "--latent-dim is not a setting of the gqa estimator"
             COMMAND ch04-11-kv-memory --estimator gqa --latent-dim 64)
llm_cli_test(ch04-11:bad-dtype 2 "--dtype must be fp32, bf16, fp16, fp8 or int8, got 'fp64'"
             COMMAND ch04-11-kv-memory --dtype fp64)
llm_cli_test(ch04-11:more-active-than-experts 2 "--top-k must be at most --num-experts \\(8\\), got 9"
             COMMAND ch04-11-kv-memory --top-k 9)
llm_cli_test(ch04-11:zero-context 2 "--context-length must be positive, got 0" COMMAND ch04-11-kv-memory --context-length 0)
llm_cli_test(ch04-11:past-int64 2 "the estimate passes 2\\^63 bytes"
             COMMAND ch04-11-kv-memory --estimator gqa --context-length 9223372036854775807)
llm_cli_test(ch04-11:router-too-large 2 "too small for --num-experts 300000"
             COMMAND ch04-11-kv-memory --estimator moe --num-experts 300000 --top-k 1 --hidden-dim 10)

# Chapter 4's bonus on multi-head latent attention (ch04-08-mla): the ids and text the
# course's gpt_with_kv_mla.py generates, in bfloat16, for small models (the default
# 124M model takes minutes in PyTorch's bfloat16 on a CPU).
add_test(NAME cli:ch04-08:compare-with-the-course
         COMMAND ${PYTHON_TORCH} ${CMAKE_CURRENT_SOURCE_DIR}/course_generation_compare.py ${BIN}/ch04-08-mla
                 gpt_with_kv_mla.py "--emb_dim 64 --n_heads 4 --n_layers 2 --max_new_tokens 20 --latent_dim 16"
                 "--emb_dim 96 --n_heads 3 --n_layers 3 --max_new_tokens 40"
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch04-08:compare-with-the-course PROPERTIES LABELS cli TIMEOUT 600 SKIP_RETURN_CODE 77)
llm_cli_test(ch04-08:latent-zero 2 "--latent-dim must be positive, got 0" NEEDS ${GPT2} COMMAND ch04-08-mla --latent-dim 0)
llm_cli_test(ch04-08:heads-not-dividing 2 "n_heads \\(5\\) must divide emb_dim \\(64\\)" NEEDS ${GPT2}
             COMMAND ch04-08-mla --emb-dim 64 --n-heads 5)
llm_cli_test(ch04-08:latent-wider-than-width 2 "latent_dim must be in 1..64 \\(emb_dim\\), got 65" NEEDS ${GPT2}
             COMMAND ch04-08-mla --emb-dim 64 --n-heads 4 --latent-dim 65)

# Chapter 4's bonus on sliding-window attention (ch04-09-sliding-window) and on mixture
# of experts (ch04-10-moe): the ids and text of the course's gpt_with_kv_swa.py and
# gpt_with_kv_moe.py on small models whose windows slide within the generated text:
# the K:1 schedule, every layer sliding, none; experts, the dense feed-forward, and
# generation without the cache.
add_test(NAME cli:ch04-09:compare-with-the-course
         COMMAND ${PYTHON_TORCH} ${CMAKE_CURRENT_SOURCE_DIR}/course_generation_compare.py ${BIN}/ch04-09-sliding-window
                 gpt_with_kv_swa.py
                 "--emb_dim 64 --n_heads 4 --n_layers 3 --max_new_tokens 40 --sliding_window_size 8"
                 "--emb_dim 96 --n_heads 3 --n_layers 2 --max_new_tokens 30 --sliding_window_size 5 --sliding_window_stride -1"
                 "--emb_dim 64 --n_heads 4 --n_layers 2 --max_new_tokens 20 --sliding_window_size 4 --sliding_window_stride 0"
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME cli:ch04-10:compare-with-the-course
         COMMAND ${PYTHON_TORCH} ${CMAKE_CURRENT_SOURCE_DIR}/course_generation_compare.py ${BIN}/ch04-10-moe
                 gpt_with_kv_moe.py
                 "--emb_dim 64 --n_heads 4 --n_layers 2 --max_new_tokens 30 --hidden_dim 32 --num_experts 8"
                 "--emb_dim 64 --n_heads 4 --n_layers 2 --max_new_tokens 20 --hidden_dim 48 --num_experts 4 --num_experts_per_tok 3 --no_kv_cache"
                 "--emb_dim 64 --n_heads 4 --n_layers 2 --max_new_tokens 20 --hidden_dim 96"
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch04-09:compare-with-the-course cli:ch04-10:compare-with-the-course
                     PROPERTIES LABELS cli TIMEOUT 600 SKIP_RETURN_CODE 77)
llm_cli_test(ch04-09:window-zero 2 "sliding_window_size must be in 1..204 \\(context_length\\), got 0" NEEDS ${GPT2}
             COMMAND ch04-09-sliding-window --sliding-window-size 0)
llm_cli_test(ch04-09:window-past-context 2 "sliding_window_size must be in 1..14 \\(context_length\\), got 15"
             NEEDS ${GPT2} COMMAND ch04-09-sliding-window --max-new-tokens 10 --sliding-window-size 15)
llm_cli_test(ch04-10:more-per-token-than-experts 2 "num_experts_per_tok must be in 1..4 \\(num_experts\\), got 5"
             NEEDS ${GPT2} COMMAND ch04-10-moe --num-experts 4 --num-experts-per-tok 5)
llm_cli_test(ch04-10:negative-experts 2 "num_experts must be positive \\(or 0: dense\\), got -1" NEEDS ${GPT2}
             COMMAND ch04-10-moe --num-experts -1)
llm_cli_test(ch04-10:zero-hidden 2 "hidden_dim must be positive, got 0" NEEDS ${GPT2} COMMAND ch04-10-moe --hidden-dim 0)
