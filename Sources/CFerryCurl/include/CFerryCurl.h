#ifndef CFERRY_CURL_H
#define CFERRY_CURL_H
#include <sys/types.h>
#include <sys/socket.h>
#include <curl/curl.h>

#endif
