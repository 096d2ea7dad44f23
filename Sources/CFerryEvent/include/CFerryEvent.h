#ifndef CFERRY_EVENT_H
#define CFERRY_EVENT_H
// libc headers first: Debian's event2/event-config.h defines _GNU_SOURCE, which otherwise
// clashes with every other module over fd_set.
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <stdlib.h>
#include <event2/event.h>

#endif
