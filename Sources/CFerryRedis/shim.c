#include "CFerryRedis.h"
#include <stdio.h>
#include <event2/event.h>
#include <hiredis/adapters/libevent.h>

static ferry_redis_status_fn on_connected;
static ferry_redis_status_fn on_disconnected;
static ferry_redis_reply_fn on_reply;

void ferry_redis_set_callbacks(ferry_redis_status_fn connected, ferry_redis_status_fn disconnected,
                               ferry_redis_reply_fn reply) {
  on_connected = connected;
  on_disconnected = disconnected;
  on_reply = reply;
}

static void connect_cb(const redisAsyncContext *ac, int status) { on_connected(ac->data, status); }

static void disconnect_cb(const redisAsyncContext *ac, int status) {
  on_disconnected(ac->data, status);
}

static void reply_cb(redisAsyncContext *ac, void *reply, void *privdata) {
  on_reply(ac->data, reply, privdata);
}

redisAsyncContext *ferry_redis_connect(const char *path, const char *ip, int port, void *base,
                                       void *owner, char *err, size_t errlen) {
  redisAsyncContext *ac = path ? redisAsyncConnectUnix(path) : redisAsyncConnect(ip, port);
  if (ac == NULL) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  if (ac->err) {
    snprintf(err, errlen, "%s", ac->errstr);
    redisAsyncFree(ac);
    return NULL;
  }
  if (redisLibeventAttach(ac, (struct event_base *)base) != REDIS_OK) {
    snprintf(err, errlen, "could not attach to the loop");
    redisAsyncFree(ac);
    return NULL;
  }
  ac->data = owner;
  redisAsyncSetConnectCallback(ac, connect_cb);
  redisAsyncSetDisconnectCallback(ac, disconnect_cb);
  return ac;
}

int ferry_redis_command(redisAsyncContext *ac, void *privdata, int argc, const char **argv,
                        const size_t *argvlen) {
  return redisAsyncCommandArgv(ac, reply_cb, privdata, argc, argv, argvlen);
}

void ferry_redis_free(redisAsyncContext *ac) { redisAsyncFree(ac); }

void ferry_redis_free_detached(redisAsyncContext *ac) {
  ac->data = NULL;
  redisAsyncFree(ac);
}
