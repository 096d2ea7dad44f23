#include "CFerrySQLite.h"

sqlite3_destructor_type ferry_sqlite_transient(void) { return SQLITE_TRANSIENT; }
