// The parts of LibTorch's C++ API this project uses: what <torch/torch.h> holds, less
// the modules it never builds (convolutions, recurrent layers, transformers, pooling,
// ...), FFT, linear algebra, JIT and the sparse, nested and special namespaces.
// <torch/torch.h> declares every module of torch::nn, and each file that included it
// instantiated and compiled their virtual functions (clone, reset, pretty_print) again:
// a lesson step compiled in 6.2 s with it and 4.7 s with this (docs/testing.md).
#pragma once
#include <torch/autograd.h>
#include <torch/cuda.h>
#include <torch/data.h>
#include <torch/nn/functional.h>
#include <torch/nn/init.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/modules/container/moduledict.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/utils.h>
#include <torch/optim.h>
#include <torch/serialize.h>
#include <torch/types.h>
#include <torch/utils.h>
