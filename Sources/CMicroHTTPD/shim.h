#ifndef BOOKRULE_CMICROHTTPD_SHIM_H
#define BOOKRULE_CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <microhttpd.h>

#ifndef POLLRDHUP
#define POLLRDHUP 0x2000 /* Linux: the peer closed its end (poll.h defines it only with _GNU_SOURCE) */
#endif

/* MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call: these fixed-signature
   wrappers are the only way the servers start a daemon or asks for its port. */

/* Starts a daemon listening on address:port (an IPv4 or IPv6 literal; port 0 picks a free one) with
   pool_threads polling threads over epoll (1: one), WebSocket upgrades allowed, connections that a handler may suspend while a request is
   answered on another thread (so a request waiting for a site stalls no other), at most connection_limit
   connections, idle connections closed after timeout_seconds, notify told when a connection opens and closes.
   NULL when the address is not an IP literal or the daemon cannot listen. The sockaddr lives on this stack
   frame: libmicrohttpd only reads it while binding, inside this call. */
static inline struct MHD_Daemon *bookrule_mhd_start(const char *address_text, uint16_t port,
                                                    unsigned int connection_limit, unsigned int timeout_seconds,
                                                    unsigned int pool_threads,
                                                    MHD_AccessHandlerCallback handler, void *context,
                                                    MHD_RequestCompletedCallback completed,
                                                    MHD_NotifyConnectionCallback notify) {
    struct sockaddr_storage storage;
    memset(&storage, 0, sizeof storage);
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_ALLOW_UPGRADE;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&storage;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&storage;
    if (inet_pton(AF_INET, address_text, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
    } else if (inet_pton(AF_INET6, address_text, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        flags |= MHD_USE_IPv6;
    } else {
        return NULL;
    }
    return MHD_start_daemon(flags, port, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&storage,
                            MHD_OPTION_THREAD_POOL_SIZE, pool_threads > 1 ? pool_threads : 0,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, context,
                            MHD_OPTION_END);
}

/* The port the daemon is bound to (0 when libmicrohttpd cannot say). */
static inline uint16_t bookrule_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/* The socket of a connection (-1 when libmicrohttpd cannot say); MHD_get_connection_info is variadic too. */
static inline int bookrule_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* Whether the peer of a connected socket has closed (or half-closed) its end or the socket failed, without
   reading or waiting: pending request bytes do not hide it. */
static inline int bookrule_socket_peer_closed(int fd) {
    struct pollfd entry = { fd, POLLRDHUP, 0 };
    return poll(&entry, 1, 0) > 0 && (entry.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* Ends both directions of a connection's socket (libmicrohttpd's thread then sees the end and closes it). */
static inline void bookrule_socket_shutdown(int fd) { shutdown(fd, SHUT_RDWR); }

/* Gives an upgraded connection's socket back to libmicrohttpd, which closes it (MHD_upgrade_action is variadic). */
static inline enum MHD_Result bookrule_mhd_upgrade_close(struct MHD_UpgradeResponseHandle *urh) {
    return MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}

/* A response holding a copy of count bytes (libmicrohttpd frees its copy). */
static inline struct MHD_Response *bookrule_mhd_response_copying(const void *bytes, size_t count) {
    return MHD_create_response_from_buffer(count, (void *)bytes, MHD_RESPMEM_MUST_COPY);
}

/* MHD_Result and MHD_ValueKind are closed enums whose Swift names depend on the importer's prefix stripping;
   these give the values the server uses one spelling. */
static inline enum MHD_Result bookrule_mhd_yes(void) { return MHD_YES; }
static inline enum MHD_Result bookrule_mhd_no(void) { return MHD_NO; }
static inline enum MHD_ValueKind bookrule_mhd_header_kind(void) { return MHD_HEADER_KIND; }
static inline enum MHD_ValueKind bookrule_mhd_cookie_kind(void) { return MHD_COOKIE_KIND; }
static inline enum MHD_ValueKind bookrule_mhd_argument_kind(void) { return MHD_GET_ARGUMENT_KIND; }
static inline int bookrule_mhd_is_connection_start(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

#endif
