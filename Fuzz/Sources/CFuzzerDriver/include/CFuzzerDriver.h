// libFuzzer's driver entry point (compiler-rt, FuzzerInterface.h), for targets that provide their own main.
#ifndef LINKPARSE_CFUZZERDRIVER_H
#define LINKPARSE_CFUZZERDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer with the process's arguments and `callback` as the fuzz target; returns its exit status.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// Whether `marker` occurs in `data` (memmem: the sanitizer's interceptor tells libFuzzer what was looked for).
int linkparse_fuzz_contains(const uint8_t *data, size_t size, const uint8_t *marker, size_t length);

#endif
