#ifndef LINKPARSE_CBYTESCAN_H
#define LINKPARSE_CBYTESCAN_H

// Byte-class masks of sixteen bytes with SSE2 (x86-64 always has it): a compare per byte class and one
// `pmovmskb`. Swift cannot name `pmovmskb`, so the Swift callers use these on x86-64 (`#if arch(x86_64)`) and
// their own word arithmetic elsewhere.
// Static inline: the clang importer compiles them into the calling Swift module, where they are inlined.

#include <stdint.h>
#include <stddef.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>

/// Bit i set when byte i of the sixteen at `p` equals `a`, `b`, `c` or `d` (`p` must be readable for 16
/// bytes). Pass a byte twice to look for fewer.
static inline uint32_t linkparse_mask16_any4(const uint8_t *p, uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  __m128i v = _mm_loadu_si128((const __m128i *)p);
  __m128i x = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)a)), _mm_cmpeq_epi8(v, _mm_set1_epi8((char)b)));
  __m128i y = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)c)), _mm_cmpeq_epi8(v, _mm_set1_epi8((char)d)));
  return (uint32_t)_mm_movemask_epi8(_mm_or_si128(x, y));
}

/// Bit i set when byte i of the sixteen at `p` is one a JSON string reader must look at: `"`, backslash, a control
/// below 0x20, or a byte from 0x80 (to validate its UTF-8). `p` must be readable for 16 bytes.
static inline uint32_t linkparse_mask16_json_string(const uint8_t *p) {
  __m128i v = _mm_loadu_si128((const __m128i *)p);
  // A signed compare: bytes from 0x80 are negative, so "below 0x20" takes them too.
  __m128i low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
  __m128i special = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
  return (uint32_t)_mm_movemask_epi8(_mm_or_si128(low, special));
}

#endif

/// Asks the CPU to fetch the cache lines of `p[0..<count]` (at most the first 1 KiB) into the cache, so that
/// the misses of a cold input overlap rather than come one after another as a scan reaches each line.
static inline void linkparse_prefetch(const void *p, intptr_t count) {
  const char *start = (const char *)p;
  if (count > 1024) count = 1024;
  for (intptr_t k = 0; k < count; k += 64) __builtin_prefetch(start + k);
  if (count > 0) __builtin_prefetch(start + count - 1);
}

/// One name of `linkparse_callback_names`: its length (0 for an empty slot), its key (the Swift
/// `CallbackFields.Key` raw value) and its bytes (not NUL-terminated when 30 long; zero-padded otherwise).
typedef struct {
  uint8_t length;
  int8_t key;
  char name[30];
} linkparse_callback_name;

/// The callback parameter names, each in the slot `linkparse_callback_slot` gives it (no two share one).
extern const linkparse_callback_name linkparse_callback_names[64];

/// The slot of a name of `n >= 3` bytes at `p`: its first two bytes and its length, mixed (`scope` and
/// `state` share their first and last bytes and their length, so the last byte cannot tell them apart). The
/// multipliers were searched for by Scripts/callback-name-table.py: the 24 names fall in distinct slots.
static inline unsigned linkparse_callback_slot(const uint8_t *p, size_t n) {
  return (2u * (unsigned)p[0] + 4u * (unsigned)p[1] + (unsigned)n) & 63u;
}

static inline uint64_t linkparse_load64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t linkparse_load32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint16_t linkparse_load16(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }

/// The key (the Swift `CallbackFields.Key` raw value) of the parameter name `p[0..<n]`, or -1 for another
/// name. One slot, then the bytes compared as their first and last words (overlapping, never outside
/// `p[0..<n]`), and the middle of names longer than sixteen bytes. No indirect branch: the length `switch`
/// this replaces compiled to a jump table that names of random lengths kept mispredicting.
static inline int linkparse_callback_key(const uint8_t *p, size_t n) {
  if (n < 3 || n > 30) return -1;
  const linkparse_callback_name *e = &linkparse_callback_names[linkparse_callback_slot(p, n)];
  if (e->length != n) return -1;
  const char *q = e->name;
  if (n >= 8) {
    if (linkparse_load64(p) != linkparse_load64(q) || linkparse_load64(p + n - 8) != linkparse_load64(q + n - 8))
      return -1;
    if (n > 16 && memcmp(p + 8, q + 8, n - 16) != 0) return -1;
  } else if (n >= 4) {
    if (linkparse_load32(p) != linkparse_load32(q) || linkparse_load32(p + n - 4) != linkparse_load32(q + n - 4))
      return -1;
  } else if (linkparse_load16(p) != linkparse_load16(q) || p[2] != (uint8_t)q[2]) {
    return -1;
  }
  return e->key;
}

#endif
