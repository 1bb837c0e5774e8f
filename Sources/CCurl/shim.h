#ifndef BOOKRULE_CCURL_SHIM_H
#define BOOKRULE_CCURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; these typed wrappers can be.
// Each passes exactly the argument type the option or info expects (long, char *, void *, curl_off_t, a
// callback pointer or a struct curl_slist *).

static inline CURLcode bookrule_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bookrule_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bookrule_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bookrule_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bookrule_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION (same signature).
static inline CURLcode bookrule_curl_setopt_write_callback(CURL *handle, CURLoption option,
                                                           curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_XFERINFOFUNCTION.
static inline CURLcode bookrule_curl_setopt_xferinfo_callback(CURL *handle, CURLoption option,
                                                              curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bookrule_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode bookrule_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode bookrule_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode bookrule_curl_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// The result of a finished transfer from a CURLMSG_DONE message (a union member Swift reaches awkwardly).
static inline CURLcode bookrule_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
