// Nothing to compile: the header declares a function of libFuzzer's runtime (linked by -sanitize=fuzzer).
#include "CFuzzerDriver.h"
