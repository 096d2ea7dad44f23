#ifndef CFERRY_EVENT_H
#define CFERRY_EVENT_H
// libc headers first: Debian's event2/event-config.h defines _GNU_SOURCE, which otherwise
// clashes with every other module over fd_set.
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/netlink.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <event2/event.h>

/// The callback type libevent calls, named so Swift sees one stable type.
typedef void (*ferry_event_callback)(evutil_socket_t fd, short what, void *arg);

/// `evtimer_new` is a macro: a timer is an event on no fd with no flags.
struct event *ferry_evtimer_new(struct event_base *base, ferry_event_callback cb, void *arg);

/// `evsignal_new` is a macro: a persistent signal event.
struct event *ferry_evsignal_new(struct event_base *base, int signum, ferry_event_callback cb,
                                 void *arg);

/// Adds `ev` with a relative timeout of `ms` milliseconds (0: next loop iteration).
int ferry_event_add_ms(struct event *ev, long ms);

/// Reads SO_PEERCRED; `struct ucred` needs _GNU_SOURCE, which this header must not define.
int ferry_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// `accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)`; accept4 is behind _GNU_SOURCE.
int ferry_accept4(int fd);
/// Binds a NETLINK_ROUTE socket to the kernel-assigned port with the multicast `groups` (issue 31).
int ferry_netlink_bind(int fd, unsigned int groups);

/// The most descriptors one `ferry_recv_with_fds` takes from a message; more are dropped by the
/// kernel (it closes them) and `*truncated` is set.
#define FERRY_MAX_RECEIVED_FDS 16

/// `recvmsg` of up to `len` bytes with room for FERRY_MAX_RECEIVED_FDS descriptors passed by
/// SCM_RIGHTS, received close-on-exec (MSG_CMSG_CLOEXEC). Returns the byte count (or -1 with
/// errno); `*nfds` descriptors are stored in `fds`, which the caller then owns; `*truncated`
/// is 1 when the control data did not fit (the excess descriptors are gone).
ssize_t ferry_recv_with_fds(int fd, void *buf, size_t len, int *fds, int *nfds, int *truncated);

/// `sendmsg` of `len` bytes with `nfds` (at most 253, the kernel's limit) descriptors as one
/// SCM_RIGHTS message, MSG_NOSIGNAL.
ssize_t ferry_send_with_fds(int fd, const void *buf, size_t len, const int *fds, int nfds);

/// `renameat2` (behind _GNU_SOURCE), with RENAME_NOREPLACE or RENAME_EXCHANGE as `flags`.
/// `pipe2(O_NONBLOCK | O_CLOEXEC)`.
int ferry_pipe_nonblocking(int fds[2]);
/// `splice(2)` of up to `len` bytes from pipe `in` to `out` with SPLICE_F_NONBLOCK |
/// SPLICE_F_MOVE: it never waits for room in `out` when that is a pipe, whatever the file
/// status flags of `out` (which a passed descriptor shares with its sender).
ssize_t ferry_splice_nonblocking(int in, int out, size_t len);
int ferry_renameat2(int olddir, const char *oldname, int newdir, const char *newname, unsigned int flags);

/// RENAME_NOREPLACE and RENAME_EXCHANGE, which <stdio.h> declares only under _GNU_SOURCE.
#define FERRY_RENAME_NOREPLACE 1
#define FERRY_RENAME_EXCHANGE 2

/// The thread's errno, readable from Swift without the Glibc overlay's computed property.
int ferry_errno(void);

#endif
