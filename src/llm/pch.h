// The one precompiled header: the library, the chapters and the tests reuse it.
#pragma once
#include <torch/torch.h>
