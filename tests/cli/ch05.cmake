# Chapter 5: loss, pretraining, sampling, and the generate tool.
# The lesson's losses of the untrained 124M model (10.98758 and 10.98111) are
# lessons:ch05-01-loss's (docs/lesson-numbers.md).
# No silent minute: ch05-01 says what it computes before the model's long pass, and a
# training run piped to a file prints a progress line every 5 s.
llm_cli_test(ch05-01:says-what-it-computes 0
             "^\\(computing the loss of 36 training and 4 validation batches, 6,536,704 model parameters\\)$"
             NEEDS ${VERDICT} ${GPT2} COMMAND ch05-01-loss --config ${CFG}/tiny.json)
llm_cli_test(ch05-02:progress-on-a-pipe 0 "^step [0-9]+/150 \\([0-9]+%\\) \\| epoch [0-9]+/20 \\| loss [0-9.]+ \\| "
             NEEDS ${VERDICT} ${GPT2} SCRATCH ${RUNS}/progress-on-a-pipe
             COMMAND ch05-02-train --train-config ${CFG}/train-quick.json --max-steps 150 --no-plot --overwrite
                     --out-dir ${RUNS}/progress-on-a-pipe)
# The tiny model's first losses are PyTorch's (tests/golden/ch05-train-lesson.pt).
llm_cli_test(ch05-02:pytorch-losses 0 "Ep 1 \\(Step 000005\\): Train loss 10.988, Val loss 10.949" NEEDS ${VERDICT} ${GPT2}
             SCRATCH ${RUNS}/pytorch-losses
             COMMAND ch05-02-train ${TINY_RUN} --max-steps 6 --out-dir ${RUNS}/pytorch-losses --overwrite)
llm_cli_test(ch05-02:checkpoint-and-metrics 0 "Metrics: .*checkpoint-and-metrics/metrics.jsonl" NEEDS ${VERDICT} ${GPT2}
             SCRATCH ${RUNS}/checkpoint-and-metrics
             COMMAND ch05-02-train ${TINY_RUN} --max-steps 2 --out-dir ${RUNS}/checkpoint-and-metrics --overwrite)
llm_cli_test(ch05-02:plot 0 "Plot: .*losses.png" NEEDS ${VERDICT} ${GPT2} SCRATCH ${RUNS}/plot
             COMMAND ch05-02-train --config ${CFG}/tiny.json --max-steps 2 --out-dir ${RUNS}/plot --overwrite)
llm_cli_test(ch05-02:train-config-unknown-key 1 "train-unknown-key.json': unknown key 'epochs'"
             COMMAND ch05-02-train --train-config ${BADCFG}/train-unknown-key.json)
llm_cli_test(ch05-02:train-config-malformed 1 "malformed.json': not valid JSON" COMMAND ch05-02-train --train-config ${BADCFG}/malformed.json)
llm_cli_test(ch05-02:zero-batch 2 "batch_size must be positive, got 0" COMMAND ch05-02-train --batch-size 0)
llm_cli_test(ch05-02:negative-lr 2 "lr must be positive, got -0.1" COMMAND ch05-02-train --lr -0.1)
llm_cli_test(ch05-02:negative-stride 2 "stride must be positive" COMMAND ch05-02-train --stride -4)
llm_cli_test(ch05-02:bad-progress 2 "--progress must be auto, always or never, got 'sometimes'"
             COMMAND ch05-02-train --progress sometimes)
llm_cli_test(ch05-02:text-too-short 1 "needs context_length \\+ 1 = 65" NEEDS ${GPT2}
             COMMAND ch05-02-train ${TINY_RUN} --data ${FIXTURES}/short.txt --out-dir ${RUNS}/short --overwrite)
llm_cli_test(ch05-02:missing-data 1 "nope.txt': not found" NEEDS ${GPT2} COMMAND ch05-02-train ${TINY_RUN} --data nope.txt)
llm_cli_test(ch05-02:invalid-utf8-data 1 "invalid UTF-8 at byte 7" NEEDS ${GPT2}
             COMMAND ch05-02-train ${TINY_RUN} --data ${FIXTURES}/invalid-utf8.txt)
llm_cli_test(ch05-02:resume-missing 1 "nope.pt': not found" NEEDS ${GPT2} COMMAND ch05-02-train --resume nope.pt)
llm_cli_test(ch05-02:resume-state-dict 1 "is not a training checkpoint" NEEDS ${GPT2}
             COMMAND ch05-02-train --resume ${PROJECT_SOURCE_DIR}/tests/golden/micro-state-dict.pt)
llm_cli_test(ch05-02:resume-not-an-archive 1 "not a torch.save archive" NEEDS ${GPT2}
             COMMAND ch05-02-train --resume ${FIXTURES}/binary.bin)
llm_cli_test(ch05-02:resume-with-config 2 "leave out --train-config, --config and --load-state-dict" NEEDS ${GPT2}
             COMMAND ch05-02-train --resume x.pt --config ${CFG}/tiny.json)
foreach(signal INT TERM)
  add_test(NAME cli:ch05-02:sig${signal}-saves-and-resumes
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/interrupt.sh ${BIN} ${signal} ${RUNS}/sig${signal}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli:ch05-02:sig${signal}-saves-and-resumes PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
endforeach()
add_test(NAME cli:ch05-02:sigkill-at-random-points-resumes-to-the-same-losses
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sigkill.sh ${BIN} ${RUNS}/sigkill
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch05-02:sigkill-at-random-points-resumes-to-the-same-losses PROPERTIES
                     LABELS "cli;robustness" SKIP_RETURN_CODE 77 TIMEOUT 900)
llm_cli_test(ch05-03:lesson-draws 0 "582 x forward"
             NEEDS ${GPT2} COMMAND ch05-03-sampling --config ${CFG}/tiny.json)
llm_cli_test(ch05-03:bad-temperature 2 "temperature must be a finite number >= 0, got -1" NEEDS ${GPT2}
             COMMAND ch05-03-sampling --config ${CFG}/tiny.json --temperature -1)
llm_cli_test(generate:denormal-temperature 2 "temperature must be 0 \\(greedy\\) or at least 1e-30, got 1e-320"
             COMMAND generate --config ${CFG}/tiny.json --temperature 1e-320)
llm_cli_test(generate:untrained 0 "^Weights: none: an untrained model, random weights of --seed 123" NEEDS ${GPT2}
             COMMAND generate --config ${CFG}/tiny.json --max-new-tokens 5 --temperature 1 --top-k 5)
llm_cli_test(generate:absent-device 2 "--device cuda:99: (this LibTorch has no CUDA|there are [0-9]+ CUDA devices)"
             COMMAND generate --device cuda:99)
llm_cli_test(generate:missing-checkpoint 1 "nope.pt': not found" NEEDS ${GPT2} COMMAND generate --checkpoint nope.pt)
llm_cli_test(generate:checkpoint-and-config 2 "leave out --config and --load-state-dict" NEEDS ${GPT2}
             COMMAND generate --checkpoint x.pt --config ${CFG}/tiny.json)
llm_cli_test(generate:bad-top-k 2 "top_k must be >= 0, got -3" NEEDS ${GPT2} COMMAND generate --top-k -3)
llm_cli_test(generate:bad-eos 1 "eos_id must be a token id below the vocabulary size 50257, got 60000" NEEDS ${GPT2}
             COMMAND generate --config ${CFG}/tiny.json --eos-id 60000)
llm_cli_test(generate:empty-prompt 2 "--prompt is empty" NEEDS ${GPT2} COMMAND generate --prompt=)
# --weights-dtype: the layers' weights in fewer bytes for decoding (the kernels' own
# tests are test-decode-kernels).
llm_cli_test(generate:weights-bfloat16 0 "Decoding with bfloat16 weights: 6\\.6 MB of layer weights read per token" NEEDS ${GPT2}
             COMMAND generate --config ${CFG}/tiny.json --weights-dtype bfloat16 --max-new-tokens 5 --ids)
llm_cli_test(generate:weights-int8 0 "Decoding with int8 weights: 3\\.5 MB of layer weights read per token" NEEDS ${GPT2}
             COMMAND generate --config ${CFG}/tiny.json --weights-dtype int8 --max-new-tokens 5 --ids)
# Loaded weights are converted once loaded; random ones as each layer draws them.
llm_cli_test(generate:weights-int8-of-a-state-dict 0 "Decoding with int8 weights: 3\\.5 MB of layer weights read per"
             NEEDS ${GPT2} COMMAND generate --config ${CFG}/tiny.json --load-state-dict ${RUNS}/tiny-seed-9.pt
             --weights-dtype int8 --max-new-tokens 5)
set_tests_properties(cli:generate:weights-int8-of-a-state-dict PROPERTIES FIXTURES_REQUIRED tiny-seed-9)
llm_cli_test(generate:bad-weights-dtype 2 "--weights-dtype must be float32, bfloat16 or int8, got 'fp8'"
             COMMAND generate --config ${CFG}/tiny.json --weights-dtype fp8)
llm_cli_test(generate:weights-dtype-and-save 2 "--weights-dtype int8 is for decoding, and --save-state-dict would save"
             COMMAND generate --config ${CFG}/tiny.json --weights-dtype int8 --save-state-dict out.pt)
llm_cli_test(generate:unknown-flag 2 "Option 'bogus' does not exist" COMMAND generate --bogus)

llm_compare_test(ch05-01-loss ch05-01-loss --config ${CFG}/tiny.json)
# Exercise 5.5: the loss of given weights, in windows shorter than the context.
llm_cli_test(ch05-01:weights-for-exercise-5.5 0 "Total number of parameters" NEEDS ${GPT2}
             COMMAND ch04-06-gpt-model --config ${CFG}/tiny.json --seed 9 --save-state-dict ${RUNS}/tiny-seed-9.pt)
set_tests_properties(cli:ch05-01:weights-for-exercise-5.5 PROPERTIES FIXTURES_SETUP tiny-seed-9)
llm_compare_test(ch05-01-loss-of-given-weights ch05-01-loss --config ${CFG}/tiny.json
                 --load-state-dict ${RUNS}/tiny-seed-9.pt --max-length 32)
set_tests_properties(cli:ch05-01-loss-of-given-weights:compare-with-pytorch PROPERTIES FIXTURES_REQUIRED tiny-seed-9)
# The attention-head explorer on given weights (a state dict), against the lesson's modules.
llm_compare_test(ch03-07-given-weights ch03-07-attention-heads --config ${CFG}/tiny.json
                 --load-state-dict ${RUNS}/tiny-seed-9.pt)
set_tests_properties(cli:ch03-07-given-weights:compare-with-pytorch PROPERTIES FIXTURES_REQUIRED tiny-seed-9)
llm_cli_test(ch05-01:max-length-over-context 2 "--max-length must be in 0..64 \\(the context length\\), got 65"
             NEEDS ${GPT2} COMMAND ch05-01-loss --config ${CFG}/tiny.json --max-length 65)
# Lesson 5.4: continuing from model_and_optimizer.pth, AdamW's state included.
add_test(NAME cli:ch05-02:continue-from-lesson-5.4 COMMAND ${PYTHON_TORCH} ${CMAKE_CURRENT_SOURCE_DIR}/continue_training.py
                                                           ${BIN}/ch05-02-train
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch05-02:continue-from-lesson-5.4 PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
llm_cli_test(ch05-02:resume-with-state-dict 2 "leave out --train-config, --config and --load-state-dict" NEEDS ${GPT2}
             COMMAND ch05-02-train --resume x.pt --load-state-dict y.pt)
# The lesson's generate() on the same weights after the same seed gives the same ids.
llm_compare_test(ch05-03-sampling ch05-03-sampling --config ${CFG}/tiny.json --max-new-tokens 30)
llm_compare_test(generate-sampled generate --config ${CFG}/tiny.json --temperature 1.4 --top-k 25 --max-new-tokens 30)
llm_compare_test(generate-greedy-eos generate --config ${CFG}/tiny.json --max-new-tokens 30 --eos-id 4)
llm_compare_test(ch05-02-train ch05-02-train ${TINY_RUN} --num-epochs 1 --eval-freq 4 --out-dir=)
# Appendix D clips from the end of warmup on; --clip-during-warmup clips every step.
# A clip norm small enough to bite, so that the two differ (test-train.cpp checks that).
llm_compare_test(ch05-02-clip-after-warmup ch05-02-train ${TINY_RUN} --max-steps 8 --eval-freq 1 --eval-iter 1
                 --warmup-steps 4 --initial-lr 1e-4 --lr 4e-3 --grad-clip 0.05 --out-dir=)
llm_compare_test(ch05-02-clip-during-warmup ch05-02-train ${TINY_RUN} --max-steps 8 --eval-freq 1 --eval-iter 1
                 --warmup-steps 4 --initial-lr 1e-4 --lr 4e-3 --grad-clip 0.05 --clip-during-warmup --out-dir=)
# A loss that overflows stops the run with the step named; the checkpoint of the step
# before is kept.
llm_cli_test(ch05-02:nan-loss-stops 1 "step [0-9]+ \\(epoch 1\\): the training loss is (nan|inf|-inf). stopping. The last checkpoint, '.*nan/checkpoint.pt', is kept as it was"
             NEEDS ${VERDICT} ${GPT2} SCRATCH ${RUNS}/nan
             COMMAND ch05-02-train ${TINY_RUN} --lr 1e30 --checkpoint-every 1 --max-steps 30 --out-dir ${RUNS}/nan --overwrite)
# ... and a run stopped before its first checkpoint says it has none.
llm_cli_test(ch05-02:nan-loss-before-any-checkpoint 1 "the training loss is (nan|inf|-inf). stopping. No checkpoint was written yet"
             NEEDS ${VERDICT} ${GPT2} SCRATCH ${RUNS}/nan-fresh
             COMMAND ch05-02-train ${TINY_RUN} --lr 1e30 --checkpoint-every 1000 --eval-freq 1000
             --max-steps 30 --out-dir ${RUNS}/nan-fresh --overwrite)

# Data-parallel training on loopback (c10d, Gloo): 2 ranks = 1 process at twice the
# batch, ranks identical, a dead rank stops the other with a clear error.
add_test(NAME cli:ch05-02:distributed-two-ranks-equal-one-at-twice-the-batch
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/distributed.sh ${BIN} ${RUNS}/distributed
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch05-02:distributed-two-ranks-equal-one-at-twice-the-batch PROPERTIES
                     LABELS "cli;distributed" SKIP_RETURN_CODE 77 TIMEOUT 600)
# One out_dir, one run: an existing checkpoint is kept unless --overwrite, and a
# second run into a folder in use is refused.
add_test(NAME cli:ch05-02:out-dir-holds-one-run
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/out_dir.sh ${BIN} ${RUNS}/out-dir
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch05-02:out-dir-holds-one-run PROPERTIES LABELS "cli;robustness" SKIP_RETURN_CODE 77
                     TIMEOUT 120)
# Ranks that do not fit together (another WORLD_SIZE, a rank missing) are named.
add_test(NAME cli:ch05-02:rendezvous-names-the-rank
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/rendezvous.sh ${BIN} ${RUNS}/rendezvous
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch05-02:rendezvous-names-the-rank PROPERTIES LABELS "cli;distributed;robustness"
                     SKIP_RETURN_CODE 77 TIMEOUT 120)
# The launcher stops the other ranks when one fails, and the ranks stop when the
# launcher is killed.
add_test(NAME cli:launch:stops-the-run-as-a-whole
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/launcher.sh ${BIN} ${RUNS}/launcher
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:launch:stops-the-run-as-a-whole PROPERTIES LABELS "cli;distributed;robustness"
                     SKIP_RETURN_CODE 77 TIMEOUT 120)
# On one machine the launcher's ranks meet through a private file: no rendezvous port
# listens on any interface. Ranks started by hand meet at rank 0's store, which listens
# on MASTER_ADDR only.
add_test(NAME cli:launch:rendezvous-listens-nowhere-or-on-master-addr-only
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/launch_loopback.sh ${BIN} ${RUNS}/launch-loopback
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:launch:rendezvous-listens-nowhere-or-on-master-addr-only PROPERTIES LABELS "cli;distributed;robustness"
                     SKIP_RETURN_CODE 77 TIMEOUT 120)
# Bad flag values exit 2 before any data is read (these run without the data).
# Settings are saved as JSON, which holds UTF-8 only: a byte that is not is refused
# before training, not after it when the checkpoint is written.
string(ASCII 255 NOT_UTF8)
llm_cli_test(ch05-02:start-context-not-utf8 2 "start_context: invalid UTF-8 at byte 3"
             COMMAND ch05-02-train --start-context "abc${NOT_UTF8}" --max-steps 1)
llm_cli_test(ch05-02:out-dir-not-utf8 2 "out_dir: invalid UTF-8 at byte 9"
             COMMAND ch05-02-train --out-dir "/tmp/run-${NOT_UTF8}" --max-steps 1)
llm_cli_test(ch05-02:distributed-zero-timeout 2 "--dist-timeout must be positive, got 0"
             COMMAND ch05-02-train --world-size 2 --dist-timeout 0)
llm_cli_test(ch05-02:distributed-port-out-of-range 2 "master port must be in 1..65535, got 99999"
             COMMAND ch05-02-train --world-size 2 --master-port 99999)
llm_cli_test(ch05-02:distributed-bad-world-size 2 "--world-size: 'two' is not a valid value"
             COMMAND ch05-02-train --world-size two)
llm_cli_test(ch05-02:distributed-rank-outside-world 2 "rank must be in 0..1 \\(world size 2\\), got 2" NEEDS ${GPT2}
             COMMAND ch05-02-train --config ${CFG}/tiny.json --world-size 2 --rank 2)
llm_cli_test(ch05-02:distributed-no-rank-0 1 "rank 1: the rendezvous at 127.0.0.1:29431 failed within 2 s"
             NEEDS ${GPT2} ${VERDICT}
             COMMAND ch05-02-train --config ${CFG}/tiny.json --world-size 2 --rank 1 --master-port 29431 --dist-timeout 2)
add_test(NAME cli:ch05-02:ctrl-c-during-the-sample-saves
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/stop_in_sample.sh ${BIN} ${RUNS}/stop-in-sample
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch05-02:ctrl-c-during-the-sample-saves PROPERTIES LABELS "cli;robustness" SKIP_RETURN_CODE 77
                     TIMEOUT 120)
llm_cli_test(ch05-02:out-dir-is-a-file 1 "out_dir '.*binary.bin': cannot be made a folder" NEEDS ${VERDICT} ${GPT2}
             COMMAND ch05-02-train ${TINY_RUN} --max-steps 1 --out-dir ${FIXTURES}/binary.bin)
# Lesson 5.5: GPT-2 in Hugging Face's safetensors layout, in and out again.
add_test(NAME cli:ch05:gpt2-safetensors COMMAND ${PYTHON_TORCH} ${CMAKE_CURRENT_SOURCE_DIR}/gpt2_safetensors.py ${BIN}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch05:gpt2-safetensors PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
# Hugging Face model folders (generate --model-dir) of the course's Llama 3.2, Qwen3, Qwen3
# MoE and Gemma 3, in F32, F16 and BF16, tied and sharded, against the course's loaders;
# a GPT-2 folder; broken folders refused.
add_test(NAME cli:generate:hf-model-folders COMMAND ${PYTHON_TORCH} ${CMAKE_CURRENT_SOURCE_DIR}/hf_folders.py ${BIN}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:generate:hf-model-folders PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
llm_cli_test(generate:bos-needs-model-dir 2 "--bos puts the BOS token of --model-dir's config.json first" NEEDS ${GPT2}
             COMMAND generate --bos)
llm_cli_test(generate:model-dir-with-config 2 "--model-dir holds its own config and weights" NEEDS ${GPT2}
             COMMAND generate --model-dir ${CMAKE_CURRENT_BINARY_DIR} --config ${CFG}/tiny.json)
llm_cli_test(generate:model-dir-without-config 1 "config.json '.*config.json': cannot be read|file '.*config.json'"
             NEEDS ${GPT2} COMMAND generate --model-dir ${CMAKE_CURRENT_BINARY_DIR}/no-such-folder)
# scripts/download-gpt2.sh against a local server on 127.0.0.1: whole, continued,
# restarted, refused on a wrong SHA-256, and offline.
add_test(NAME cli:download-gpt2:local-server COMMAND ${PYTHON_TORCH} ${CMAKE_CURRENT_SOURCE_DIR}/download_gpt2.py
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:download-gpt2:local-server PROPERTIES LABELS "cli;robustness" TIMEOUT 300)
# Lesson 5.5 (ch05-04): a small GPT-2 in Hugging Face's layout, written by
# --save-safetensors, generates what the lesson's generate() does on its weights.
file(MAKE_DIRECTORY ${RUNS}/tiny-gpt2)
llm_cli_test(ch05-04:tiny-gpt2-weights 0 "Total number of parameters" NEEDS ${GPT2}
             COMMAND ch04-06-gpt-model --config ${BADCFG}/tiny-gpt2.json --seed 21
                     --save-safetensors ${RUNS}/tiny-gpt2/model.safetensors)
set_tests_properties(cli:ch05-04:tiny-gpt2-weights PROPERTIES FIXTURES_SETUP tiny-gpt2)
llm_compare_test(ch05-04-tiny-gpt2 ch05-04-pretrained-gpt2 --config ${BADCFG}/tiny-gpt2.json
                 --load-state-dict ${RUNS}/tiny-gpt2/model.safetensors)
set_tests_properties(cli:ch05-04-tiny-gpt2:compare-with-pytorch PROPERTIES FIXTURES_REQUIRED tiny-gpt2)
llm_cli_test(ch05-04:no-weights 1 "no GPT-2 355M weights in '.*/no-models/': scripts/download-gpt2.sh 355M fetches them"
             NEEDS ${GPT2} COMMAND ch05-04-pretrained-gpt2 --size 355M)
set_tests_properties(cli:ch05-04:no-weights PROPERTIES ENVIRONMENT LLM_MODELS_DIR=${RUNS}/no-models/)
llm_cli_test(ch05-04:bad-size 2 "--size must be 124M, 355M, 774M or 1558M, got '7B'" COMMAND ch05-04-pretrained-gpt2 --size 7B)
llm_cli_test(ch05-04:qkv-bias-mismatch 1 "'h.0.attn.c_attn.bias' holds biases, but the config has qkv_bias false" NEEDS ${GPT2}
             COMMAND ch05-04-pretrained-gpt2 --config ${CFG}/tiny.json --load-state-dict ${RUNS}/tiny-gpt2/model.safetensors)
set_tests_properties(cli:ch05-04:qkv-bias-mismatch PROPERTIES FIXTURES_REQUIRED tiny-gpt2)
# The real GPT-2 124M, when scripts/download-gpt2.sh 124M has fetched it: lesson 5.5's
# generation equals the lesson's generate() on the same weights, and exercise 5.5's
# training loss is the notebook's 3.7547 (the test is skipped, saying so, otherwise).
set(GPT2_124M ${PROJECT_SOURCE_DIR}/models/gpt2-124m/model.safetensors)
set(SKIP_WITHOUT_124M "[ -f ${GPT2_124M} ] || { echo 'skipped: ${GPT2_124M} is missing; scripts/download-gpt2.sh 124M fetches it'; exit 77; }")
add_test(NAME cli:ch05-04:real-gpt2-124m:compare-with-pytorch
         COMMAND bash -c "${SKIP_WITHOUT_124M}; exec ${CMAKE_CURRENT_SOURCE_DIR}/compare_outputs.sh ${BIN}/ch05-04-pretrained-gpt2 ${PYTHON_TORCH}"
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME cli:ch05-01:exercise-5.5-real-gpt2-124m
         COMMAND bash -c "${SKIP_WITHOUT_124M}; exec ${EXPECT} 0 'Training loss: 3\\.75' --needs the-verdict.txt -- ${BIN}/ch05-01-loss --config ${CFG}/gpt2-124m.json --load-state-dict ${GPT2_124M} --max-length 256"
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch05-04:real-gpt2-124m:compare-with-pytorch cli:ch05-01:exercise-5.5-real-gpt2-124m
                     PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 900)
# What the metrics and the plot hold: the printed evaluations, the checkpoint's history, a drawing.
add_test(NAME cli:ch05-02:metrics-and-plot-content COMMAND ${PYTHON_TORCH} ${CMAKE_CURRENT_SOURCE_DIR}/metrics_and_plot.py
                                                           ${BIN}/ch05-02-train
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch05-02:metrics-and-plot-content PROPERTIES LABELS cli SKIP_RETURN_CODE 77)

# Token files: tools/prepare, then training that memory-maps them (docs/pretraining.md).
add_test(NAME cli:prepare:token-files-train-as-their-texts COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/token_files.sh ${BIN}
                                                                  ${RUNS}/token-files
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:prepare:token-files-train-as-their-texts PROPERTIES LABELS cli SKIP_RETURN_CODE 77
                     TIMEOUT 300)
llm_cli_test(prepare:the-verdict 0 "Tokens: .*verdict.bin \\(5145 tokens as uint16, 1 documents" NEEDS ${VERDICT} ${GPT2}
             COMMAND prepare ${PROJECT_SOURCE_DIR}/data/the-verdict.txt -o ${RUNS}/verdict.bin)
set_tests_properties(cli:prepare:the-verdict PROPERTIES FIXTURES_SETUP verdict-tokens)
# Random windows (nanoGPT's sampling) are PyTorch's RandomSampler(replacement=True)
# draws, from a token file and from the text.
llm_compare_test(ch05-02-random-windows ch05-02-train ${TINY_RUN} --data ${RUNS}/verdict.bin --sampling random
                 --max-steps 6 --eval-freq 2 --out-dir=)
set_tests_properties(cli:ch05-02-random-windows:compare-with-pytorch PROPERTIES FIXTURES_REQUIRED verdict-tokens)
llm_compare_test(ch05-02-random-windows-of-text ch05-02-train ${TINY_RUN} --sampling random --batch-size 3
                 --max-steps 6 --eval-freq 2 --out-dir=)
llm_cli_test(prepare:no-input 2 "no input. expected text files or folders to tokenize" COMMAND prepare -o x.bin)
llm_cli_test(prepare:no-out 2 "--out is missing. expected the token file to write" COMMAND prepare a.txt)
llm_cli_test(prepare:bad-val-fraction 2 "--val-fraction must be between 0 and 1, got 1.5"
             COMMAND prepare a.txt -o x.bin --val-fraction 1.5)
llm_cli_test(prepare:two-validations 2 "--val-fraction and --val-data both choose the validation text. give one"
             COMMAND prepare a.txt -o x.bin --val-fraction 0.1 --val-data b.txt)
llm_cli_test(prepare:val-out-is-out 2 "--val-out is the same file as --out"
             COMMAND prepare a.txt -o x.bin --val-fraction 0.1 --val-out ./x.bin)
llm_cli_test(prepare:val-out-alone 2 "--val-out needs --val-fraction or --val-data" COMMAND prepare a.txt -o x.bin --val-out v.bin)
llm_cli_test(prepare:zero-threads 2 "--threads must be positive, got 0" COMMAND prepare a.txt -o x.bin -j 0)
llm_cli_test(prepare:too-many-threads 2 "--threads must be at most the machine's [0-9]+ cores, got 10000" COMMAND prepare a.txt -o x.bin -j 10000)
llm_cli_test(prepare:missing-input 1 "input 'nope.txt': no such file or folder" NEEDS ${GPT2}
             COMMAND prepare nope.txt -o ${RUNS}/nope.bin)
llm_cli_test(prepare:invalid-utf8 1 "invalid-utf8.txt': invalid UTF-8 at byte 7. expected UTF-8 text" NEEDS ${GPT2}
             COMMAND prepare ${FIXTURES}/invalid-utf8.txt -o ${RUNS}/invalid.bin)
llm_cli_test(prepare:binary-input 1 "binary.bin': invalid UTF-8 at byte" NEEDS ${GPT2}
             COMMAND prepare ${FIXTURES}/binary.bin -o ${RUNS}/binary.bin)
llm_cli_test(prepare:empty-input 1 "no text for the training file" NEEDS ${GPT2}
             COMMAND prepare ${FIXTURES}/empty.txt -o ${RUNS}/empty.bin)
llm_cli_test(prepare:out-is-a-folder 1 "fixtures': exists and is not a regular file \\(a folder\\)" NEEDS ${GPT2}
             COMMAND prepare ${FIXTURES}/short.txt -o ${FIXTURES})
llm_cli_test(prepare:out-folder-not-a-folder 1 "--out '.*short.txt/x.bin': its folder '.*short.txt' cannot be made"
             NEEDS ${GPT2} COMMAND prepare ${FIXTURES}/short.txt -o ${FIXTURES}/short.txt/x.bin)
llm_cli_test(ch05-02:token-file-of-another-vocabulary 1 "other-vocab.bin': made with another vocabulary" NEEDS ${GPT2}
             COMMAND ch05-02-train ${TINY_RUN} --data ${FIXTURES}/other-vocab.bin)
llm_cli_test(ch05-02:token-file-cut-short 1 "cut-short.bin': it has 1621 bytes, but a header and 300 ids of 2 bytes make 1624"
             NEEDS ${GPT2} COMMAND ch05-02-train ${TINY_RUN} --data ${FIXTURES}/cut-short.bin)
llm_cli_test(ch05-02:token-file-with-text-validation 1 "val_data '.*short.txt': not a token file" NEEDS ${GPT2}
             COMMAND ch05-02-train ${TINY_RUN} --data ${RUNS}/verdict.bin --val-data ${FIXTURES}/short.txt)
set_tests_properties(cli:ch05-02:token-file-with-text-validation PROPERTIES FIXTURES_REQUIRED verdict-tokens)
llm_cli_test(ch05-02:bad-sampling 2 "sampling must be \"sliding\" or \"random\", got \"shuffled\""
             COMMAND ch05-02-train --sampling shuffled)
llm_cli_test(ch05-02:random-windows-data-parallel 2 "sampling \"random\" runs in one process" NEEDS ${GPT2}
             COMMAND ch05-02-train --sampling random --world-size 2 --rank 0)
# prepare only tokenizes: it has no --seed, --save-outputs or --device.
llm_cli_test(prepare:save-outputs 2 "Option 'save-outputs' does not exist" COMMAND prepare a.txt -o x.bin --save-outputs y.pt)
llm_cli_test(prepare:seed 2 "Option 'seed' does not exist" COMMAND prepare a.txt -o x.bin --seed 1)

# The standalone notebooks of today's models (ch05-07, ch05-11, ch05-12): small models
# of the real vocabularies (tests/cli/fixtures/notebooks), against the course's classes:
# logits of [1, 2, 3], parameter count, memory estimate and greedy ids, with and
# without the KV cache; docs/lesson-numbers.md checks the real sizes' printed numbers.
set(NOTEBOOKS ${FIXTURES}/notebooks)
foreach(step llama32 qwen3 gemma3)
  set(exe ch05-07-llama32)
  if(step STREQUAL "qwen3")
    set(exe ch05-11-qwen3)
  elseif(step STREQUAL "gemma3")
    set(exe ch05-12-gemma3)
  endif()
  llm_compare_test(${exe} ${exe} --config ${NOTEBOOKS}/${step}.json --max-new-tokens 24)
  llm_compare_test(${exe}-kv-cache ${exe} --config ${NOTEBOOKS}/${step}.json --max-new-tokens 24 --kv-cache)
endforeach()
# standalone-qwen3-moe (--moe) on a small mixture of experts; its 30B-A3B default needs
# about 61 GB, which the one-line refusal below names.
llm_compare_test(ch05-11-qwen3-moe ch05-11-qwen3 --moe --config ${NOTEBOOKS}/qwen3-moe.json --max-new-tokens 24)
llm_compare_test(ch05-11-qwen3-moe-kv-cache ch05-11-qwen3 --moe --config ${NOTEBOOKS}/qwen3-moe.json
                 --max-new-tokens 24 --kv-cache)
llm_cli_test(ch05-11:moe-prompt 0 "Implement a binary search function in Python<.im_end.>"
             NEEDS tokenizers/qwen3/tokenizer.json COMMAND ch05-11-qwen3 --moe --config ${NOTEBOOKS}/qwen3-moe.json
             --max-new-tokens 1)
llm_cli_test(ch05-11:model-as-pytorch-prints-it 0 "\\(0-1\\): 2 x TransformerBlock\\(\n      \\(att\\): GroupedQueryAttention\\("
             NEEDS tokenizers/qwen3/tokenizer.json COMMAND ch05-11-qwen3 --config ${NOTEBOOKS}/qwen3.json)
llm_cli_test(ch05-07:the-notebooks-generate 0 "^Time: [0-9.]+ sec$"
             NEEDS tokenizers/llama3/tokenizer.json COMMAND ch05-07-llama32 --config ${NOTEBOOKS}/llama32.json --max-new-tokens 3)
llm_cli_test(ch05-12:random-weights-said 0 "random weights of --seed 123.*the text below is a random model's"
             NEEDS tokenizers/gemma3/tokenizer.json COMMAND ch05-12-gemma3 --config ${NOTEBOOKS}/gemma3.json --max-new-tokens 1)
llm_cli_test(ch05-11:vocabulary-too-small 1 "the prompt has token id 151645. the model's vocabulary has 500 tokens"
             NEEDS tokenizers/qwen3/tokenizer.json COMMAND ch05-11-qwen3 --config ${CFG}/tiny-qwen3.json)
llm_cli_test(ch05-11:gpt-config-refused 1 "builds Llama 3.2, Qwen3 or Gemma 3 models. the config is of the family 'gpt2'"
             NEEDS tokenizers/qwen3/tokenizer.json COMMAND ch05-11-qwen3 --config ${CFG}/tiny.json)
llm_cli_test(ch05-12:bad-max-new-tokens 2 "max_new_tokens" COMMAND ch05-12-gemma3 --max-new-tokens -1)

# The ch05/14 notebooks (ch05-14-other-llms): chapter 5's pretraining with Qwen3 and
# Llama 3.2 on small models of the real vocabularies, at the notebooks' context of 256,
# against the notebooks' loop on the course's classes: the untrained model's ids, the
# losses before training and every evaluation's, over a few steps. The run stopped
# after step 2 and resumed to step 4 must end as the uninterrupted one (the same
# weights and losses, which are the notebook's).
set(QWEN3_NOTEBOOK_TOKENS tokenizers/qwen3/tokenizer.json ${VERDICT})
set(FEW_STEPS --eval-freq 2 --eval-iter 1 --no-plot)
llm_compare_test(ch05-14-other-llms-llama32 ch05-14-other-llms SCRATCH ${RUNS}/ch05-14-llama32
                 --model llama32 --config ${NOTEBOOKS}/llama32-train.json --max-steps 4 ${FEW_STEPS}
                 --out-dir ${RUNS}/ch05-14-llama32 --overwrite)
# Qwen3's run is checked once: against PyTorch, and stopped and resumed.
add_test(NAME cli:ch05-14-other-llms-qwen3:compare-with-pytorch-and-resumed
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/resume_equals_whole.sh ${BIN}/ch05-14-other-llms ${PYTHON_TORCH}
                 ${RUNS}/ch05-14-resume 2 4 --config ${NOTEBOOKS}/qwen3-train.json ${FEW_STEPS}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch05-14-other-llms-qwen3:compare-with-pytorch-and-resumed PROPERTIES LABELS cli
                     SKIP_RETURN_CODE 77 FIXTURES_SETUP ch05-14-resumed)
llm_cleanup(ch05-14-resumed cli ${RUNS}/ch05-14-resume)
llm_cli_test(ch05-14:the-notebooks-text-cells 0 "^Tokens: 4943$" NEEDS ${QWEN3_NOTEBOOK_TOKENS}
             SCRATCH ${RUNS}/ch05-14-cells
             COMMAND ch05-14-other-llms --config ${NOTEBOOKS}/qwen3-train.json --max-steps 1 --no-plot
             --out-dir ${RUNS}/ch05-14-cells --overwrite)
llm_cli_test(ch05-14:the-notebooks-loaders 0 "^All tokens: 4608$"
             NEEDS tokenizers/llama3/tokenizer.json ${VERDICT} SCRATCH ${RUNS}/ch05-14-loaders
             COMMAND ch05-14-other-llms --model llama32
             --config ${NOTEBOOKS}/llama32-train.json --max-steps 1 --no-plot
             --out-dir ${RUNS}/ch05-14-loaders --overwrite)
llm_cli_test(ch05-14:bad-model 2 "--model must be qwen3 or llama32, got 'gpt2'" COMMAND ch05-14-other-llms --model gpt2)
llm_cli_test(ch05-02:tokenizer-larger-than-the-model 1
             "the tokenizer 'qwen3' has 151669 tokens, more than the model config's vocab_size 50257"
             NEEDS tokenizers/qwen3/tokenizer.json COMMAND ch05-02-train ${TINY_RUN} --tokenizer qwen3)

# A config named by a path relative to the project resolves from any folder, as data
# does (find_config), and the step says where it found it.
add_test(NAME cli:ch04-06:config-from-another-folder
         COMMAND ${EXPECT} 0 "--config configs/tiny.json: not in this folder; using .*configs/tiny.json"
                 --needs gpt2/encoder.json -- ${BIN}/ch04-06-gpt-model --config configs/tiny.json
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME cli:ch05-02:train-config-from-another-folder
         COMMAND ${EXPECT} 0 "--train-config configs/train-quick.json: not in this folder; using .*configs/train-quick.json"
                 --needs the-verdict.txt --needs gpt2/encoder.json --scratch ${RUNS}/config-elsewhere
                 -- ${BIN}/ch05-02-train --train-config configs/train-quick.json --config tiny.json --max-steps 1
                 --no-plot --overwrite --out-dir ${RUNS}/config-elsewhere
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli:ch04-06:config-from-another-folder cli:ch05-02:train-config-from-another-folder
                     PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
