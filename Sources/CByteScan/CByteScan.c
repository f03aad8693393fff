// The header's functions are static inline; the ones here need a target attribute (AVX2, chosen at run time on
// x86-64: the package builds for the baseline x86-64, which has only SSE2).
#include "CByteScan.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

int linkparse_has_avx2 = 0;

/// AVX2 is usable when the CPU has it (CPUID leaf 7, EBX bit 5) and the OS saves the YMM registers (OSXSAVE, and
/// XCR0's SSE and AVX state bits). With `cpuid` itself rather than `__builtin_cpu_supports`, which needs the
/// compiler runtime's CPU model in every link (static executables, fuzzers).
__attribute__((constructor)) static void linkparse_detect_cpu(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return;
  if (!(c & (1u << 27)) || !(c & (1u << 28))) return;  // OSXSAVE, AVX
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 6u) != 6u) return;  // XMM and YMM state enabled by the OS
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return;
  linkparse_has_avx2 = (b & (1u << 5)) ? 1 : 0;
}

/// A 32-byte mask function of the scanners below: bit k set when byte k of `v` is one the scan stops at, given
/// the scanner's three constant bytes, each broadcast to a vector (passed by value: they stay in registers).
typedef uint32_t (*linkparse_flagged_fn)(__m256i v, __m256i k0, __m256i k1, __m256i k2);

/// ``linkparse_first_flagged_avx2`` for `base[i..<end]` when the whole input is shorter than 32 bytes: through a
/// zero-padded copy with the lanes past `end` masked off. Rare, and out of line with five register arguments (the
/// constant bytes packed as `abc`: a | b << 8 | c << 16), reached by a tail call, so that the scanners keep no
/// stack frame on their usual path.
__attribute__((noinline, cold, target("avx2"))) static intptr_t linkparse_first_flagged_short(
    const uint8_t *base, intptr_t i, intptr_t end, linkparse_flagged_fn flagged, uint32_t abc) {
  uint8_t padded[32] = {0};
  memcpy(padded, base + i, (size_t)(end - i));  // end - i < 32
  __m256i v = _mm256_loadu_si256((const __m256i *)padded);
  uint32_t m = flagged(
    v, _mm256_set1_epi8((char)abc), _mm256_set1_epi8((char)(abc >> 8)), _mm256_set1_epi8((char)(abc >> 16)));
  m &= (1u << (unsigned)(end - i)) - 1u;
  return m != 0 ? i + __builtin_ctz(m) : end;
}

/// The index of the first byte of `base[start..<end]` that `flagged` marks (with the constant bytes `a`, `b`,
/// `c`), or `end`. Blocks of 32 from `start`, then the 32 bytes that end the input with the lanes already scanned
/// shifted out (or, in an input shorter than 32 bytes, ``linkparse_first_flagged_short``). Inlined into each
/// scanner with its `flagged`, so the call folds away.
__attribute__((always_inline, target("avx2"))) static inline intptr_t linkparse_first_flagged_avx2(
    const uint8_t *base, intptr_t start, intptr_t end, linkparse_flagged_fn flagged, uint8_t a, uint8_t b,
    uint8_t c) {
  if (end < 32) {
    return linkparse_first_flagged_short(base, start, end, flagged, (uint32_t)a | (uint32_t)b << 8 | (uint32_t)c << 16);
  }
  const __m256i k0 = _mm256_set1_epi8((char)a), k1 = _mm256_set1_epi8((char)b), k2 = _mm256_set1_epi8((char)c);
  intptr_t i = start;
  while (i + 32 <= end) {
    uint32_t m = flagged(_mm256_loadu_si256((const __m256i *)(base + i)), k0, k1, k2);
    if (m != 0) return i + __builtin_ctz(m);
    i += 32;
  }
  if (i >= end) return end;
  intptr_t last = end - 32;  // 0 < i - last < 32
  uint32_t m = flagged(_mm256_loadu_si256((const __m256i *)(base + last)), k0, k1, k2) >> (unsigned)(i - last);
  return m != 0 ? i + __builtin_ctz(m) : end;
}

/// Bytes of `v` in the query percent-encode set, and at `k0` (`'` for special URLs; `"`, already in the set,
/// otherwise; `k1` and `k2` are not used). Outside the visible range 0x21...0x7E: `v + 0x5F` (wrapping) maps that
/// range to -128...-35 as signed bytes, so "greater than -35" is one compare. `"`/`#` and `<`/`>` differ in one
/// bit each, masked away.
__attribute__((always_inline, target("avx2"))) static inline uint32_t linkparse_query_flagged(
    __m256i v, __m256i k0, __m256i k1, __m256i k2) {
  (void)k1;
  (void)k2;
  __m256i outside = _mm256_cmpgt_epi8(_mm256_add_epi8(v, _mm256_set1_epi8(0x5F)), _mm256_set1_epi8(-35));
  __m256i quoteOrHash = _mm256_cmpeq_epi8(_mm256_and_si256(v, _mm256_set1_epi8((char)0xFE)), _mm256_set1_epi8(0x22));
  __m256i angle = _mm256_cmpeq_epi8(_mm256_and_si256(v, _mm256_set1_epi8((char)0xFD)), _mm256_set1_epi8(0x3C));
  __m256i quote = _mm256_cmpeq_epi8(v, k0);
  __m256i lanes = _mm256_or_si256(_mm256_or_si256(outside, quoteOrHash), _mm256_or_si256(angle, quote));
  return (uint32_t)_mm256_movemask_epi8(lanes);
}

__attribute__((target("avx2"))) intptr_t linkparse_query_end_avx2(
    const uint8_t *base, intptr_t start, intptr_t end, int special) {
  uint8_t quote = special ? 0x27 : 0x22;
  return linkparse_first_flagged_avx2(base, start, end, linkparse_query_flagged, quote, quote, quote);
}

/// Bytes of `v` that are neither lower-case letters, digits, nor `k0`, `k1` or `k2`. A range test as one
/// signed compare: adding 0x80 minus the range's first byte maps the range to the lowest signed values.
__attribute__((always_inline, target("avx2"))) static inline uint32_t linkparse_alnum_flagged(
    __m256i v, __m256i k0, __m256i k1, __m256i k2) {
  __m256i letter = _mm256_cmpgt_epi8(_mm256_set1_epi8(-128 + 26), _mm256_add_epi8(v, _mm256_set1_epi8(0x1F)));
  __m256i digit = _mm256_cmpgt_epi8(_mm256_set1_epi8(-128 + 10), _mm256_add_epi8(v, _mm256_set1_epi8(0x50)));
  __m256i extra = _mm256_or_si256(
    _mm256_cmpeq_epi8(v, k0), _mm256_or_si256(_mm256_cmpeq_epi8(v, k1), _mm256_cmpeq_epi8(v, k2)));
  return ~(uint32_t)_mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(letter, digit), extra));
}

__attribute__((target("avx2"))) intptr_t linkparse_alnum_end_avx2(
    const uint8_t *base, intptr_t start, intptr_t end, uint8_t a, uint8_t b, uint8_t c) {
  return linkparse_first_flagged_avx2(base, start, end, linkparse_alnum_flagged, a, b, c);
}

/// The form-special bytes of the 64 at `p` (readable for 64), bit k for byte k: two 32-byte blocks.
__attribute__((always_inline, target("avx2"))) static inline uint64_t linkparse_form_word_avx2(const uint8_t *p) {
  const __m256i amp = _mm256_set1_epi8('&'), eq = _mm256_set1_epi8('='), pct = _mm256_set1_epi8('%'),
                plus = _mm256_set1_epi8('+');
  __m256i v0 = _mm256_loadu_si256((const __m256i *)p), v1 = _mm256_loadu_si256((const __m256i *)(p + 32));
  __m256i m0 = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v0, amp), _mm256_cmpeq_epi8(v0, eq)),
                               _mm256_or_si256(_mm256_cmpeq_epi8(v0, pct), _mm256_cmpeq_epi8(v0, plus)));
  __m256i m1 = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v1, amp), _mm256_cmpeq_epi8(v1, eq)),
                               _mm256_or_si256(_mm256_cmpeq_epi8(v1, pct), _mm256_cmpeq_epi8(v1, plus)));
  return (uint64_t)(uint32_t)_mm256_movemask_epi8(m0) | (uint64_t)(uint32_t)_mm256_movemask_epi8(m1) << 32;
}

/// The same with SSE2: four 16-byte blocks.
static inline uint64_t linkparse_form_word_sse2(const uint8_t *p) {
  uint64_t w = 0;
  for (int k = 0; k < 4; k++) w |= (uint64_t)linkparse_mask16_any4(p + 16 * k, '&', '=', '%', '+') << (16 * k);
  return w;
}

/// ``linkparse_form_bitmap`` with `word` for each 64 bytes: whole words from `start`, then the 64 bytes that end
/// the input shifted down to the ones left (or, in an input shorter than 64 bytes, a zero-padded copy).
#define LINKPARSE_FORM_BITMAP(word)                                                                     \
  intptr_t i = start;                                                                                   \
  uint64_t *out = words;                                                                                \
  for (; i + 64 <= end; i += 64) *out++ = word(base + i);                                               \
  if (i >= end) return;                                                                                 \
  intptr_t left = end - i; /* 1...63 */                                                                 \
  if (end >= 64) {                                                                                      \
    *out = word(base + end - 64) >> (unsigned)(64 - left);                                              \
  } else {                                                                                              \
    uint8_t padded[64] = {0};                                                                           \
    memcpy(padded, base + i, (size_t)left);                                                             \
    *out = word(padded) & ((1ull << (unsigned)left) - 1u);                                              \
  }

__attribute__((target("avx2"))) static void linkparse_form_bitmap_avx2(
    const uint8_t *base, intptr_t start, intptr_t end, uint64_t *words) {
  LINKPARSE_FORM_BITMAP(linkparse_form_word_avx2)
}

void linkparse_form_bitmap_sse2(const uint8_t *base, intptr_t start, intptr_t end, uint64_t *words) {
  LINKPARSE_FORM_BITMAP(linkparse_form_word_sse2)
}

void linkparse_form_bitmap(const uint8_t *base, intptr_t start, intptr_t end, uint64_t *words) {
  if (linkparse_has_avx2) {
    linkparse_form_bitmap_avx2(base, start, end, words);
  } else {
    linkparse_form_bitmap_sse2(base, start, end, words);
  }
}
#endif
