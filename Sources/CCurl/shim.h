#ifndef BOOKRULE_CCURL_SHIM_H
#define BOOKRULE_CCURL_SHIM_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>

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

static inline CURLcode bookrule_curl_setopt_prereq_callback(CURL *handle, CURLoption option,
                                                              curl_prereq_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURL_PREREQFUNC_OK and CURL_PREREQFUNC_ABORT are macros Swift does not see as Int32. */
static inline int bookrule_curl_prereq_ok(void) { return CURL_PREREQFUNC_OK; }
static inline int bookrule_curl_prereq_abort(void) { return CURL_PREREQFUNC_ABORT; }

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

/// A libcurl share handle with one mutex per kind of shared data, so the easy handles of one transport share
/// the DNS cache and TLS sessions from any thread. Not the connection cache: libcurl does not support sharing
/// connections between concurrent threads (CURLSHOPT_SHARE(3)), and each transfer runs on a thread of its own;
/// each pooled handle's multi handle keeps its own connections alive instead. libcurl calls the lock callbacks
/// around every access; the mutexes live in the same allocation as the handle and are destroyed after it.
typedef struct bookrule_curl_share {
    CURLSH *handle;
    pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
} bookrule_curl_share;

static inline void bookrule_curl_share_lock(CURL *easy, curl_lock_data data, curl_lock_access access, void *user) {
    (void)easy;
    (void)access;
    bookrule_curl_share *share = (bookrule_curl_share *)user;
    if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_lock(&share->locks[data]);
}

static inline void bookrule_curl_share_unlock(CURL *easy, curl_lock_data data, void *user) {
    (void)easy;
    bookrule_curl_share *share = (bookrule_curl_share *)user;
    if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_unlock(&share->locks[data]);
}

/// Frees a share made by `bookrule_curl_share_new`; every easy handle using it must be cleaned up first.
static inline void bookrule_curl_share_free(bookrule_curl_share *share) {
    if (share == NULL) return;
    if (share->handle != NULL) curl_share_cleanup(share->handle);
    for (int index = 0; index < CURL_LOCK_DATA_LAST; index++) pthread_mutex_destroy(&share->locks[index]);
    free(share);
}

/// A share of DNS answers and TLS sessions, or NULL when libcurl or the system refuses one.
static inline bookrule_curl_share *bookrule_curl_share_new(void) {
    bookrule_curl_share *share = (bookrule_curl_share *)calloc(1, sizeof(bookrule_curl_share));
    if (share == NULL) return NULL;
    for (int index = 0; index < CURL_LOCK_DATA_LAST; index++) {
        if (pthread_mutex_init(&share->locks[index], NULL) != 0) {
            for (int done = 0; done < index; done++) pthread_mutex_destroy(&share->locks[done]);
            free(share);
            return NULL;
        }
    }
    share->handle = curl_share_init();
    int ok = share->handle != NULL
        && curl_share_setopt(share->handle, CURLSHOPT_LOCKFUNC, bookrule_curl_share_lock) == CURLSHE_OK
        && curl_share_setopt(share->handle, CURLSHOPT_UNLOCKFUNC, bookrule_curl_share_unlock) == CURLSHE_OK
        && curl_share_setopt(share->handle, CURLSHOPT_USERDATA, (void *)share) == CURLSHE_OK
        && curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) == CURLSHE_OK
        && curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) == CURLSHE_OK;
    if (!ok) {
        bookrule_curl_share_free(share);
        return NULL;
    }
    return share;
}

#endif
