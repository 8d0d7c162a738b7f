# Chapter 6: classification finetuning. Lessons 6.2-6.3 against the lesson's pandas and
# PyTorch code, on a stand-in SMS zip and on the SpamAssassin corpus when fetched.
set(SPAM ${FIXTURES}/spam)
foreach(dataset sms spam-assassin)
  add_test(NAME cli:ch06:data-and-loaders-${dataset}:compare-with-pytorch
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/spam_data.sh ${BIN} ${PYTHON_TORCH}
                   ${CMAKE_CURRENT_BINARY_DIR}/spam-data-${dataset} ${dataset}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli:ch06:data-and-loaders-${dataset}:compare-with-pytorch PROPERTIES LABELS cli
                       SKIP_RETURN_CODE 77)
endforeach()

# The lesson's counts on the lesson's data when it is here (it needs the network).
llm_cli_test(ch06-01:lesson-counts 0 "^spam     747$" NEEDS sms_spam_collection.zip
             COMMAND ch06-01-data --dataset sms --out-dir ${CMAKE_CURRENT_BINARY_DIR}/spam-lesson)
llm_cli_test(ch06-01:lesson-balanced 0 "^spam    747$" NEEDS sms_spam_collection.zip
             COMMAND ch06-01-data --dataset sms --out-dir ${CMAKE_CURRENT_BINARY_DIR}/spam-lesson-2)

# Bad input: one line naming it.
llm_cli_test(ch06-01:bad-label 1 "bad-label.zip' \\(SMSSpamCollection\\), line 3: label .maybe.. expected ham or spam"
             COMMAND ch06-01-data --zip ${SPAM}/bad-label.zip --out-dir ${CMAKE_CURRENT_BINARY_DIR}/spam-bad)
llm_cli_test(ch06-01:empty-class 1 "only-ham.zip: no spam rows. expected both classes"
             COMMAND ch06-01-data --zip ${SPAM}/only-ham.zip --out-dir ${CMAKE_CURRENT_BINARY_DIR}/spam-bad)
llm_cli_test(ch06-01:open-quote 1 "the quote that opens a field on line 2 is never closed"
             COMMAND ch06-01-data --zip ${SPAM}/open-quote.zip --out-dir ${CMAKE_CURRENT_BINARY_DIR}/spam-bad)
llm_cli_test(ch06-01:three-fields 1 "line 1: 3 fields. expected 2, a label and a text"
             COMMAND ch06-01-data --zip ${SPAM}/three-fields.zip --out-dir ${CMAKE_CURRENT_BINARY_DIR}/spam-bad)
llm_cli_test(ch06-01:not-the-sms-zip 1 "zip-sample.zip': no file SMSSpamCollection in it"
             COMMAND ch06-01-data --zip ${PROJECT_SOURCE_DIR}/tests/golden/zip-sample.zip)
llm_cli_test(ch06-01:no-data 1 "no spam data: neither 'no-such.zip' nor 'no-such-folder' exists. run scripts/fetch-data.sh"
             COMMAND ch06-01-data --zip no-such.zip --spam-assassin no-such-folder)
llm_cli_test(ch06-01:not-a-corpus 1 "SpamAssassin corpus: no folder '.*easy-ham-1'"
             COMMAND ch06-01-data --dataset spam-assassin --spam-assassin ${SPAM})
llm_cli_test(ch06-01:seed-beyond-numpy 2 "--seed 4294967296 is pandas' random_state here.*expected 0..4294967295"
             COMMAND ch06-01-data --seed 4294967296)
llm_cli_test(ch06-01:no-test-rows 2 "--train-frac 0.95 and --validation-frac 0.1: expected"
             COMMAND ch06-01-data --train-frac 0.95)
llm_cli_test(ch06-01:bad-dataset 2 "--dataset 'imdb': expected sms, spam-assassin or auto"
             COMMAND ch06-01-data --dataset imdb)
llm_cli_test(ch06-02:no-label-column 1 "no-label-column/train.csv': no Label column in the header \\(Text\\)"
             NEEDS ${GPT2} COMMAND ch06-02-loaders --data ${SPAM}/no-label-column)
llm_cli_test(ch06-02:bad-label 1 "bad-label/train.csv', line 3: label .spam.. expected a class number"
             NEEDS ${GPT2} COMMAND ch06-02-loaders --data ${SPAM}/bad-label)
llm_cli_test(ch06-02:empty-text 1 "empty-text/train.csv', line 3: the text is empty"
             NEEDS ${GPT2} COMMAND ch06-02-loaders --data ${SPAM}/empty-text)
llm_cli_test(ch06-02:endoftext-in-text 1 "example 1 holds the special token <\\|endoftext\\|>"
             NEEDS ${GPT2} COMMAND ch06-02-loaders --data ${SPAM}/endoftext)
llm_cli_test(ch06-02:missing-csv 1 "no-such-folder/train.csv': not found"
             NEEDS ${GPT2} COMMAND ch06-02-loaders --data no-such-folder)
llm_cli_test(ch06-02:max-length-zero 2 "--max-length must be positive, got 0"
             COMMAND ch06-02-loaders --max-length 0)

# Lessons 6.4-6.7 against the lesson's code, with a small random GPT.
llm_compare_test(ch06-03-classifier ch06-03-classifier --config ${CFG}/tiny.json)
llm_compare_test(ch06-03-classifier-all-3 ch06-03-classifier --config ${CFG}/tiny.json --trainable all --num-classes 3)
llm_cli_test(ch06-03:untrained-said-and-lesson-shapes 0 "^Weights: none: an untrained GPT, random weights of --seed 123
^Outputs dimensions: torch.Size\\(\\[1, 4, 2\\]\\)$" NEEDS ${GPT2}
             COMMAND ch06-03-classifier --config ${CFG}/tiny.json)
add_test(NAME cli:ch06:finetune:compare-with-pytorch
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/classify_run.sh ${BIN} ${PYTHON_TORCH} ${CMAKE_CURRENT_BINARY_DIR}/classify-run
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch06:finetune:compare-with-pytorch PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
add_test(NAME cli:ch06:lora:compare-with-pytorch
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/lora_run.sh ${BIN} ${PYTHON_TORCH} ${CMAKE_CURRENT_BINARY_DIR}/lora-run
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:ch06:lora:compare-with-pytorch PROPERTIES LABELS cli SKIP_RETURN_CODE 77)

set(CLASSIFY --train-config ${CFG}/train-classify-quick.json --out-dir ${CMAKE_CURRENT_BINARY_DIR}/classify-bad)
llm_cli_test(ch06-03:trainable-unknown 2 "--trainable must be last-block, head or all, got 'some'"
             COMMAND ch06-03-classifier --trainable some)
llm_cli_test(ch06-03:one-class 2 "--num-classes must be at least 2, got 1" COMMAND ch06-03-classifier --num-classes 1)
llm_cli_test(ch06-04:pretrain-config 2 "this step classifies: the run's task must be \"classify\", got \"pretrain\""
             COMMAND ch06-04-finetune --train-config ${CFG}/train-quick.json
                     --out-dir ${CMAKE_CURRENT_BINARY_DIR}/classify-bad)
llm_cli_test(ch06-04:text-longer-than-context 1
             "long-text/train.csv': the longest training text has 100 tokens, more than the model's context_length 64. set max_length"
             NEEDS ${GPT2} COMMAND ch06-04-finetune ${CLASSIFY} --max-length 0 --data ${SPAM}/long-text)
llm_cli_test(ch06-04:label-beyond-classes 1 "three-classes/train.csv': label 2, but the head has num_classes 2"
             NEEDS ${GPT2} COMMAND ch06-04-finetune ${CLASSIFY} --data ${SPAM}/three-classes)
llm_cli_test(ch06-04:no-label-column 1 "no-label-column/train.csv': no Label column"
             NEEDS ${GPT2} COMMAND ch06-04-finetune ${CLASSIFY} --data ${SPAM}/no-label-column)
llm_cli_test(ch06-04:bad-trainable 2 "trainable must be \"last-block\", \"head\" or \"all\", got \"most\""
             COMMAND ch06-04-finetune ${CLASSIFY} --trainable most)
llm_cli_test(ch06-04:bad-class-token 2 "class_token must be \"last\" or \"first\", got \"middle\""
             COMMAND ch06-04-finetune ${CLASSIFY} --class-token middle)
llm_cli_test(ch05-02:bad-task 2 "task must be \"pretrain\", \"classify\", \"instruct\" or \"dpo\", got \"regress\""
             COMMAND ch05-02-train ${CLASSIFY} --task regress)
llm_cli_test(ch06-04:negative-lora-rank 2 "lora_rank must be >= 0 \\(0: no LoRA\\), got -1"
             COMMAND ch06-04-finetune ${CLASSIFY} --lora-rank -1)
llm_cli_test(ch06-04:zero-lora-alpha 2 "lora_alpha must be positive, got 0"
             COMMAND ch06-04-finetune ${CLASSIFY} --lora-rank 4 --lora-alpha 0)
llm_cli_test(ch05-02:lora-pretraining 2 "lora_rank must be 0 when pretraining \\(LoRA finetunes: task classify or instruct\\), got 4"
             COMMAND ch05-02-train --train-config ${CFG}/train-quick.json --lora-rank 4
                     --out-dir ${CMAKE_CURRENT_BINARY_DIR}/classify-bad)
llm_cli_test(ch06-05:no-classifier 2 "which classifier. --checkpoint FILE" COMMAND ch06-05-classify)
llm_cli_test(ch06-05:no-text-in-file 1 "empty.txt': is empty" COMMAND ch06-05-classify --data ${FIXTURES}/empty.txt)
llm_cli_test(ch06-05:language-model-state-dict 1 "micro-state-dict.pt': 'out_head.weight' has shape \\[100, 16\\], expected \\[2, 16\\]"
             COMMAND ch06-05-classify --load-state-dict ${PROJECT_SOURCE_DIR}/tests/golden/micro-state-dict.pt
             --config ${FIXTURES}/configs/micro.json)


# scripts/fetch-data.sh does not try again, for a day, a source it could not reach.
add_test(NAME cli:fetch-data:unreachable-not-retried
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fetch_unreachable.sh ${RUNS}/fetch-unreachable
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:fetch-data:unreachable-not-retried PROPERTIES LABELS "cli;robustness" TIMEOUT 120
                     REQUIRED_FILES ${PROJECT_SOURCE_DIR}/scripts/fetch-data.sh)
