#ifndef BOOKRULE_CSQLITE_SHIM_H
#define BOOKRULE_CSQLITE_SHIM_H

#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a cast macro (`(sqlite3_destructor_type)-1`), which does not import into Swift. Passing
/// it to a `sqlite3_bind_*` call makes SQLite copy the bytes before the call returns, so Swift's buffer may go.
static inline sqlite3_destructor_type bookrule_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
