/* The SQLite, clock and error helpers of blob_vs_file.c (one translation unit: this file is
 * included by it, not compiled alone). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what) {
  fprintf(stderr, "blob_vs_file: %s: %s\n", what, errno ? strerror(errno) : "failed");
  exit(1);
}

static sqlite3 *db;
static int blob_layout, use_mmap;
static int cache_dir = -1;
static char db_path[4096];

static void sql(const char *text) {
  char *message = NULL;
  if (sqlite3_exec(db, text, NULL, NULL, &message) != SQLITE_OK) {
    fprintf(stderr, "blob_vs_file: %s: %s\n", text, message ? message : "?");
    exit(1);
  }
}

static sqlite3_stmt *prepare(const char *text) {
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v3(db, text, -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) != SQLITE_OK) {
    fprintf(stderr, "blob_vs_file: prepare %s: %s\n", text, sqlite3_errmsg(db));
    exit(1);
  }
  return s;
}

static void step_done(sqlite3_stmt *s) {
  if (sqlite3_step(s) != SQLITE_DONE) {
    fprintf(stderr, "blob_vs_file: step: %s\n", sqlite3_errmsg(db));
    exit(1);
  }
  sqlite3_reset(s);
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static double cpu_us(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + u.ru_utime.tv_usec + u.ru_stime.tv_usec;
}
