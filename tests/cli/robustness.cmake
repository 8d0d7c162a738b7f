# Bad input that every executable, or every executable of a kind, must refuse with
# one line naming it: flags, model configs, state dicts, checkpoints, unreadable files.
get_property(chapters GLOBAL PROPERTY LLM_CHAPTERS)
get_property(tools GLOBAL PROPERTY LLM_TOOLS)
# The steps that draw nothing take no --seed, and those that put no tensor on a device
# take no --device and no --threads (cli::CommonFlags): a flag a step would not use is
# refused, not ignored.
set(LLM_NO_SEED ch02-01-simple-tokenizer ch02-02-bpe-tokenizer ch02-03-train-bpe ch04-11-kv-memory ch07-01-data
    ch07-05-evaluate)
set(LLM_NO_DEVICE ${LLM_NO_SEED} ch02-04-data-sampling ch06-01-data ch06-02-loaders ch07-02-batching
    ch07-06-preference-data)
# One name per idea across every executable (kRenamedFlags): no --help lists an old
# name or a flag twice, and an old name given points to the new one. Each --help also
# names every flag's value (--seed N, not cxxopts' placeholder "arg"), writes each
# default as it is typed (0.1, not 0.100000), and lists --seed, --device and --threads
# exactly where a step uses them (the lists above).
string(REPLACE ";" "," no_seed "${LLM_NO_SEED}")
string(REPLACE ";" "," no_device "${LLM_NO_DEVICE}")
add_test(NAME cli:flag-vocabulary
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/flag_vocabulary.sh ${PROJECT_SOURCE_DIR}/src/llm/cli/cli.h ${BIN}
                 ${no_seed} ${no_device} ${chapters} ${tools})
set_tests_properties(cli:flag-vocabulary PROPERTIES LABELS "cli;robustness" TIMEOUT 300
                     REQUIRED_FILES ${PROJECT_SOURCE_DIR}/src/llm/cli/cli.h)
# A bad flag or flag value is one code path for every executable: cli::options
# registers the common flags a program takes, and cli::run parses them and checks the
# values of exactly those before the program's own code runs. The values are checked on
# one step of each kind: no --seed and no device (2.1), a --seed and no device (2.4),
# all three (4.6); every step shows that it goes through cli::run (an unknown flag,
# below).
foreach(exe ch02-01-simple-tokenizer ch02-04-data-sampling ch04-06-gpt-model)
  llm_cli_test(${exe}:stray-argument 2 "unexpected argument 'stray'" COMMAND ${exe} stray)
  if(exe IN_LIST LLM_NO_SEED)
    llm_cli_test(${exe}:no-seed-flag 2 "Option 'seed' does not exist" COMMAND ${exe} --seed 1)
  else()
    llm_cli_test(${exe}:bad-seed 2 "--seed: 'abc' is not a valid value" COMMAND ${exe} --seed abc)
  endif()
  if(exe IN_LIST LLM_NO_DEVICE)
    llm_cli_test(${exe}:no-device-flag 2 "Option 'device' does not exist" COMMAND ${exe} --device cpu)
    llm_cli_test(${exe}:no-threads-flag 2 "Option 'threads' does not exist" COMMAND ${exe} --threads 1)
  else()
    llm_cli_test(${exe}:bad-threads 2 "--threads: expected a positive number, got 0" COMMAND ${exe} --threads 0)
    llm_cli_test(${exe}:too-many-threads 2 "--threads: at most the machine's [0-9]+ cores, got 10000" COMMAND ${exe} --threads 10000)
    llm_cli_test(${exe}:bad-device 2 "--device: expected auto, cpu, cuda or cuda:N, got 'gpu'" COMMAND ${exe} --device gpu)
    llm_cli_test(${exe}:absent-device 2 "--device cuda:99: (this LibTorch has no CUDA|there are [0-9]+ CUDA devices)"
                 COMMAND ${exe} --device cuda:99)
  endif()
endforeach()
foreach(exe IN LISTS chapters)
  llm_cli_test(${exe}:unknown-flag 2 "Option 'bogus' does not exist" COMMAND ${exe} --bogus)
  # Lessons 4.2, 6.2-6.3, 7.2-7.3, 7.8, the MLA, SWA and MoE steps, the memory estimators and the DPO data take no model config; 6.8 reads one only with
  # --load-state-dict.
  if(exe MATCHES "^ch0[4-9]-" AND NOT exe MATCHES "^(ch04-02-layer-norm|ch04-08-mla|ch04-09-sliding-window|ch04-10-moe|ch04-11-kv-memory|ch06-01-data|ch06-02-loaders|ch06-05-classify|ch07-01-data|ch07-02-batching|ch07-05-evaluate|ch07-06-preference-data)$")
    llm_cli_test(${exe}:config-not-json 1 "not valid JSON" NEEDS ${GPT2} COMMAND ${exe} --config ${FIXTURES}/bad-encoder.json)
  endif()
  if(exe MATCHES "^ch02-")
    llm_cli_test(${exe}:missing-input 1 "no-such-file.txt': not found" NEEDS ${GPT2}
                 COMMAND ${exe} --data no-such-file.txt)
    llm_cli_test(${exe}:empty-input 1 "empty.txt': is empty" NEEDS ${GPT2} COMMAND ${exe} --data ${FIXTURES}/empty.txt)
    llm_cli_test(${exe}:invalid-utf8 1 "invalid UTF-8 at byte 7 \\(line 2, column 2\\)" NEEDS ${GPT2}
                 COMMAND ${exe} --data ${FIXTURES}/invalid-utf8.txt)
    llm_cli_test(${exe}:binary-input 1 "invalid UTF-8 at byte" NEEDS ${GPT2} COMMAND ${exe} --data ${FIXTURES}/binary.bin)
    llm_cli_test(${exe}:directory-input 1 "not a regular file" NEEDS ${GPT2} COMMAND ${exe} --data ${FIXTURES})
    llm_cli_test(${exe}:save-outputs-folder-is-a-file 1 "--save-outputs '.*empty.txt/out.pt': its folder '.*empty.txt' cannot be made"
                 NEEDS ${VERDICT} ${GPT2} COMMAND ${exe} --save-outputs ${FIXTURES}/empty.txt/out.pt)
  endif()
endforeach()


foreach(bad malformed wrong-type unknown-key heads-not-dividing groups-not-dividing zero-context duplicate-key nul-byte
            too-large beyond-int64)
  set(expect_malformed "not valid JSON")
  set(expect_wrong-type "emb_dim must be an integer")
  set(expect_unknown-key "unknown key 'n_head'")
  set(expect_heads-not-dividing "n_heads \\(5\\) must divide emb_dim \\(768\\)")
  set(expect_groups-not-dividing "n_kv_groups \\(5\\) must divide n_heads \\(12\\)")
  set(expect_zero-context "context_length must be positive, got 0")
  set(expect_duplicate-key "the key 'n_layers' appears twice")
  set(expect_nul-byte "not valid JSON \\(a NUL byte at offset 15\\)")
  # Sizes that cannot fit are refused before the model is built (not std::bad_alloc),
  # and a number beyond int64 is not wrapped to a negative one.
  set(expect_too-large "a GPT of vocab_size 50257, context_length 1024, emb_dim 768 and n_layers 1000000000 \\(7.09e\\+15 parameters\\): about .* of memory needed. this machine has")
  set(expect_beyond-int64 "emb_dim must be at most 9223372036854775807, got 9223372036854775808")
  # Every program reads its model config through llm::ModelConfig::load (the lesson
  # steps and generate by --config, training by its training config's model), and
  # config-not-json above shows that each step reads it: the kinds of bad config are
  # tried on a lesson step, on training and on generate.
  foreach(exe ch04-01-dummy-gpt ch05-02-train generate)
    llm_cli_test(${exe}:config-${bad} 1 "${expect_${bad}}" NEEDS ${GPT2} COMMAND ${exe} --config ${BADCFG}/${bad}.json)
  endforeach()
endforeach()
# State dicts that do not fit the model: one key missing, one too many, one tensor of
# the wrong shape, one of the wrong dtype (written by bad_state_dicts.py from the
# micro model's state dict), refused by every executable that takes --load-state-dict.
set(BAD_STATE_DICTS ${CMAKE_CURRENT_BINARY_DIR}/bad-state-dicts)
add_test(NAME cli:bad-state-dicts:write
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/bad_state_dicts.py ${BAD_STATE_DICTS})
set_tests_properties(cli:bad-state-dicts:write PROPERTIES LABELS cli FIXTURES_SETUP bad_state_dicts)
set(expect_missing-key "missing key 'final_norm.shift'")
set(expect_extra-key "unexpected key 'trf_blocks.1.norm1.scale'")
set(expect_mis-shaped "'pos_emb.weight' has shape \\[9, 16\\], expected \\[8, 16\\]")
set(expect_wrong-dtype "'out_head.weight' is Long, expected a floating-point tensor")
# Every program loads them through LanguageModelImpl::load_weights: each kind is tried
# on a lesson step and on generate, a missing key on the others.
foreach(bad missing-key extra-key mis-shaped wrong-dtype)
  set(exes ch04-06-gpt-model generate)
  if(bad STREQUAL "missing-key")
    list(APPEND exes ch03-07-attention-heads ch04-07-generate ch05-03-sampling)
  endif()
  foreach(exe IN LISTS exes)
    llm_cli_test(${exe}:state-dict-${bad} 1 "${BAD_STATE_DICTS}/${bad}.pt': ${expect_${bad}}" NEEDS ${GPT2}
                 COMMAND ${exe} --config ${BADCFG}/micro.json --load-state-dict ${BAD_STATE_DICTS}/${bad}.pt)
    set_tests_properties(cli:${exe}:state-dict-${bad} PROPERTIES FIXTURES_REQUIRED bad_state_dicts)
  endforeach()
endforeach()
# Weights that fit but hold a NaN: the explorer names the head it cannot summarize
# (the prompt's tokens are inside the micro model's 100).
llm_cli_test(ch03-07-attention-heads:nan-weight 1
             "the attention weights of layer 0, head 0 are not finite. the model's weights hold NaN or inf"
             NEEDS ${GPT2} COMMAND ch03-07-attention-heads --config ${BADCFG}/micro.json
             --load-state-dict ${BAD_STATE_DICTS}/nan-weight.pt --prompt "A,B")
set_tests_properties(cli:ch03-07-attention-heads:nan-weight PROPERTIES FIXTURES_REQUIRED bad_state_dicts)
# Damaged checkpoints (also written by bad_state_dicts.py), and one of another model
# (the fuzz corpus's tiny checkpoint: 12 tokens, context 4), for every executable
# that reads a checkpoint.
set(TINY_CHECKPOINT ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/checkpoint/seed-tiny)
set(expect_truncated "truncated-checkpoint.pt': damaged \\(no zip directory at the end\\)")
set(expect_corrupt "corrupt-checkpoint.pt': damaged \\(entry 'archive/data/47' fails its CRC-32 check\\)")
foreach(exe_flag ch03-07-attention-heads:--checkpoint ch05-02-train:--resume ch05-03-sampling:--checkpoint
                 generate:--checkpoint)
  string(REPLACE ":" ";" exe_flag ${exe_flag})
  list(GET exe_flag 0 exe)
  list(GET exe_flag 1 flag)
  foreach(bad truncated corrupt)
    llm_cli_test(${exe}:${bad}-checkpoint 1 "${expect_${bad}}" NEEDS ${GPT2}
                 COMMAND ${exe} ${flag} ${BAD_STATE_DICTS}/${bad}-checkpoint.pt)
    set_tests_properties(cli:${exe}:${bad}-checkpoint PROPERTIES FIXTURES_REQUIRED bad_state_dicts)
  endforeach()
endforeach()
# Hostile pickles (nested a million deep, or holding themselves) are refused with a
# message wherever an archive is read; none may crash the program.
set(expect_nested-lists "nested-lists.pt': expected a dict of tensors")
set(expect_nested-dicts "nested-dicts.pt': containers nested more than 32 deep")
set(expect_self-holding-list "self-holding-list.pt': containers nested more than 32 deep")
foreach(bad nested-lists nested-dicts self-holding-list)
  foreach(exe_flag ch04-06-gpt-model:--load-state-dict ch05-02-train:--resume generate:--checkpoint)
    string(REPLACE ":" ";" exe_flag ${exe_flag})
    list(GET exe_flag 0 exe)
    list(GET exe_flag 1 flag)
    llm_cli_test(${exe}:${bad} 1 "${expect_${bad}}" NEEDS ${GPT2} COMMAND ${exe} ${flag} ${BAD_STATE_DICTS}/${bad}.pt)
    set_tests_properties(cli:${exe}:${bad} PROPERTIES FIXTURES_REQUIRED bad_state_dicts)
  endforeach()
endforeach()
llm_cli_test(ch05-02-train:checkpoint-of-other-model 1
             "the tokenizer 'gpt2' has 50257 tokens, more than the model config's vocab_size 12"
             NEEDS ${GPT2} ${VERDICT} COMMAND ch05-02-train --resume ${TINY_CHECKPOINT} --out-dir ${RUNS}/other-model)
# A checkpoint taken mid-epoch, resumed on a split that makes other windows.
llm_cli_test(ch05-14-other-llms:checkpoint-of-other-data 1 "checkpoint.pt' was made on other training data"
             NEEDS tokenizers/qwen3/tokenizer.json ${VERDICT} COMMAND ch05-14-other-llms
             --resume ${RUNS}/ch05-14-resume/part/checkpoint.pt --train-ratio 0.5 --max-steps 100 --out-dir ${RUNS}/other-data)
set_tests_properties(cli:ch05-14-other-llms:checkpoint-of-other-data PROPERTIES FIXTURES_REQUIRED ch05-14-resumed)
llm_cli_test(ch05-03-sampling:checkpoint-of-other-model 1 "GPT: token ids must be in 0..11"
             NEEDS ${GPT2} COMMAND ch05-03-sampling --checkpoint ${TINY_CHECKPOINT})
llm_cli_test(generate:checkpoint-of-other-model 1 "GPT: token ids must be in 0..11"
             NEEDS ${GPT2} COMMAND generate --checkpoint ${TINY_CHECKPOINT})

# An input file that cannot be read (as root, the command runs as nobody).
function(llm_unreadable_test name flag)
  cmake_parse_arguments(ARG "" "" "NEEDS;COMMAND" ${ARGN})
  list(POP_FRONT ARG_COMMAND exe)
  llm_needs(needs ${ARG_NEEDS})
  add_test(NAME cli:${name}:unreadable-file
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/unreadable.sh ${flag} ${needs} -- ${BIN}/${exe} ${ARG_COMMAND}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli:${name}:unreadable-file PROPERTIES
                       LABELS "cli;robustness" SKIP_RETURN_CODE 77)
endfunction()
llm_unreadable_test(ch02-01 --data COMMAND ch02-01-simple-tokenizer)
llm_unreadable_test(ch04-06 --config NEEDS ${GPT2} COMMAND ch04-06-gpt-model)
llm_unreadable_test(ch05-02 --resume NEEDS ${GPT2} COMMAND ch05-02-train)
llm_unreadable_test(generate --checkpoint NEEDS ${GPT2} COMMAND generate --prompt Hello)

# An output path that names a device is refused, never replaced by a file.
llm_cli_test(ch04-05:save-outputs-over-dev-null 1 "'/dev/null': exists and is not a regular file \\(a device\\)"
             COMMAND ch04-05-transformer-block --config ${CFG}/tiny.json --save-outputs /dev/null)
llm_cli_test(ch05-02:seed-too-large 2 "--seed: a run's seed is at most 9223372036854775807, got 18446744073709551615"
             COMMAND ch05-02-train --seed 18446744073709551615)

# A context too short for a lesson step's fixed input names the config.
llm_cli_test(ch04-06:context-shorter-than-the-batch 1
             "config '.*context-length-1.json': context_length 1 is shorter than the lesson's batch \\(4 tokens\\). expected at least 4"
             NEEDS ${GPT2} COMMAND ch04-06-gpt-model --config ${BADCFG}/context-length-1.json)
llm_cli_test(ch05-01:context-shorter-than-the-inputs 1
             "config '.*context-length-1.json': context_length 1 is shorter than the lesson's inputs \\(3 tokens\\). expected at least 3"
             NEEDS ${GPT2} COMMAND ch05-01-loss --config ${BADCFG}/context-length-1.json)
# Attention sizes that cannot fit: a flag error naming them, not the allocator's.
llm_cli_test(ch03-05:batch-beyond-memory 2
             "--batch-size 1000000000, --context-length 6, --d-in 3, --d-out 2 and --num-heads 2: about .* of memory needed"
             COMMAND ch03-05-multi-head-attention --batch-size 1000000000)
# A text larger than a chapter-2 step can hold (a sparse file of 1 TB) is refused
# before it is read.
add_test(NAME cli:huge-input:write COMMAND truncate -s 1T ${RUNS}/huge.txt)
set_tests_properties(cli:huge-input:write PROPERTIES LABELS cli FIXTURES_SETUP huge_input)
foreach(exe ch02-01-simple-tokenizer ch02-02-bpe-tokenizer ch02-03-train-bpe ch02-04-data-sampling ch02-05-embeddings)
  llm_cli_test(${exe}:input-beyond-memory 1 "input '.*huge.txt' \\(1.1 TB\\), which this lesson step holds in memory about [0-9]+ times over: about .* of memory needed"
               NEEDS ${GPT2} COMMAND ${exe} --data ${RUNS}/huge.txt)
  set_tests_properties(cli:${exe}:input-beyond-memory PROPERTIES FIXTURES_REQUIRED huge_input)
endforeach()

# JSON nested a million deep (nlohmann's dump() and copies recurse once per level) and
# a wrongly typed 10 MB string: one bounded line, never a crash (hostile_json.py).
set(HOSTILE ${CMAKE_CURRENT_BINARY_DIR}/hostile-json)
add_test(NAME cli:hostile-json:write COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/hostile_json.py ${HOSTILE})
set_tests_properties(cli:hostile-json:write PROPERTIES LABELS cli FIXTURES_SETUP hostile_json)
set(DEEP_MESSAGE "nested more than 64 levels deep at offset [0-9]+. expected at most 64$")
foreach(exe ch04-06-gpt-model generate ch05-02-train)
  llm_cli_test(${exe}:config-nested-deep 1 "config '${HOSTILE}/deep-config.json': ${DEEP_MESSAGE}" NEEDS ${GPT2}
               COMMAND ${exe} --config ${HOSTILE}/deep-config.json)
  llm_cli_test(${exe}:config-long-string 1 "emb_dim must be an integer, got \"x+\\.\\.\\.\\(\\+[0-9]+ bytes\\)$"
               NEEDS ${GPT2} COMMAND ${exe} --config ${HOSTILE}/long-string-config.json)
  set_tests_properties(cli:${exe}:config-nested-deep cli:${exe}:config-long-string PROPERTIES
                       FIXTURES_REQUIRED hostile_json)
endforeach()
foreach(exe generate ch04-06-gpt-model)
  llm_cli_test(${exe}:safetensors-shape-nested-deep 1
               "safetensors header '${HOSTILE}/deep-shape.safetensors': ${DEEP_MESSAGE}" NEEDS ${GPT2}
               COMMAND ${exe} --config ${BADCFG}/micro.json --load-state-dict ${HOSTILE}/deep-shape.safetensors)
  set_tests_properties(cli:${exe}:safetensors-shape-nested-deep PROPERTIES FIXTURES_REQUIRED hostile_json)
endforeach()
llm_cli_test(ch07-01:data-nested-deep 1 "instruction data '${HOSTILE}/deep-instructions.json': ${DEEP_MESSAGE}"
             COMMAND ch07-01-data --data ${HOSTILE}/deep-instructions.json)
set_tests_properties(cli:ch07-01:data-nested-deep PROPERTIES FIXTURES_REQUIRED hostile_json)

# Outputs: checked before the work (hours of responses are not generated for a folder
# that is not there), never an input, never through a symbolic link (outputs.sh).
llm_cli_test(ch07-04:out-folder-not-a-folder 1 "--out '.*empty.txt/responses.json': its folder '.*empty.txt' cannot be made"
             COMMAND ch07-04-responses --out ${FIXTURES}/empty.txt/responses.json)
add_test(NAME cli:outputs:never-an-input-or-a-link
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/outputs.sh ${BIN} ${TINY_CHECKPOINT} ${RUNS}/outputs
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:outputs:never-an-input-or-a-link PROPERTIES LABELS "cli;robustness" SKIP_RETURN_CODE 77)

# Output to a file or a pipe comes line by line (cli::run), in every step.
add_test(NAME cli:ch07-03:output-line-by-line
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/line_buffered.sh ${BIN} ${RUNS}/line-buffered
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch07-03:output-line-by-line PROPERTIES LABELS "cli;robustness" SKIP_RETURN_CODE 77 TIMEOUT 180)
