#ifndef BOOKRULE_COPENCC_SHIM_H
#define BOOKRULE_COPENCC_SHIM_H

// OpenCC's C API (traditional <-> simplified Chinese). The header is C++-aware; compiled as C it declares
// only the opencc_* functions.

#include <opencc/opencc.h>

/// opencc_open reports failure as (opencc_t)-1, not NULL; a cast Swift cannot express as a constant.
static inline int bookrule_opencc_is_error(opencc_t handle) {
    return handle == (opencc_t)-1 || handle == NULL;
}

#endif
