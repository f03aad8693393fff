#include "CICUShims.h"

#include <pthread.h>
#include <unicode/uidna.h>
#include <unicode/uchar.h>
#include <unicode/uversion.h>

static UIDNA *shared_idna = NULL;
static pthread_once_t shared_idna_once = PTHREAD_ONCE_INIT;

static void open_shared_idna(void) {
  UErrorCode status = U_ZERO_ERROR;
  // UTS #46 with the URL Standard's flags. Not UIDNA_USE_STD3_RULES; not UIDNA_CHECK_CONTEXTO.
  UIDNA *idna = uidna_openUTS46(UIDNA_CHECK_BIDI | UIDNA_CHECK_CONTEXTJ | UIDNA_NONTRANSITIONAL_TO_ASCII |
                                    UIDNA_NONTRANSITIONAL_TO_UNICODE,
                                &status);
  if (U_SUCCESS(status)) {
    shared_idna = idna;
  }
}

int linkparse_idna_to_ascii(const char *src, int32_t srcLength, char *dest, int32_t destCapacity,
                            int32_t *outLength, uint32_t *errors) {
  pthread_once(&shared_idna_once, open_shared_idna);
  *outLength = 0;
  *errors = 0;
  if (shared_idna == NULL) {
    return LINKPARSE_IDNA_INTERNAL_ERROR;
  }
  UErrorCode status = U_ZERO_ERROR;
  UIDNAInfo info = UIDNA_INFO_INITIALIZER;
  // The UIDNA object is immutable after opening, so concurrent use from several threads is safe.
  int32_t length = uidna_nameToASCII_UTF8(shared_idna, src, srcLength, dest, destCapacity, &info, &status);
  *outLength = length;
  if (status == U_BUFFER_OVERFLOW_ERROR) {
    return LINKPARSE_IDNA_BUFFER_TOO_SMALL;
  }
  if (U_FAILURE(status)) {
    return LINKPARSE_IDNA_INTERNAL_ERROR;
  }
  uint32_t ignored = UIDNA_ERROR_EMPTY_LABEL | UIDNA_ERROR_LABEL_TOO_LONG | UIDNA_ERROR_DOMAIN_NAME_TOO_LONG |
                     UIDNA_ERROR_LEADING_HYPHEN | UIDNA_ERROR_TRAILING_HYPHEN | UIDNA_ERROR_HYPHEN_3_4;
  uint32_t remaining = info.errors & ~ignored;
  *errors = remaining;
  return remaining == 0 ? LINKPARSE_IDNA_OK : LINKPARSE_IDNA_INVALID;
}

int linkparse_icu_unicode_version(void) {
  UVersionInfo version;
  u_getUnicodeVersion(version);
  return version[0] * 100 + version[1];
}
