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

/// Lanes of the 32 bytes `v` in the query percent-encode set, and at `quote` (`'` for special URLs; `"`,
/// already in the set, otherwise). Outside the visible range 0x21...0x7E: `v + 0x5F` (wrapping) maps that range
/// to -128...-35 as signed bytes, so "greater than -35" is one compare. `"`/`#` and `<`/`>` differ in one bit
/// each, masked away.
__attribute__((target("avx2"))) static inline __m256i linkparse_query_lanes(__m256i v, __m256i quote) {
  __m256i outside = _mm256_cmpgt_epi8(_mm256_add_epi8(v, _mm256_set1_epi8(0x5F)), _mm256_set1_epi8(-35));
  __m256i quoteOrHash = _mm256_cmpeq_epi8(_mm256_and_si256(v, _mm256_set1_epi8((char)0xFE)), _mm256_set1_epi8(0x22));
  __m256i angle = _mm256_cmpeq_epi8(_mm256_and_si256(v, _mm256_set1_epi8((char)0xFD)), _mm256_set1_epi8(0x3C));
  return _mm256_or_si256(_mm256_or_si256(outside, quoteOrHash), _mm256_or_si256(angle, _mm256_cmpeq_epi8(v, quote)));
}

__attribute__((target("avx2"))) intptr_t linkparse_query_end_avx2(
    const uint8_t *base, intptr_t start, intptr_t end, int special) {
  const __m256i quote = _mm256_set1_epi8(special ? 0x27 : 0x22);
  intptr_t i = start;
  while (i + 32 <= end) {
    uint32_t m = (uint32_t)_mm256_movemask_epi8(linkparse_query_lanes(_mm256_loadu_si256((const __m256i *)(base + i)), quote));
    if (m != 0) return i + __builtin_ctz(m);
    i += 32;
  }
  if (i >= end) return end;
  if (end >= 32) {
    // The last 32 bytes of the input, the lanes already scanned shifted out (0 < i - last < 32).
    intptr_t last = end - 32;
    uint32_t m = (uint32_t)_mm256_movemask_epi8(linkparse_query_lanes(_mm256_loadu_si256((const __m256i *)(base + last)), quote));
    m >>= (unsigned)(i - last);
    return m != 0 ? i + __builtin_ctz(m) : end;
  }
  for (; i < end; i++) {
    uint8_t b = base[i];
    if ((uint8_t)(b - 0x21) >= 0x5E || b == '"' || b == '#' || b == '<' || b == '>' || (special && b == '\'')) return i;
  }
  return end;
}

/// Lanes of the 32 bytes `v` that are lower-case letters, digits, `a`, `b` or `c`. A range test as one signed
/// compare: adding 0x80 minus the range's first byte maps the range to the lowest signed values.
__attribute__((target("avx2"))) static inline __m256i linkparse_alnum_lanes(
    __m256i v, __m256i a, __m256i b, __m256i c) {
  __m256i letter = _mm256_cmpgt_epi8(_mm256_set1_epi8(-128 + 26), _mm256_add_epi8(v, _mm256_set1_epi8(0x1F)));
  __m256i digit = _mm256_cmpgt_epi8(_mm256_set1_epi8(-128 + 10), _mm256_add_epi8(v, _mm256_set1_epi8(0x50)));
  __m256i extra = _mm256_or_si256(_mm256_cmpeq_epi8(v, a), _mm256_or_si256(_mm256_cmpeq_epi8(v, b), _mm256_cmpeq_epi8(v, c)));
  return _mm256_or_si256(_mm256_or_si256(letter, digit), extra);
}

__attribute__((target("avx2"))) intptr_t linkparse_alnum_end_avx2(
    const uint8_t *base, intptr_t start, intptr_t end, uint8_t a, uint8_t b, uint8_t c) {
  const __m256i va = _mm256_set1_epi8((char)a), vb = _mm256_set1_epi8((char)b), vc = _mm256_set1_epi8((char)c);
  intptr_t i = start;
  while (i + 32 <= end) {
    uint32_t m = ~(uint32_t)_mm256_movemask_epi8(
      linkparse_alnum_lanes(_mm256_loadu_si256((const __m256i *)(base + i)), va, vb, vc));
    if (m != 0) return i + __builtin_ctz(m);
    i += 32;
  }
  if (i >= end) return end;
  if (end >= 32) {
    intptr_t last = end - 32;
    uint32_t m = ~(uint32_t)_mm256_movemask_epi8(
      linkparse_alnum_lanes(_mm256_loadu_si256((const __m256i *)(base + last)), va, vb, vc));
    m >>= (unsigned)(i - last);
    return m != 0 ? i + __builtin_ctz(m) : end;
  }
  for (; i < end; i++) {
    uint8_t x = base[i];
    if (!((uint8_t)(x - 0x61) < 26 || (uint8_t)(x - 0x30) < 10 || x == a || x == b || x == c)) return i;
  }
  return end;
}
#endif
