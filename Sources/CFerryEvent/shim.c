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

int ferry_netlink_bind(int fd, unsigned int groups) {
  return bind(fd, (struct sockaddr *)&(struct sockaddr_nl){.nl_family = AF_NETLINK, .nl_groups = groups},
              sizeof(struct sockaddr_nl));
}

int ferry_errno(void) { return errno; }

int ferry_renameat2(int olddir, const char *oldname, int newdir, const char *newname, unsigned int flags) {
  return renameat2(olddir, oldname, newdir, newname, flags);
}

ssize_t ferry_recv_with_fds(int fd, void *buf, size_t len, int *fds, int *nfds, int *truncated) {
  union {
    char bytes[CMSG_SPACE(FERRY_MAX_RECEIVED_FDS * sizeof(int))];
    struct cmsghdr align;
  } control;
  struct iovec iov = {.iov_base = buf, .iov_len = len};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1,
                       .msg_control = control.bytes, .msg_controllen = sizeof(control.bytes)};
  *nfds = 0;
  *truncated = 0;
  ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
  if (n < 0) return n;
  if (msg.msg_flags & MSG_CTRUNC) *truncated = 1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    const unsigned char *data = CMSG_DATA(c);
    for (size_t i = 0; i < count; i++) {
      int received;
      memcpy(&received, data + i * sizeof(int), sizeof(int));
      if (*nfds < FERRY_MAX_RECEIVED_FDS) {
        fds[(*nfds)++] = received;
      } else {
        close(received);
        *truncated = 1;
      }
    }
  }
  return n;
}

ssize_t ferry_send_with_fds(int fd, const void *buf, size_t len, const int *fds, int nfds) {
  // 253: the kernel's own limit per message (SCM_MAX_FD).
  union {
    char bytes[CMSG_SPACE(253 * sizeof(int))];
    struct cmsghdr align;
  } control;
  if (nfds < 0 || nfds > 253) {
    errno = EINVAL;
    return -1;
  }
  struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
  if (nfds > 0) {
    memset(control.bytes, 0, sizeof(control.bytes));
    msg.msg_control = control.bytes;
    msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
    memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
  }
  return sendmsg(fd, &msg, MSG_NOSIGNAL);
}

int ferry_pipe_nonblocking(int fds[2]) { return pipe2(fds, O_NONBLOCK | O_CLOEXEC); }

ssize_t ferry_splice_nonblocking(int in, int out, size_t len) {
  return splice(in, NULL, out, NULL, len, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
}
