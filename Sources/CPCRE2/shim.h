#ifndef BOOKRULE_CPCRE2_SHIM_H
#define BOOKRULE_CPCRE2_SHIM_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/// Cast macros do not import into Swift; these expose the values they stand for.
static inline size_t bookrule_pcre2_unset(void) { return PCRE2_UNSET; }
static inline size_t bookrule_pcre2_zero_terminated(void) { return PCRE2_ZERO_TERMINATED; }

#endif
