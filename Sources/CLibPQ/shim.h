// The machine's own libpq (Debian's libpq-dev): a C library of the operating system, not a package.
#include <postgresql/libpq-fe.h>
