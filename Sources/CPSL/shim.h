#ifndef BOOKRULE_CPSL_SHIM_H
#define BOOKRULE_CPSL_SHIM_H

// libpsl (Public Suffix List), so a cookie jar can refuse Domain=co.uk and similar supercookies.

#include <libpsl.h>

#endif
