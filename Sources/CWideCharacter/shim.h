#ifndef BOOKRULE_CWIDECHARACTER_SHIM_H
#define BOOKRULE_CWIDECHARACTER_SHIM_H

#include <wchar.h>

/// POSIX's `wcwidth` (in the C library, libc.so): glibc declares it only under `_XOPEN_SOURCE`, which Swift's
/// Glibc module is not built with, so it is declared here.
int wcwidth(wchar_t character);

#endif
