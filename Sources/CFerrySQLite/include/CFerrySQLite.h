#ifndef CFERRY_SQLITE_H
#define CFERRY_SQLITE_H
// Debian's libsqlite3-dev (SQLite 3.40 on Debian 12).
#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a macro casting -1 to a function pointer, which Swift cannot import:
/// SQLite copies a value bound with it before the bind call returns.
sqlite3_destructor_type ferry_sqlite_transient(void);

#endif
