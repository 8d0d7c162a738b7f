# Helpers shared by the library, the chapters, the tools, the benchmarks and the
# tests: one place that says how a target is built, so every target reuses the one
# precompiled torch header.

set(LLM_WARNINGS -Wall -Wextra -Wno-unused-parameter)

# What every target of the project links with.
add_library(llm_deps INTERFACE)
target_link_libraries(llm_deps INTERFACE ${TORCH_LIBRARIES} spdlog::spdlog nlohmann_json::nlohmann_json)
# cxxopts parses flags with its own code instead of std::regex: with regex, its header
# defines six std::regex objects at namespace scope, so every file that includes it
# (all of them, through the precompiled header) compiled std::regex's engine and every
# executable built the regexes at start (a file's compile took 3 s longer).
target_compile_definitions(llm_deps INTERFACE CXXOPTS_NO_REGEX)
# ... and, but for the library's own layers, every header of src/llm. Each layer sees
# only the headers below it (llm_add_layer in src/llm/CMakeLists.txt).
add_library(llm_base INTERFACE)
target_include_directories(llm_base INTERFACE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(llm_base INTERFACE llm_deps)

# llm_reuse_pch(<target>): compile <target> with the precompiled <torch/torch.h> of
# src/llm/pch.h.
function(llm_reuse_pch target)
  target_precompile_headers(${target} REUSE_FROM llm_pch)
endfunction()

# llm_add_executable(<name> <source>... [INSTALL] [LIBRARIES <lib>...]) builds an
# executable into build/bin/<name>, linked with the library `llm` (and LIBRARIES);
# INSTALL also puts it in the install's bin/.
function(llm_add_executable name)
  cmake_parse_arguments(ARG "INSTALL" "" "LIBRARIES" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE llm ${ARG_LIBRARIES})
  target_compile_options(${name} PRIVATE ${LLM_WARNINGS})
  llm_reuse_pch(${name})
  if(ARG_INSTALL)
    install(TARGETS ${name} RUNTIME DESTINATION bin)
  endif()
endfunction()

# llm_add_chapter(<source>) builds chapters/chNN-<topic>/MM-<step>.cpp as chNN-MM-<step>.
function(llm_add_chapter source)
  get_filename_component(step "${source}" NAME_WE)
  get_filename_component(folder "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  string(REGEX MATCH "^ch[0-9][0-9]" chapter "${folder}")
  set(name "${chapter}-${step}")
  llm_add_executable(${name} ${source} INSTALL)
  set_property(GLOBAL APPEND PROPERTY LLM_CHAPTERS ${name})
endfunction()

# llm_add_tool(<source>) builds tools/<name>.cpp as <name>.
function(llm_add_tool source)
  get_filename_component(name "${source}" NAME_WE)
  llm_add_executable(${name} ${source} INSTALL)
  set_property(GLOBAL APPEND PROPERTY LLM_TOOLS ${name})
endfunction()

# llm_add_test(<area>) builds tests/test-<area>.cpp and registers each Catch2 test
# case with ctest, labelled "unit". A test case whose input data is missing exits with
# 77 before its first check (tests/helpers.h: data_or_skip), and ctest reports it as
# skipped; output cannot turn a failure into a skip.
function(llm_add_test area)
  set(name test-${area})
  llm_add_executable(${name} ${name}.cpp LIBRARIES llm_test_main)
  catch_discover_tests(${name}
    TEST_PREFIX "${area}: "
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
endfunction()
