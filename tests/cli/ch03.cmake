# Chapter 3: attention.
llm_cli_test(ch03-01:query-2-weights 0 "0.1385.*0.2379.*0.2333.*0.1240.*0.1082.*0.1581" COMMAND ch03-01-simplified-attention)
llm_cli_test(ch03-01:zero-width 2 "--d-in must be positive, got 0" COMMAND ch03-01-simplified-attention --d-in 0)
llm_cli_test(ch03-01:bad-query 2 "--query must be in 1..6, got 7" COMMAND ch03-01-simplified-attention --query 7)
llm_cli_test(ch03-02:v2 0 "^ +\\[-0.0754,  0.0693\\]\\], grad_fn=<MmBackward0>\\)$" COMMAND ch03-02-self-attention --version 2)
llm_cli_test(ch03-02:bad-version 2 "--version must be 1 or 2, got 3" COMMAND ch03-02-self-attention --version 3)
# The shape and the last row of the lesson's printed context vectors (3.5.3, seed 123).
llm_cli_test(ch03-03:lesson-output 0 "context_vecs.shape: torch.Size\\(\\[2, 6, 2\\]\\)
^ +\\[-0.5299, -0.1081\\]\\]\\], grad_fn=<UnsafeViewBackward0>\\)$" COMMAND ch03-03-causal-attention)
llm_cli_test(ch03-03:bad-dropout 2 "--dropout must be in \\[0, 1\\), got 1.5" COMMAND ch03-03-causal-attention --dropout 1.5)
# Sections 3.3-3.5 build one head: --num-heads is not theirs.
llm_cli_test(ch03-02:no-heads-flag 2 "Option 'num-heads' does not exist" COMMAND ch03-02-self-attention --num-heads 4)
llm_cli_test(ch03-03:no-heads-flag 2 "Option 'num-heads' does not exist" COMMAND ch03-03-causal-attention --num-heads 4)
llm_cli_test(ch03-03:zero-batch 2 "--batch-size must be positive, got 0" COMMAND ch03-03-causal-attention --batch-size 0)
llm_cli_test(ch03-04:lesson-output 0 "^context_vecs.shape: torch.Size\\(\\[2, 6, 4\\]\\)$
^ +\\[-0.5299, -0.1081,  0.5077,  0.3493\\]\\]\\], grad_fn=<CatBackward0>\\)$"
             COMMAND ch03-04-multi-head-stacking)
llm_cli_test(ch03-04:zero-heads 2 "--num-heads must be positive, got 0" COMMAND ch03-04-multi-head-stacking --num-heads 0)
# The lesson's output, and its grad_fn: out_proj runs as PyTorch's nn.Linear does
# (at::linear).
llm_cli_test(ch03-05:lesson-output 0 "\\[\\[\\[0.3190, 0.4858\\],
\\[0.2575, 0.4028\\]\\]\\], grad_fn=<ViewBackward0>\\)$" COMMAND ch03-05-multi-head-attention)
llm_cli_test(ch03-05:heads-not-dividing 2 "--num-heads \\(2\\) must divide --d-out \\(3\\)"
             COMMAND ch03-05-multi-head-attention --d-out 3)
llm_cli_test(ch03-05:zero-context 2 "--context-length must be positive, got 0" COMMAND ch03-05-multi-head-attention --context-length 0)
llm_cli_test(ch03-06:savings 0 "Key/value projection parameters: MHA 1179648, GQA 294912 \\(75.0% fewer\\)"
             COMMAND ch03-06-grouped-query-attention)
llm_cli_test(ch03-06:groups-not-dividing 2 "--num-kv-groups \\(5\\) must divide --num-heads \\(12\\)"
             COMMAND ch03-06-grouped-query-attention --num-kv-groups 5)


foreach(exe ch03-01-simplified-attention ch03-02-self-attention ch03-03-causal-attention ch03-04-multi-head-stacking
            ch03-05-multi-head-attention ch03-06-grouped-query-attention)
  llm_compare_test(${exe} ${exe})
endforeach()
llm_compare_test(ch03-01-random ch03-01-simplified-attention --d-in 5 --context-length 4 --query 4)
llm_compare_test(ch03-02-v2-bias ch03-02-self-attention --version 2 --qkv-bias --seed 5)
llm_compare_test(ch03-03-dropout ch03-03-causal-attention --dropout 0.5 --context-length 7 --batch-size 3)
llm_compare_test(ch03-04-dropout ch03-04-multi-head-stacking --dropout 0.2 --num-heads 3 --d-in 4)
llm_compare_test(ch03-05-dropout ch03-05-multi-head-attention --dropout 0.1 --d-in 5 --d-out 8 --num-heads 4
                 --context-length 9 --qkv-bias)
llm_compare_test(ch03-06-mqa ch03-06-grouped-query-attention --num-kv-groups 1 --d-in 16 --d-out 24 --num-heads 6
                 --dropout 0.1 --context-length 12)
# Exercise 3.1: v2's weights, transposed, make v1 compute v2's output.
llm_cli_test(ch03-02:exercise-3-1 0 "Same as SelfAttention_v2: True" COMMAND ch03-02-self-attention --exercise-3-1)
llm_cli_test(ch03-02:exercise-3-1-with-bias 2 "v1, which has no bias: drop --qkv-bias"
             COMMAND ch03-02-self-attention --exercise-3-1 --qkv-bias)
llm_cli_test(ch03-06:negative-groups 2 "--num-kv-groups must be 0 \\(one per head\\) or more, got -1"
             COMMAND ch03-06-grouped-query-attention --num-kv-groups -1)
# The attention-head explorer (the multi-head lesson's demo), on the tiny GPT.
llm_cli_test(ch03-07:summaries 0 "^  previous token +layer [01], head [0-3]  \\(0\\.[0-9]+ weight\\)$"
             NEEDS ${GPT2} COMMAND ch03-07-attention-heads --config ${CFG}/tiny.json)
llm_cli_test(ch03-07:weights-int8 0 "^  previous token +layer [01], head [0-3]  \\(0\\.[0-9]+ weight\\)$"
             NEEDS ${GPT2} COMMAND ch03-07-attention-heads --config ${CFG}/tiny.json --weights-dtype int8)
llm_cli_test(ch03-07:gqa-groups 0 "2 layers x 4 heads sharing 2 key/value groups \\(2 query heads each\\)"
             NEEDS ${GPT2} COMMAND ch03-07-attention-heads --config ${CFG}/tiny-gqa.json --layer 1)
llm_cli_test(ch03-07:standouts-of-one-layer 0 "^Standout heads of layer 1:$"
             NEEDS ${GPT2} COMMAND ch03-07-attention-heads --config ${CFG}/tiny.json --layer 1)
set_tests_properties(cli:ch03-07:standouts-of-one-layer PROPERTIES FAIL_REGULAR_EXPRESSION "  layer 0, head ")
llm_cli_test(ch03-07:layer-beyond-model 2 "--layer must be below the model's 2 layers, got 2"
             NEEDS ${GPT2} COMMAND ch03-07-attention-heads --config ${CFG}/tiny.json --layer 2)
llm_cli_test(ch03-07:empty-prompt 1 "the prompt is empty" NEEDS ${GPT2}
             COMMAND ch03-07-attention-heads --config ${CFG}/tiny.json --prompt=)
llm_cli_test(ch03-07:prompt-beyond-context 1 "the prompt has 100 tokens, more than the model's context of 64"
             NEEDS ${GPT2} COMMAND ch03-07-attention-heads --config ${CFG}/tiny.json
             --prompt "a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a")
llm_cli_test(ch03-07:too-long-to-draw 1 "--png and --html draw at most 256 tokens, and the prompt has 300" NEEDS ${GPT2}
             COMMAND ch03-07-attention-heads --config ${CFG}/gpt2-small.json --html page.html
             --prompt "a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a")
llm_compare_test(ch03-07-attention-heads ch03-07-attention-heads --config ${CFG}/tiny.json)
llm_compare_test(ch03-07-gqa ch03-07-attention-heads --config ${CFG}/tiny-gqa.json --seed 7
                 --prompt "Every effort moves you forward, one step at a time.")
add_test(NAME cli:ch03-07:png-and-page COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/attention_heads.sh ${BIN}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch03-07:png-and-page PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
# The page in headless Chromium (Debian's chromium: scripts/test.sh installs it).
add_test(NAME browser:ch03-07:attention-page COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/attention_page.sh ${BIN}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(browser:ch03-07:attention-page PROPERTIES LABELS browser SKIP_RETURN_CODE 77)
