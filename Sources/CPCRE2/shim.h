// PCRE2 for LinkParseRouter: the 8-bit library. Swift cannot see the width-generic macros (`pcre2_compile`),
// so callers use the `*_8` functions and types directly.
#ifndef LINKPARSE_CPCRE2_SHIM_H
#define LINKPARSE_CPCRE2_SHIM_H
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif
