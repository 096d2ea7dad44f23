// _GNU_SOURCE before any header: struct ucred in <sys/socket.h> is guarded by it.
#define _GNU_SOURCE 1
#include "CFerryEvent.h"

struct event *ferry_evtimer_new(struct event_base *base, ferry_event_callback cb, void *arg) {
  return evtimer_new(base, cb, arg);
}

struct event *ferry_evsignal_new(struct event_base *base, int signum, ferry_event_callback cb,
                                 void *arg) {
  return evsignal_new(base, signum, cb, arg);
}

int ferry_event_add_ms(struct event *ev, long ms) {
  return event_add(ev, &(struct timeval){.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000});
}

int ferry_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
  struct ucred cred;
  socklen_t len = sizeof(cred);
  int rc = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len);
  if (rc == 0) {
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
  }
  return rc;
}

int ferry_accept4(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

int ferry_errno(void) { return errno; }
