// The one precompiled header: the library, the chapters and the tests reuse it. It
// holds LibTorch's header and the libraries' headers that most files include (every
// step includes cli.h, and with it cxxopts), so that their templates are parsed and
// instantiated once (docs/testing.md). Each file still includes what it uses, and
// tests/lint-layers.sh checks those includes: only src/llm/cli includes cxxopts.
#pragma once
#include <cxxopts.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <filesystem>
