/* The timed core of bench/cache/blob_vs_file.py (issue 17: cache bodies as files or as BLOBs).
 *
 *   blob_vs_file LAYOUT SYNC SIZE DIR SLOTS STORES HITS COLD
 *
 * LAYOUT is `file` (ferryd's: cache.db holds the rows, each body a file under DIR/cache/),
 * `blob` (the body in a `cache_body` table of cache.db, the row naming it by rowid) or
 * `blob-mmap` (the same with PRAGMA mmap_size = 1 GiB, which ferryd does not set). SYNC is
 * NORMAL or FULL (`journal.sync`). DIR must be empty or missing; the program fills SLOTS
 * entries of SIZE bytes, then times STORES stores (each replacing an entry, as a store does in
 * a full cache), HITS warm hits and COLD hits whose pages were dropped from the page cache
 * first (posix_fadvise DONTNEED on this run's own files; nothing else is touched). It prints
 * one JSON line: microseconds per operation of each phase (the mean over the phase), and the
 * CPU microseconds (getrusage) per store.
 *
 * cache.db is opened as FerryStore's Database.openStore opens it: SQLITE_OPEN_NOMUTEX,
 * locking_mode EXCLUSIVE, journal_mode WAL, synchronous SYNC, journal_size_limit 1 MiB, every
 * other setting SQLite's default (page size 4096, wal_autocheckpoint 1000 pages, cache_size
 * -2000). The file layout's store and hit are CacheBodyFiles' system calls in their order.
 *
 * glibc is told not to give freed memory back (M_TRIM_THRESHOLD, M_MMAP_THRESHOLD): in a
 * small process that has just freed a 4 MiB buffer, the default trims the heap and the next
 * hit faults every page of its buffer in again (+4–5 ms on a 4 MiB SELECT here), which says
 * more about this process's heap than about either layout. */
#include "blob_vs_file_util.h"

/* ---- the index: CacheStore's schema; the BLOB layout adds cache_body ---- */

static sqlite3_stmt *insert_row, *insert_body, *delete_body, *select_body, *begin_tx, *commit_tx;
static unsigned char headers[400], sha[32];

static void open_store(const char *dir, const char *sync) {
  snprintf(db_path, sizeof db_path, "%s/cache.db", dir);
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW;
  if (sqlite3_open_v2(db_path, &db, flags, NULL) != SQLITE_OK) die("open cache.db");
  sqlite3_busy_timeout(db, 1000);
  sql("PRAGMA locking_mode = EXCLUSIVE");
  sql("CREATE TABLE cache_entry (session TEXT NOT NULL, key TEXT NOT NULL, variant TEXT NOT NULL,"
      " url TEXT NOT NULL, partition TEXT NOT NULL, status INTEGER NOT NULL, headers BLOB NOT NULL,"
      " vary BLOB NOT NULL, request_time INTEGER NOT NULL, response_time INTEGER NOT NULL,"
      " body_file TEXT NOT NULL, body_bytes INTEGER NOT NULL, body_sha256 BLOB NOT NULL,"
      " last_use INTEGER NOT NULL, hits INTEGER NOT NULL, PRIMARY KEY (session, key, variant));"
      "CREATE INDEX cache_entry_by_url ON cache_entry(session, partition, url);"
      "CREATE TABLE cache_body (id INTEGER PRIMARY KEY, body BLOB NOT NULL);");
  sql("PRAGMA journal_mode = WAL");
  char pragma[64];
  snprintf(pragma, sizeof pragma, "PRAGMA synchronous = %s", sync);
  sql(pragma);
  sql("PRAGMA journal_size_limit = 1048576");
  if (use_mmap) sql("PRAGMA mmap_size = 1073741824");
  insert_row = prepare(
      "INSERT OR REPLACE INTO cache_entry (session, key, variant, url, partition, status, headers,"
      " vary, request_time, response_time, body_file, body_bytes, body_sha256, last_use, hits)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
  insert_body = prepare("INSERT INTO cache_body (id, body) VALUES (?1, ?2)");
  delete_body = prepare("DELETE FROM cache_body WHERE id = ?1");
  select_body = prepare("SELECT body FROM cache_body WHERE id = ?1");
  begin_tx = prepare("BEGIN");
  commit_tx = prepare("COMMIT");
  for (size_t i = 0; i < sizeof headers; i++) headers[i] = (unsigned char)(i * 7 + 3);
}

/* CacheStore.put: the row, in a transaction of its own. */
static void bind_row(int slot, const char *body_name, long size) {
  char key[64], url[96];
  snprintf(key, sizeof key, "GET https://api.example.test/items/%d", slot);
  snprintf(url, sizeof url, "https://api.example.test/items/%d", slot);
  sqlite3_stmt *s = insert_row;
  sqlite3_bind_text(s, 1, "default", -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 3, "", -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 4, url, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 5, "u1000", -1, SQLITE_STATIC);
  sqlite3_bind_int(s, 6, 200);
  sqlite3_bind_blob(s, 7, headers, sizeof headers, SQLITE_STATIC);
  sqlite3_bind_blob(s, 8, "", 0, SQLITE_STATIC);
  sqlite3_bind_int64(s, 9, 1796000000);
  sqlite3_bind_int64(s, 10, 1796000000);
  sqlite3_bind_text(s, 11, body_name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 12, size);
  sqlite3_bind_blob(s, 13, sha, sizeof sha, SQLITE_STATIC);
  sqlite3_bind_int64(s, 14, 1796000000);
  sqlite3_bind_int64(s, 15, 0);
}

/* ---- the entries ---- */

static long body_size;
static unsigned char *body; /* what arrived (for the BLOB layout: what the collector holds) */
static int slots;
static long *slot_id;    /* the body's id: file name (32 hex digits of it) or cache_body rowid */
static long next_id = 1; /* CacheBodyFiles names bodies at random; a counter is as good here */
static int filling;      /* the untimed fill: one transaction, no fsync (made durable after) */

static void file_name(long id, char out[33]) { snprintf(out, 33, "%032lx", (unsigned long)id); }

/* HTTPCache.store with CacheBodyFiles: the body teed to tmp-… as curl hands it over (16 KiB
 * chunks, curl's receive buffer for an inline job), fsync, rename, directory fsync, the row
 * committed, then the replaced body removed. */
static void store_file(int slot) {
  char tmp[40], name[33], old[33];
  long id = next_id++;
  snprintf(tmp, sizeof tmp, "tmp-%ld", id);
  int fd = openat(cache_dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) die("openat tmp");
  for (long off = 0; off < body_size;) {
    long n = body_size - off < 16384 ? body_size - off : 16384;
    ssize_t w = write(fd, body + off, (size_t)n);
    if (w <= 0) die("write");
    off += w;
  }
  if (!filling && fsync(fd) != 0) die("fsync");
  close(fd);
  file_name(id, name);
  if (renameat(cache_dir, tmp, cache_dir, name) != 0) die("renameat");
  if (!filling && fsync(cache_dir) != 0) die("fsync dir");
  if (!filling) step_done(begin_tx);
  bind_row(slot, name, body_size);
  step_done(insert_row);
  if (!filling) step_done(commit_tx);
  if (slot_id[slot]) {
    file_name(slot_id[slot], old);
    unlinkat(cache_dir, old, 0);
  }
  slot_id[slot] = id;
}

/* The same store with the body as a BLOB: the replaced body's row deleted, the new body and
 * its entry's row inserted, one transaction. */
static void store_blob(int slot) {
  char name[24];
  long id = next_id++;
  if (!filling) step_done(begin_tx);
  if (slot_id[slot]) {
    sqlite3_bind_int64(delete_body, 1, slot_id[slot]);
    step_done(delete_body);
  }
  sqlite3_bind_int64(insert_body, 1, id);
  sqlite3_bind_blob64(insert_body, 2, body, (sqlite3_uint64)body_size, SQLITE_STATIC);
  step_done(insert_body);
  snprintf(name, sizeof name, "%ld", id);
  bind_row(slot, name, body_size);
  step_done(insert_row);
  if (!filling) step_done(commit_tx);
  slot_id[slot] = id;
}

/* ResponseCollector: the inline body grows as pieces are appended. */
static unsigned char *collected;
static size_t collected_bytes, collected_room;

static void collect(const void *piece, size_t n) {
  if (collected_bytes + n > collected_room) {
    while (collected_bytes + n > collected_room) collected_room = collected_room ? collected_room * 2 : 64;
    collected = realloc(collected, collected_room);
    if (!collected) die("realloc");
  }
  memcpy(collected + collected_bytes, piece, n);
  collected_bytes += n;
}

/* An inline hit as answer(from:) makes it: a fresh collector, then CacheBodyFiles.read —
 * openat, fstat (a regular file of the row's size), a zeroed buffer of min(size, 64 KiB) + 1,
 * reads to the end of the file, close. */
static void hit_file(int slot) {
  char name[33];
  file_name(slot_id[slot], name);
  free(collected);
  collected = NULL;
  collected_bytes = collected_room = 0;
  int fd = openat(cache_dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) die("openat body");
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != body_size) die("fstat body");
  size_t room = (size_t)(body_size < 65536 ? body_size : 65536) + 1;
  unsigned char *buffer = calloc(1, room);
  long total = 0;
  for (;;) {
    ssize_t n = read(fd, buffer, room);
    if (n < 0) die("read body");
    if (n == 0) break;
    total += n;
    collect(buffer, (size_t)n);
  }
  free(buffer);
  close(fd);
  if (total != body_size) die("short body");
}

/* The BLOB layout's hit, by the rowid the in-memory index would hold: the prepared SELECT's
 * column copied into the collector, or (blob_io) sqlite3_blob_open and 64 KiB blob reads. */
static void hit_blob(int slot, int blob_io) {
  free(collected);
  collected = NULL;
  collected_bytes = collected_room = 0;
  if (!blob_io) {
    sqlite3_bind_int64(select_body, 1, slot_id[slot]);
    if (sqlite3_step(select_body) != SQLITE_ROW) die("select body");
    const void *p = sqlite3_column_blob(select_body, 0);
    int n = sqlite3_column_bytes(select_body, 0);
    if (n != body_size) die("blob size");
    collect(p, (size_t)n);
    sqlite3_reset(select_body);
    return;
  }
  sqlite3_blob *b = NULL;
  if (sqlite3_blob_open(db, "main", "cache_body", "body", slot_id[slot], 0, &b) != SQLITE_OK) die("blob_open");
  int n = sqlite3_blob_bytes(b);
  if (n != body_size) die("blob size");
  static unsigned char piece[65536];
  for (int off = 0; off < n;) {
    int want = n - off < (int)sizeof piece ? n - off : (int)sizeof piece;
    if (sqlite3_blob_read(b, piece, want, off) != SQLITE_OK) die("blob_read");
    collect(piece, (size_t)want);
    off += want;
  }
  sqlite3_blob_close(b);
}

/* Drops this run's pages from the page cache before a cold hit: the body file; or cache.db
 * and SQLite's own page cache (the WAL was checkpointed into cache.db and truncated before the
 * cold phase), then, with `warm_tree`, the b-tree pages on the way to the body read again by a
 * lookup of another slot's row (what every hit keeps warm; the file layout's counterpart, the
 * directory and the inode, stay cached too: dropping those needs root). */
static sqlite3_stmt *probe_body;
static int warm_tree;

static void drop_cached(int slot) {
  if (!blob_layout) {
    char name[33];
    file_name(slot_id[slot], name);
    int fd = openat(cache_dir, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die("openat for fadvise");
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    return;
  }
  int fd = open(db_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("open cache.db for fadvise");
  fdatasync(fd);
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
  sqlite3_db_release_memory(db);
  if (!warm_tree) return;
  sqlite3_bind_int64(probe_body, 1, slot_id[(slot + slots / 2) % slots]);
  if (sqlite3_step(probe_body) != SQLITE_ROW) die("probe");
  sqlite3_reset(probe_body);
}

typedef void (*op_fn)(int);
static void op_store(int slot) { blob_layout ? store_blob(slot) : store_file(slot); }
static void op_hit(int slot) { blob_layout ? hit_blob(slot, 0) : hit_file(slot); }
static void op_hit_io(int slot) { hit_blob(slot, 1); }

/* Runs `count` operations over the slots in turn: µs per operation, and CPU µs per operation
 * (getrusage over the phase) in `cpu_per_op`. A cold one is timed without the drop before it. */
static double timed(op_fn op, int count, int cold, double *cpu_per_op) {
  if (count == 0) return 0;
  double total = 0, c0 = cpu_us(), t0 = now_us();
  for (int i = 0; i < count; i++) {
    int slot = i % slots;
    if (!cold) {
      op(slot);
      continue;
    }
    drop_cached(slot);
    double t = now_us();
    op(slot);
    total += now_us() - t;
  }
  if (!cold) total = now_us() - t0;
  if (cpu_per_op) *cpu_per_op = (cpu_us() - c0) / count;
  return total / count;
}

/* A full cache to start from, quickly: every slot stored in one transaction without fsyncs,
 * then all of it made durable at once (writeback started for every body, then each synced;
 * the WAL checkpointed into cache.db and both synced), so the timed stores do not pay for the
 * fill's writes. Only this run's files are synced. */
static void fill(void) {
  filling = 1;
  step_done(begin_tx);
  for (int i = 0; i < slots; i++) op_store(i);
  step_done(commit_tx);
  filling = 0;
  if (!blob_layout) {
    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < slots; i++) {
        char name[33];
        file_name(slot_id[i], name);
        int fd = openat(cache_dir, name, O_RDONLY | O_CLOEXEC);
        if (fd < 0) die("openat body");
        if (pass == 0) sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
        else fdatasync(fd);
        close(fd);
      }
    fsync(cache_dir);
  }
  sql("PRAGMA wal_checkpoint(TRUNCATE)");
  int fd = open(db_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("open cache.db");
  fdatasync(fd);
  close(fd);
}

int main(int argc, char **argv) {
  if (argc != 9) {
    fprintf(stderr, "usage: blob_vs_file file|blob NORMAL|FULL SIZE DIR SLOTS STORES HITS COLD\n");
    return 2;
  }
  blob_layout = strncmp(argv[1], "blob", 4) == 0;
  use_mmap = strcmp(argv[1], "blob-mmap") == 0;
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  body_size = atol(argv[3]);
  const char *dir = argv[4];
  slots = atoi(argv[5]);
  int stores = atoi(argv[6]), hits = atoi(argv[7]), cold = atoi(argv[8]);
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) die("mkdir");
  open_store(dir, argv[2]);
  char path[4200];
  snprintf(path, sizeof path, "%s/cache", dir);
  if (mkdir(path, 0700) != 0 && errno != EEXIST) die("mkdir cache");
  cache_dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (cache_dir < 0) die("open cache dir");
  body = malloc((size_t)body_size);
  for (long i = 0; i < body_size; i++) body[i] = (unsigned char)(i * 31 + 7);
  slot_id = calloc((size_t)slots, sizeof *slot_id);

  fill();
  double store_cpu = 0, store = timed(op_store, stores, 0, &store_cpu);
  for (int i = 0; hits && i < slots; i++) op_hit(i); /* warm: every body in the page cache */
  double hit = timed(op_hit, hits, 0, NULL), hit_io = blob_layout ? timed(op_hit_io, hits, 0, NULL) : 0;
  double cold_hit = 0, cold_tree = 0, cold_tree_io = 0;
  if (cold) {
    if (blob_layout) sql("PRAGMA wal_checkpoint(TRUNCATE)");
    probe_body = prepare("SELECT id FROM cache_body WHERE id = ?1");
    cold_hit = timed(op_hit, cold, 1, NULL);
    if (blob_layout) {
      warm_tree = 1;
      cold_tree = timed(op_hit, cold, 1, NULL);
      cold_tree_io = timed(op_hit_io, cold, 1, NULL);
    }
  }
  printf("{\"store_us\": %.3f, \"store_cpu_us\": %.3f, \"hit_us\": %.3f, \"hit_blobio_us\": %.3f, "
         "\"cold_us\": %.3f, \"cold_tree_us\": %.3f, \"cold_tree_blobio_us\": %.3f, \"sqlite\": \"%s\"}\n",
         store, store_cpu, hit, hit_io, cold_hit, cold_tree, cold_tree_io, sqlite3_libversion());
  sqlite3_close_v2(db);
  return 0;
}
