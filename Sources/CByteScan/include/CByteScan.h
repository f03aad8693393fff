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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// 1 when this CPU has AVX2 (set once, when the program is loaded), else 0: whether the `_avx2` functions below
/// may be called (``linkparse_form_bitmap`` reads it itself).
extern int linkparse_has_avx2;

/// `linkparse_has_avx2`, for Swift (which refuses to read a mutable C global from concurrent code).
static inline int linkparse_cpu_has_avx2(void) { return linkparse_has_avx2; }

/// The index of the first byte of `base[start..<end]` in the URL Standard's query percent-encode set (C0
/// controls, space, `"`, `#`, `<`, `>`, DEL, non-ASCII) or, when `special` is non-zero, the special-query set (the
/// same and `'`); `end` when there is none. Thirty-two bytes a step (AVX2): call only when `linkparse_has_avx2`.
/// `base` must be readable for `0..<end`.
intptr_t linkparse_query_end_avx2(const uint8_t *base, intptr_t start, intptr_t end, int special);

/// The index of the first byte of `base[start..<end]` that is neither a lower-case ASCII letter, a digit, nor
/// `a`, `b` or `c`; `end` when there is none. Thirty-two bytes a step (AVX2): call only when
/// `linkparse_has_avx2`. `base` must be readable for `0..<end`.
intptr_t linkparse_alnum_end_avx2(const uint8_t *base, intptr_t start, intptr_t end, uint8_t a, uint8_t b, uint8_t c);

/// Marks the bytes that split or escape form-encoded text (`&`, `=`, `%`, `+`) of `base[start..<end]`, 64 to a
/// word: bit k of `words[j]` is set when byte `start + 64 j + k` is one; the bits past `end` are clear. `words`
/// holds `(end - start + 63) / 64` words; `base` must be readable for `0..<end`. Thirty-two bytes a step with
/// AVX2 when the CPU has it, sixteen otherwise: one call for a whole query, instead of a mask and a branch every
/// sixteen bytes.
void linkparse_form_bitmap(const uint8_t *base, intptr_t start, intptr_t end, uint64_t *words);

/// ``linkparse_form_bitmap`` with SSE2 only, whatever the CPU has (what it calls without AVX2; for tests).
void linkparse_form_bitmap_sse2(const uint8_t *base, intptr_t start, intptr_t end, uint64_t *words);
#endif

/// Asks the CPU to fetch the cache lines of `p[0..<count]` (at most the first 1 KiB) into the cache, so that
/// the misses of a cold input overlap rather than come one after another as a scan reaches each line.
static inline void linkparse_prefetch(const void *p, intptr_t count) {
  const char *start = (const char *)p;
  if (count > 1024) count = 1024;
  for (intptr_t k = 0; k < count; k += 64) __builtin_prefetch(start + k);
  if (count > 0) __builtin_prefetch(start + count - 1);
}

#endif
