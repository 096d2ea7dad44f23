#ifndef CFERRY_CURL_H
#define CFERRY_CURL_H
// libc headers first, for the same reason as in CFerryEvent: keep fd_set and friends coming from
// one module.
#include <sys/types.h>
#include <sys/socket.h>
#include <curl/curl.h>

// Typed wrappers for libcurl's variadic functions, one per argument type, as FoundationNetworking
// does: Swift cannot call a C variadic function, and a wrapper per type keeps every call checked.
// Each is one statement.

// MARK: curl_easy_setopt

static inline CURLcode ferry_curl_easy_setopt_long(CURL *h, CURLoption o, long v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode ferry_curl_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode ferry_curl_easy_setopt_ptr(CURL *h, CURLoption o, void *v) {
  return curl_easy_setopt(h, o, v);
}
/// libcurl copies string options (except CURLOPT_POSTFIELDS), so `v` may be temporary.
static inline CURLcode ferry_curl_easy_setopt_str(CURL *h, CURLoption o, const char *v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode ferry_curl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
  return curl_easy_setopt(h, o, v);
}
/// CURLOPT_PROTOCOLS and CURLOPT_REDIR_PROTOCOLS: http and https only, as bitmasks. libcurl
/// 7.85 deprecated them for the _STR forms, which parse their string on every call (about 680
/// instructions each in 7.88, against tens for a long); they are still supported. Two
/// statements, the deprecation warning silenced for them alone.
static inline CURLcode ferry_curl_easy_setopt_http_protocols(CURL *h) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
  CURLcode rc = curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
  return rc != CURLE_OK ? rc : curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#pragma clang diagnostic pop
}
/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION share this type.
static inline CURLcode ferry_curl_easy_setopt_func_write(CURL *h, CURLoption o, curl_write_callback f) {
  return curl_easy_setopt(h, o, f);
}
static inline CURLcode ferry_curl_easy_setopt_func_read(CURL *h, CURLoption o, curl_read_callback f) {
  return curl_easy_setopt(h, o, f);
}
static inline CURLcode ferry_curl_easy_setopt_func_seek(CURL *h, CURLoption o, curl_seek_callback f) {
  return curl_easy_setopt(h, o, f);
}
static inline CURLcode ferry_curl_easy_setopt_func_xferinfo(CURL *h, CURLoption o,
                                                            curl_xferinfo_callback f) {
  return curl_easy_setopt(h, o, f);
}
static inline CURLcode ferry_curl_easy_setopt_func_opensocket(CURL *h, CURLoption o,
                                                              curl_opensocket_callback f) {
  return curl_easy_setopt(h, o, f);
}
static inline CURLcode ferry_curl_easy_setopt_func_closesocket(CURL *h, CURLoption o,
                                                               curl_closesocket_callback f) {
  return curl_easy_setopt(h, o, f);
}
static inline CURLcode ferry_curl_easy_setopt_func_prereq(CURL *h, CURLoption o, curl_prereq_callback f) {
  return curl_easy_setopt(h, o, f);
}

// MARK: curl_multi_setopt

static inline CURLMcode ferry_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) {
  return curl_multi_setopt(m, o, v);
}
static inline CURLMcode ferry_curl_multi_setopt_ptr(CURLM *m, CURLMoption o, void *v) {
  return curl_multi_setopt(m, o, v);
}
static inline CURLMcode ferry_curl_multi_setopt_socketfunction(CURLM *m, CURLMoption o,
                                                               curl_socket_callback f) {
  return curl_multi_setopt(m, o, f);
}
static inline CURLMcode ferry_curl_multi_setopt_timerfunction(CURLM *m, CURLMoption o,
                                                              curl_multi_timer_callback f) {
  return curl_multi_setopt(m, o, f);
}

// MARK: curl_share_setopt

static inline CURLSHcode ferry_curl_share_setopt_long(CURLSH *s, CURLSHoption o, long v) {
  return curl_share_setopt(s, o, v);
}

// MARK: curl_easy_getinfo

static inline CURLcode ferry_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode ferry_curl_easy_getinfo_double(CURL *h, CURLINFO i, double *v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode ferry_curl_easy_getinfo_off_t(CURL *h, CURLINFO i, curl_off_t *v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode ferry_curl_easy_getinfo_str(CURL *h, CURLINFO i, char **v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode ferry_curl_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) {
  return curl_easy_getinfo(h, i, v);
}

// MARK: macros Swift cannot import (casts, or macros defined through other macros)

static inline curl_version_info_data *ferry_curl_version_info(void) {
  return curl_version_info(CURLVERSION_NOW);
}

static const long FERRY_CURL_GLOBAL_DEFAULT = CURL_GLOBAL_DEFAULT;
static const curl_socket_t FERRY_CURL_SOCKET_TIMEOUT = CURL_SOCKET_TIMEOUT;
static const curl_socket_t FERRY_CURL_SOCKET_BAD = CURL_SOCKET_BAD;
static const int FERRY_CURL_POLL_NONE = CURL_POLL_NONE;
static const int FERRY_CURL_POLL_IN = CURL_POLL_IN;
static const int FERRY_CURL_POLL_OUT = CURL_POLL_OUT;
static const int FERRY_CURL_POLL_INOUT = CURL_POLL_INOUT;
static const int FERRY_CURL_POLL_REMOVE = CURL_POLL_REMOVE;
static const int FERRY_CURL_CSELECT_IN = CURL_CSELECT_IN;
static const int FERRY_CURL_CSELECT_OUT = CURL_CSELECT_OUT;
static const int FERRY_CURL_CSELECT_ERR = CURL_CSELECT_ERR;
static const size_t FERRY_CURL_WRITEFUNC_PAUSE = CURL_WRITEFUNC_PAUSE;
static const size_t FERRY_CURL_READFUNC_ABORT = CURL_READFUNC_ABORT;
static const size_t FERRY_CURL_READFUNC_PAUSE = CURL_READFUNC_PAUSE;
static const int FERRY_CURL_SEEKFUNC_OK = CURL_SEEKFUNC_OK;
static const int FERRY_CURL_SEEKFUNC_FAIL = CURL_SEEKFUNC_FAIL;
static const int FERRY_CURL_SEEKFUNC_CANTSEEK = CURL_SEEKFUNC_CANTSEEK;
static const int FERRY_CURLPAUSE_RECV = CURLPAUSE_RECV;
static const int FERRY_CURLPAUSE_CONT = CURLPAUSE_CONT;
static const int FERRY_CURLPAUSE_SEND = CURLPAUSE_SEND;
static const long FERRY_CURL_VERSION_ASYNCHDNS = CURL_VERSION_ASYNCHDNS;
/* A cast inside the macro keeps Swift from importing CURLAUTH_DIGEST itself. */
static const unsigned long FERRY_CURLAUTH_DIGEST = CURLAUTH_DIGEST;
static const size_t FERRY_CURL_ERROR_SIZE = CURL_ERROR_SIZE;
static const int FERRY_CURL_PREREQFUNC_OK = CURL_PREREQFUNC_OK;

#endif
