#ifndef BOOKRULE_CSQLITE_SHIM_H
#define BOOKRULE_CSQLITE_SHIM_H

#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a cast macro (`(sqlite3_destructor_type)-1`), which does not import into Swift. Passing
/// it to a `sqlite3_bind_*` call makes SQLite copy the bytes before the call returns, so Swift's buffer may go.
static inline sqlite3_destructor_type bookrule_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// Turns off SQLite's memory statistics, which make every allocation take one process-wide mutex (the server's
/// threads all read the library at once). `sqlite3_config` is variadic, which Swift cannot call; it only works
/// before SQLite is initialized (SQLITE_MISUSE after, which changes nothing).
static inline int bookrule_sqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

#endif
