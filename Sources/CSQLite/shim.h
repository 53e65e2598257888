// The machine's own libsqlite3 (Debian's libsqlite3-dev): a C library of the operating system, not a package.
#include <sqlite3.h>

/// Turns SQLite's memory statistics off for the process (`SQLITE_CONFIG_MEMSTATUS`). With them on, as Debian's
/// build has them, every allocation and free inside SQLite takes a process-wide mutex to keep the counters of
/// `sqlite3_memory_used()`, which nothing here reads. Only takes effect before SQLite initialises (the first
/// `sqlite3_open_v2`); later it returns `SQLITE_MISUSE` and changes nothing. `sqlite3_config` is variadic, which
/// Swift cannot call, hence this wrapper.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
