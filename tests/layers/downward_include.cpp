// The control for upward_include.cpp: compiled with the same view of src/ (that of
// src/llm/io), it includes only headers of io and of util below it, and must build.
#include "llm/io/csv.h"
#include "llm/util/error.h"

int downward_include_probe() { return 0; }
