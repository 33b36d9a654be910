// libcurl for the one http(s) fetcher (HTTPStream, in the Ads module, the only Swift module that
// imports it). curl_easy_setopt/getinfo are variadic, which Swift cannot call: typed wrappers.
#ifndef INTERLUDE_CCURL_SHIM_H
#define INTERLUDE_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode interlude_curl_set_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode interlude_curl_set_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode interlude_curl_set_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode interlude_curl_set_list(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode interlude_curl_set_offset(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode interlude_curl_set_write(CURL *h, CURLoption o, curl_write_callback f) { return curl_easy_setopt(h, o, f); }
static inline CURLcode interlude_curl_set_xferinfo(CURL *h, curl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
#endif
