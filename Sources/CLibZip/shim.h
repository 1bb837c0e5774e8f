#ifndef BOOKRULE_CLIBZIP_SHIM_H
#define BOOKRULE_CLIBZIP_SHIM_H

#include <stdio.h>
#include <zip.h>

// Helpers for what Swift cannot use directly from <zip.h>: macros that expand to other macros or casts, and
// the zip_error_t dance (a struct whose message is owned by the struct and freed by zip_error_fini).

/// ZIP_EXTRA_FIELD_ALL (defined through ZIP_UINT16_MAX): every extra field of an entry.
static inline zip_uint16_t bookrule_zip_extra_field_all(void) {
    return ZIP_EXTRA_FIELD_ALL;
}

/// Writes libzip's message for an error code (a ZIP_ER_* value and the errno it carried, if any) into
/// `buffer`, always NUL-terminated.
static inline void bookrule_zip_error_message(int code, char *buffer, size_t size) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    snprintf(buffer, size, "%s", zip_error_strerror(&error));
    zip_error_fini(&error);
}

#endif
