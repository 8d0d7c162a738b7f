# Helpers shared by the chapters and the tests: one place that says how a target is
# built, so every executable reuses the library's precompiled torch header.

set(LLM_WARNINGS -Wall -Wextra -Wno-unused-parameter)

# llm_add_chapter(<source>) builds chapters/chNN-<topic>/MM-<step>.cpp as chNN-MM-<step>.
function(llm_add_chapter source)
  get_filename_component(step "${source}" NAME_WE)
  get_filename_component(folder "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  string(REGEX MATCH "^ch[0-9][0-9]" chapter "${folder}")
  set(name "${chapter}-${step}")
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE llm)
  target_compile_options(${name} PRIVATE ${LLM_WARNINGS})
  target_precompile_headers(${name} REUSE_FROM llm)
  set_property(GLOBAL APPEND PROPERTY LLM_CHAPTERS ${name})
  install(TARGETS ${name} RUNTIME DESTINATION bin)
endfunction()

# llm_add_tool(<source>) builds tools/<name>.cpp as <name>.
function(llm_add_tool source)
  get_filename_component(name "${source}" NAME_WE)
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE llm)
  target_compile_options(${name} PRIVATE ${LLM_WARNINGS})
  target_precompile_headers(${name} REUSE_FROM llm)
  install(TARGETS ${name} RUNTIME DESTINATION bin)
endfunction()

# llm_add_test(<area>) builds tests/test-<area>.cpp and registers each Catch2 test
# case with ctest, labelled "unit". A test prints "LLM-SKIP:" when its input data is
# missing, and ctest then reports it as skipped, never as passed.
function(llm_add_test area)
  set(name test-${area})
  add_executable(${name} ${name}.cpp)
  target_link_libraries(${name} PRIVATE llm llm_test_main)
  target_compile_options(${name} PRIVATE ${LLM_WARNINGS})
  target_precompile_headers(${name} REUSE_FROM llm)
  catch_discover_tests(${name}
    TEST_PREFIX "${area}: "
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS unit SKIP_REGULAR_EXPRESSION "LLM-SKIP:")
endfunction()
