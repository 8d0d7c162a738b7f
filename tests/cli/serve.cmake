# The server (tools/serve.cpp): both APIs over 127.0.0.1 against `generate`, limits,
# a client gone, a full queue, Ctrl-C.
add_test(NAME cli:serve:apis-and-limits
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/serve_run.sh ${BIN} ${PYTHON_TORCH} ${CMAKE_CURRENT_BINARY_DIR}/serve
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli:serve:apis-and-limits PROPERTIES LABELS "cli;robustness" TIMEOUT 300 SKIP_RETURN_CODE 77)

# Its flags: one line and exit 2.
llm_cli_test(serve:classes-without-state-dict 2 "--num-classes goes with --load-state-dict FILE" COMMAND serve --num-classes 2)
llm_cli_test(serve:one-class 2 "--num-classes must be at least 2, got 1"
             COMMAND serve --num-classes 1 --load-state-dict x.pth --config configs/tiny.json)
llm_cli_test(serve:max-length-of-checkpoint 2 "--max-length goes with --num-classes" COMMAND serve --max-length 64)
llm_cli_test(serve:bad-port 2 "--port must be 0 to 65535, got 70000" COMMAND serve --port 70000)
llm_cli_test(serve:bad-chat-format 2 "--chat-format must be" COMMAND serve --chat-format chatml)
llm_cli_test(serve:bad-temperature 2 "--temperature or --top-k: temperature must be" COMMAND serve --temperature -1)
llm_cli_test(serve:tokens-over-limit 2 "--max-new-tokens \\(500\\) is more than --max-tokens-limit \\(100\\)"
             COMMAND serve --max-new-tokens 500 --max-tokens-limit 100)

# The chat page in headless Chromium.
add_test(NAME browser:serve:chat-page
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/chat_page.sh ${BIN} ${PYTHON_TORCH} ${CMAKE_CURRENT_BINARY_DIR}/chat-page
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(browser:serve:chat-page PROPERTIES LABELS "browser" TIMEOUT 300 SKIP_RETURN_CODE 77)
