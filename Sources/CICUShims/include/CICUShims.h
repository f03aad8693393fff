#ifndef LINKPARSE_CICUSHIMS_H
#define LINKPARSE_CICUSHIMS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Result codes of `linkparse_idna_to_ascii`.
enum {
  LINKPARSE_IDNA_OK = 0,
  /// The domain is not valid under UTS #46 with the URL Standard's options (the `errors` bits say why).
  LINKPARSE_IDNA_INVALID = 1,
  /// `dest` was too small; `*outLength` holds the length needed.
  LINKPARSE_IDNA_BUFFER_TOO_SMALL = 2,
  /// ICU could not be initialised or failed internally.
  LINKPARSE_IDNA_INTERNAL_ERROR = 3,
};

/// UTS #46 ToASCII as the URL Standard's "domain to ASCII" asks for it: CheckHyphens=false,
/// CheckBidi=true, CheckJoiners=true, UseSTD3ASCIIRules=false, Transitional_Processing=false,
/// VerifyDnsLength=false.
///
/// `src` is UTF-8 (`srcLength` bytes); the ASCII result is written to `dest` (not NUL-terminated) and its
/// length to `*outLength`. `*errors` receives ICU's `UIDNA_ERROR_*` bits that count as failures under those
/// options (the DNS-length and hyphen bits are removed).
int linkparse_idna_to_ascii(const char *src, int32_t srcLength, char *dest, int32_t destCapacity,
                            int32_t *outLength, uint32_t *errors);

/// The Unicode version of the ICU data linked in, as "major.minor" packed in an int (15.0 -> 1500).
int linkparse_icu_unicode_version(void);

#ifdef __cplusplus
}
#endif

#endif
