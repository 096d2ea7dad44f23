#ifndef CFERRY_REDIS_H
#define CFERRY_REDIS_H
// hiredis 0.14 (Debian bookworm's libhiredis-dev): its async API on ferryd's own libevent
// base. libevent's headers stay in shim.c: Debian's event2/event-config.h defines _GNU_SOURCE,
// which would clash with the other modules over fd_set.
#include <stddef.h>
#include <hiredis/hiredis.h>
#include <hiredis/async.h>

/// What the shim calls back: the owner passed at connect, then the status or the reply
/// (NULL when the connection went away before the reply came).
typedef void (*ferry_redis_status_fn)(void *owner, int status);
typedef void (*ferry_redis_reply_fn)(void *owner, redisReply *reply, void *privdata);

/// Sets the three callbacks every context calls with the owner given at connect (its `data`).
/// `connected` with REDIS_ERR means the context is gone (hiredis frees it); `disconnected`
/// comes only for a context that had connected.
void ferry_redis_set_callbacks(ferry_redis_status_fn connected, ferry_redis_status_fn disconnected,
                               ferry_redis_reply_fn reply);

/// Connects to a Unix socket or a numeric IP address (no name is resolved) and attaches the
/// context to `base` (a `struct event_base *`). NULL when hiredis could not even start (out of
/// memory, a path too long, a refused Unix socket); `err` then holds its message.
redisAsyncContext *ferry_redis_connect(const char *path, const char *ip, int port, void *base,
                                       void *owner, char *err, size_t errlen);

/// `redisAsyncCommandArgv` with the shim's reply callback; 0 when queued.
int ferry_redis_command(redisAsyncContext *ac, void *privdata, int argc, const char **argv,
                        const size_t *argvlen);

/// Frees the context without calling back: for an owner that is going away.
void ferry_redis_free_detached(redisAsyncContext *ac);

/// Frees the context: pending replies are called back with NULL (and `disconnected` when it
/// had connected). Never from inside one of its callbacks.
void ferry_redis_free(redisAsyncContext *ac);

#endif
