// The machine's own libsqlite3 (Debian's libsqlite3-dev): a C library of the operating system, not a package.
#include <sqlite3.h>
