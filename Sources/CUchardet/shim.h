#ifndef BOOKRULE_CUCHARDET_SHIM_H
#define BOOKRULE_CUCHARDET_SHIM_H

// libuchardet (Mozilla's universal charset detector), to guess the encoding of pages that declare none.
// The whole C API is six plain functions; nothing needs wrapping.

#include <uchardet/uchardet.h>

#endif
