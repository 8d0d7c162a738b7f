// Compiled as if it were part of src/llm/util, the lowest layer, this file includes a
// header of src/llm/train, a layer above it. The build must refuse it: the test
// layers:upward-include-refused (tests/layers/CMakeLists.txt) passes only when the
// compiler cannot find that header.
#include "llm/train/trainer.h"

int upward_include_probe() { return 0; }
