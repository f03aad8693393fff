// The header declares a function of libFuzzer's runtime (linked by -sanitize=fuzzer); this file defines the
// planted crash's search (memmem is a GNU extension Swift's Glibc module does not show).
#define _GNU_SOURCE
#include <string.h>
#include "CFuzzerDriver.h"

int linkparse_fuzz_contains(const uint8_t *data, size_t size, const uint8_t *marker, size_t length) {
  return memmem(data, size, marker, length) != NULL;
}
