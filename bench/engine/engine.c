/* The engine alone (issue 29): what ferryd's engine does for B1's jobs and nothing else.

       engine URL N WINDOW [CA_FILE]

   libevent's loop drives libcurl's multi_socket API (curl's docs/examples/hiperfifo.c):
   CURLMOPT_SOCKETFUNCTION maps curl's interest onto libevent events, CURLMOPT_TIMERFUNCTION
   arms one libevent timer, and curl_multi_socket_action runs from both. WINDOW easy handles
   are made once and reused (curl_easy_reset, as ferryd's EasyHandle does); when a transfer
   ends, the next one starts on its handle, until N have run (after one untimed transfer that
   leaves a pooled connection, as B1's warm daemon has). Bodies are discarded. There is
   no client, no job line, no event written: it is the ceiling any daemon on libcurl and
   libevent approaches.

   The options are those ferryd sets for a pooled GET of B1 (Sources/FerrySession/
   Transfer+Configure.swift, EasyHandle.swift, ShareHandle.swift, Engine.swift, and
   FerryDaemon/Session.swift's pool limits for the default session): CURLOPT_NOSIGNAL, the
   protocols locked to http and https, redirects followed by curl (at most 10, POSTREDIR 0,
   UNRESTRICTED_AUTH 0), the CA file, no proxy (PROXY and NOPROXY ""), a 30 s connect timeout,
   request headers User-Agent, Accept and Accept-Encoding given in CURLOPT_HTTPHEADER with
   CURLOPT_ACCEPT_ENCODING set to the same list, a header and a write callback, an error
   buffer, a share handle for DNS and TLS sessions, CURLMOPT_MAXCONNECTS 4 x 64 (ferryd's
   idle connections for a session of max_concurrent 64), HTTP/2 multiplexing (curl's default).
   Like ferryd (SocketRecord.swift), a connection socket's read registration is kept while it
   sits in the pool (an open and a close socket callback tell connection sockets apart), so a
   request on a pooled connection costs no epoll_ctl DEL and ADD.

   With ENGINE_PROBE_BUFFER set in the environment it also counts, on stderr, the transfers
   after which curl_easy_reset left the handle refusing CURLOPT_BUFFERSIZE (ferryd discards
   such a handle; bench/NOTES.md, "Close to the engine"); ENGINE_PROBE_BUFFER=discard also
   replaces each such handle with a new one, as ferryd does, to time what that costs.

   Prints one line as ferry-bench-client does: jobs= done= failed= seconds= jobs_per_s=
   http_version=. Exit status 1 when any transfer failed or did not answer 200. */

#include <curl/curl.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/event_struct.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FD 65536

struct sock {
    struct event ev;
    int fd;
    int interest; /* EV_READ | EV_WRITE, 0 when not registered */
    int connection; /* opened by our open callback: kept while pooled */
    int parked; /* curl does not watch it now (pooled) */
    int assigned; /* in use */
};

struct slot {
    CURL *easy;
    char error[CURL_ERROR_SIZE];
};

static struct event_base *base;
static struct event timer_event;
static CURLM *multi;
static CURLSH *share;
static struct sock *socks;
static struct slot *slots;
static struct curl_slist *headers;
static const char *url, *ca_file;
static long total, started, done, failed;
static int warming; /* the one untimed transfer before the clock starts */
static int probe_buffer;
static long stale_buffers;
static long http_version;
static char accept_encoding[64];

static void die(const char *what) {
    fprintf(stderr, "engine: %s\n", what);
    exit(2);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t discard(char *data, size_t size, size_t n, void *user) {
    (void)data, (void)user;
    return size * n;
}

static void event_cb(evutil_socket_t fd, short what, void *arg);

static void set_interest(struct sock *s, int interest) {
    if (s->interest == interest) return;
    if (s->interest) event_del(&s->ev);
    s->interest = interest;
    if (!interest) return;
    event_assign(&s->ev, base, s->fd, (short)(interest | EV_PERSIST), event_cb, s);
    event_add(&s->ev, NULL);
}

static void check_multi_info(void);

static void action(curl_socket_t fd, int mask) {
    int running;
    CURLMcode code = curl_multi_socket_action(multi, fd, mask, &running);
    if (code != CURLM_OK) die(curl_multi_strerror(code));
    check_multi_info();
}

static void event_cb(evutil_socket_t fd, short what, void *arg) {
    struct sock *s = arg;
    if (s->parked) {
        /* A pooled connection became readable: the server closed it. curl finds out when it
           next tries to reuse it; stop waking up for it (ferryd's socketReady). */
        set_interest(s, 0);
        return;
    }
    int mask = (what & EV_READ ? CURL_CSELECT_IN : 0) | (what & EV_WRITE ? CURL_CSELECT_OUT : 0);
    action(fd, mask);
}

static void timer_cb(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what, (void)arg;
    action(CURL_SOCKET_TIMEOUT, 0);
}

static int timer_function(CURLM *m, long timeout_ms, void *user) {
    (void)m, (void)user;
    if (timeout_ms < 0) {
        evtimer_del(&timer_event);
    } else {
        struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
        evtimer_add(&timer_event, &tv);
    }
    return 0;
}

static int socket_function(CURL *easy, curl_socket_t fd, int what, void *user, void *socketp) {
    (void)easy, (void)user, (void)socketp;
    if (fd < 0 || fd >= MAX_FD) die("descriptor out of range");
    struct sock *s = &socks[fd];
    if (what == CURL_POLL_REMOVE) {
        if (!s->assigned) return 0;
        if (!s->connection) {
            set_interest(s, 0);
            s->assigned = 0;
            return 0;
        }
        /* Back in the pool, most likely: keep the read registration. */
        s->parked = 1;
        if (s->interest != EV_READ) set_interest(s, 0);
        return 0;
    }
    if (!s->assigned) {
        memset(s, 0, sizeof *s);
        s->fd = fd;
        s->assigned = 1;
    }
    s->parked = 0;
    set_interest(s, (what & CURL_POLL_IN ? EV_READ : 0) | (what & CURL_POLL_OUT ? EV_WRITE : 0));
    return 0;
}

static curl_socket_t open_socket(void *user, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)user, (void)purpose;
    int fd = socket(address->family, address->socktype, address->protocol);
    if (fd < 0) return CURL_SOCKET_BAD;
    if (fd >= MAX_FD) {
        close(fd);
        return CURL_SOCKET_BAD;
    }
    struct sock *s = &socks[fd];
    if (s->assigned) set_interest(s, 0);
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->assigned = 1;
    s->connection = 1;
    s->parked = 1;
    return fd;
}

static int close_socket(void *user, curl_socket_t fd) {
    (void)user;
    if (fd >= 0 && fd < MAX_FD && socks[fd].assigned) {
        set_interest(&socks[fd], 0);
        socks[fd].assigned = 0;
    }
    return close(fd);
}

#define SET(option, value) \
    do { \
        if (curl_easy_setopt(easy, option, value) != CURLE_OK) die("curl_easy_setopt " #option); \
    } while (0)

static void configure(struct slot *slot) {
    CURL *easy = slot->easy;
    SET(CURLOPT_ERRORBUFFER, slot->error);
    SET(CURLOPT_URL, url);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
    SET(CURLOPT_FOLLOWLOCATION, 1L);
    SET(CURLOPT_MAXREDIRS, 10L);
    SET(CURLOPT_POSTREDIR, 0L);
    SET(CURLOPT_UNRESTRICTED_AUTH, 0L);
    if (ca_file) SET(CURLOPT_CAINFO, ca_file);
    SET(CURLOPT_PROXY, "");
    SET(CURLOPT_NOPROXY, "");
    SET(CURLOPT_CONNECTTIMEOUT_MS, 30000L);
    SET(CURLOPT_HTTPHEADER, headers);
    SET(CURLOPT_ACCEPT_ENCODING, accept_encoding);
    SET(CURLOPT_OPENSOCKETFUNCTION, open_socket);
    SET(CURLOPT_CLOSESOCKETFUNCTION, close_socket);
    SET(CURLOPT_WRITEFUNCTION, discard);
    SET(CURLOPT_HEADERFUNCTION, discard);
}

static void start(struct slot *slot) {
    started++;
    slot->error[0] = 0;
    configure(slot);
    CURLMcode code = curl_multi_add_handle(multi, slot->easy);
    if (code != CURLM_OK) die(curl_multi_strerror(code));
}

static void check_multi_info(void) {
    CURLMsg *message;
    int queued;
    while ((message = curl_multi_info_read(multi, &queued))) {
        if (message->msg != CURLMSG_DONE) continue;
        CURL *easy = message->easy_handle;
        struct slot *slot;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&slot);
        long status = 0;
        curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
        if (warming) {
            if (message->data.result != CURLE_OK || status != 200) {
                fprintf(stderr, "engine: the warm-up transfer failed: %s (status %ld)\n",
                        slot->error[0] ? slot->error : curl_easy_strerror(message->data.result), status);
                exit(1);
            }
            warming = 0;
            curl_multi_remove_handle(multi, easy);
            curl_easy_reset(easy);
            curl_easy_setopt(easy, CURLOPT_PRIVATE, slot);
            event_base_loopbreak(base);
            return;
        }
        if (!http_version) curl_easy_getinfo(easy, CURLINFO_HTTP_VERSION, &http_version);
        if (message->data.result != CURLE_OK || status != 200) {
            if (!failed)
                fprintf(stderr, "engine: first failure: %s (status %ld)\n",
                        slot->error[0] ? slot->error : curl_easy_strerror(message->data.result), status);
            failed++;
        }
        done++;
        curl_multi_remove_handle(multi, easy);
        curl_easy_reset(easy);
        /* ferryd's EasyHandle.holdsStaleReceiveBuffer (issue 25), counted, with ENGINE_PROBE_BUFFER
           set: the same setopt after each reset; the engine keeps the handle either way. */
        if (probe_buffer && curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 0L) == CURLE_BAD_FUNCTION_ARGUMENT) {
            stale_buffers++;
            if (probe_buffer == 2) { /* ENGINE_PROBE_BUFFER=discard: as ferryd, a new handle */
                curl_easy_cleanup(easy);
                easy = slot->easy = curl_easy_init();
                if (!easy) die("curl_easy_init");
                curl_easy_setopt(easy, CURLOPT_SHARE, share);
            }
        }
        curl_easy_setopt(easy, CURLOPT_PRIVATE, slot);
        if (started < total) start(slot);
    }
    if (done == total) event_base_loopbreak(base);
}

static void accept_encodings(void) {
    curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    accept_encoding[0] = 0;
    if (info->features & CURL_VERSION_LIBZ) strcat(accept_encoding, "gzip, deflate");
    if (info->features & CURL_VERSION_BROTLI) strcat(accept_encoding, accept_encoding[0] ? ", br" : "br");
    if (info->features & CURL_VERSION_ZSTD) strcat(accept_encoding, accept_encoding[0] ? ", zstd" : "zstd");
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: engine URL N WINDOW [CA_FILE]\n");
        return 2;
    }
    url = argv[1];
    total = atol(argv[2]);
    long window = atol(argv[3]);
    ca_file = argc == 5 ? argv[4] : NULL;
    if (total < 1 || window < 1) die("N and WINDOW must be positive");
    const char *probe = getenv("ENGINE_PROBE_BUFFER");
    probe_buffer = !probe ? 0 : strcmp(probe, "discard") == 0 ? 2 : 1;
    if (window > total) window = total;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) die("curl_global_init");
    struct event_config *config = event_config_new();
    event_config_set_flag(config, EVENT_BASE_FLAG_PRECISE_TIMER); /* as FerryLoop's EventLoop */
    base = event_base_new_with_config(config);
    event_config_free(config);
    if (!base) die("event_base_new_with_config");
    evtimer_assign(&timer_event, base, timer_cb, NULL);
    socks = calloc(MAX_FD, sizeof *socks);
    slots = calloc((size_t)window, sizeof *slots);
    if (!socks || !slots) die("out of memory");
    accept_encodings();
    headers = curl_slist_append(headers, "User-Agent: ferry-engine/1");
    headers = curl_slist_append(headers, "Accept: */*");
    if (accept_encoding[0]) {
        char line[96];
        snprintf(line, sizeof line, "Accept-Encoding: %s", accept_encoding);
        headers = curl_slist_append(headers, line);
    }
    share = curl_share_init();
    if (!share) die("curl_share_init");
    curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    multi = curl_multi_init();
    if (!multi) die("curl_multi_init");
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, socket_function);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, timer_function);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
    curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, 0L);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 4L * 64);
    for (long i = 0; i < window; i++) {
        slots[i].easy = curl_easy_init();
        if (!slots[i].easy) die("curl_easy_init");
        /* Kept across resets (curl_easy_reset(3)), as ferryd's EasyHandle attaches it once. */
        curl_easy_setopt(slots[i].easy, CURLOPT_SHARE, share);
        curl_easy_setopt(slots[i].easy, CURLOPT_PRIVATE, &slots[i]);
    }
    /* One transfer first, untimed, as B1's ferryd is warm (run.py's probe): its connection (over
       https, its TLS session and HTTP/2 connection) is pooled when the clock starts. */
    warming = 1;
    start(&slots[0]);
    started = 0;
    if (event_base_dispatch(base) < 0 || warming) die("the warm-up transfer did not end");
    double t0 = now();
    for (long i = 0; i < window; i++) start(&slots[i]);
    if (event_base_dispatch(base) < 0) die("event_base_dispatch");
    double seconds = now() - t0;
    const char *version = http_version == CURL_HTTP_VERSION_2_0 ? "2"
                          : http_version == CURL_HTTP_VERSION_1_1 ? "1.1"
                          : http_version == CURL_HTTP_VERSION_1_0 ? "1.0"
                                                                   : "unknown";
    printf("jobs=%ld done=%ld failed=%ld seconds=%f jobs_per_s=%ld http_version=%s\n", total, done, failed, seconds,
           (long)(total / seconds), version);
    if (probe_buffer) fprintf(stderr, "engine: stale receive buffer after reset: %ld of %ld\n", stale_buffers, done);
    for (long i = 0; i < window; i++) {
        curl_multi_remove_handle(multi, slots[i].easy);
        curl_easy_cleanup(slots[i].easy);
    }
    curl_multi_cleanup(multi);
    curl_share_cleanup(share);
    curl_slist_free_all(headers);
    event_base_free(base);
    curl_global_cleanup();
    return failed ? 1 : 0;
}
