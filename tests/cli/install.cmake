# The installed copy (label install): cmake --install into a folder outside the source
# tree, moved elsewhere, then a lesson step and a short training run from it, with
# the source tree hidden (install.sh). The same losses as PyTorch's come out.
string(MD5 build_hash "${PROJECT_BINARY_DIR}")
string(SUBSTRING "${build_hash}" 0 12 build_hash)
set(INSTALLED /tmp/libtorch-llm-install-test-${build_hash})
set(INSTALL_SH ${CMAKE_CURRENT_SOURCE_DIR}/install.sh)
add_test(NAME install:setup COMMAND ${INSTALL_SH} setup ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${INSTALLED})
set_tests_properties(install:setup PROPERTIES LABELS install FIXTURES_SETUP installed-copy)
llm_cleanup(installed-copy install ${INSTALLED})
function(llm_installed_test name code regex)
  cmake_parse_arguments(ARG "" "" "NEEDS;COMMAND" ${ARGN})
  llm_needs(needs ${ARG_NEEDS})
  add_test(NAME install:${name}
           COMMAND ${EXPECT} ${code} ${regex} ${needs} -- ${INSTALL_SH} run ${PROJECT_SOURCE_DIR} ${INSTALLED} ${ARG_COMMAND}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(install:${name} PROPERTIES LABELS install FIXTURES_REQUIRED installed-copy
                       SKIP_RETURN_CODE 77)
endfunction()
llm_installed_test(lesson-step 0 "^4690$" COMMAND ch02-01-simple-tokenizer)
llm_installed_test(training 0 "Ep 1 \\(Step 000005\\): Train loss 10.988, Val loss 10.949" NEEDS ${GPT2}
                   COMMAND ch05-02-train --config tiny.json --max-steps 6 --out-dir run --overwrite)
# (--help wraps the default's path at 46 columns; the part before ".json" stays on one line.)
llm_installed_test(help-names-no-build-path 0 "moved/share/libtorch-llm/configs/train-lesson|ved/share/libtorch-llm/configs/train-lesson"
                   COMMAND ch05-02-train --help)
