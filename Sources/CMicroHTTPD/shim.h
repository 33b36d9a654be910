// libmicrohttpd (0.9.75) for the one HTTP server (HTTPServer, the only Swift module that imports
// it). MHD_start_daemon, MHD_get_connection_info and ioctl are variadic, which Swift cannot call:
// typed wrappers; MHD's unions read in C; and the few socket and epoll calls of the server's
// connection gate (its own listening socket, in front of libmicrohttpd), whose structures Swift
// imports awkwardly (epoll_event is packed, sockaddr_in is cast).
#ifndef INTERLUDE_CMICROHTTPD_SHIM_H
#define INTERLUDE_CMICROHTTPD_SHIM_H
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

// libmicrohttpd's enums are closed (imported as Swift enums with their prefix cut): the values
// the server uses, under one spelling.
static const enum MHD_Result interlude_mhd_yes = MHD_YES;
static const enum MHD_Result interlude_mhd_no = MHD_NO;
static const enum MHD_ValueKind interlude_mhd_header_kind = MHD_HEADER_KIND;
static const enum MHD_ValueKind interlude_mhd_argument_kind = MHD_GET_ARGUMENT_KIND;
static const enum MHD_ResponseMemoryMode interlude_mhd_must_copy = MHD_RESPMEM_MUST_COPY;
static const enum MHD_ConnectionNotificationCode interlude_mhd_connection_started = MHD_CONNECTION_NOTIFY_STARTED;

/// Starts a daemon without a listening socket of its own (the server's gate accepts and hands
/// each connection over with `interlude_mhd_add`), with its own thread pool, connection limit,
/// idle timeout (seconds), per-connection memory (bounds the request line and headers), and
/// the callbacks: requests, their completion, connections' start and close, and each request's
/// target before libmicrohttpd parses its query. NULL when it cannot start.
static inline struct MHD_Daemon *interlude_mhd_start(unsigned int threads, unsigned int connectionLimit,
                                                     unsigned int timeoutSeconds, size_t connectionMemory,
                                                     MHD_AccessHandlerCallback handler, void *handlerContext,
                                                     MHD_RequestCompletedCallback completed, void *completedContext,
                                                     MHD_NotifyConnectionCallback notify, void *notifyContext,
                                                     void *(*target)(void *, const char *, struct MHD_Connection *),
                                                     void *targetContext) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME
                       | MHD_USE_NO_LISTEN_SOCKET;
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handlerContext,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_LIMIT, connectionLimit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connectionMemory,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completedContext,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notifyContext,
                            MHD_OPTION_URI_LOG_CALLBACK, target, targetContext,
                            MHD_OPTION_END);
}

/// Hands an accepted connection (non-blocking) from IPv4 `address`:`port` (network order) to the
/// daemon, which owns the descriptor from here (and has closed it when this returns 0).
static inline int interlude_mhd_add(struct MHD_Daemon *daemon, int fd, uint32_t address, uint16_t port) {
    struct sockaddr_in peer;
    memset(&peer, 0, sizeof peer);
    peer.sin_family = AF_INET;
    peer.sin_addr.s_addr = address;
    peer.sin_port = port;
    return MHD_add_connection(daemon, fd, (const struct sockaddr *)&peer, sizeof peer) == MHD_YES;
}

/// A connection's socket; -1 when unknown.
static inline int interlude_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// A connection's peer IPv4 address (network order); 0 when unknown or not IPv4.
static inline uint32_t interlude_mhd_connection_ipv4(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || info->client_addr->sa_family != AF_INET) return 0;
    return ((const struct sockaddr_in *)info->client_addr)->sin_addr.s_addr;
}

/// The pointer the server keeps with a connection (set when it started); NULL when none.
static inline void *interlude_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// A listening TCP socket (non-blocking, close-on-exec, SO_REUSEADDR and SO_REUSEPORT) on IPv4
/// `host` (dotted quad) and `port` (0: any free one, written back to `*bound`); -1 with errno
/// set when the address is invalid (EINVAL) or cannot be bound.
static inline int interlude_listen(const char *host, uint16_t port, int backlog, uint16_t *bound) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    if (inet_pton(AF_INET, host, &address.sin_addr) != 1) { errno = EINVAL; return -1; }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int on = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on);
    socklen_t length = sizeof address;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(fd, backlog) != 0
        || getsockname(fd, (struct sockaddr *)&address, &length) != 0) {
        int e = errno; close(fd); errno = e; return -1;
    }
    *bound = ntohs(address.sin_port);
    return fd;
}

/// Accepts one connection (non-blocking, close-on-exec): its descriptor and the peer's IPv4
/// address and port (network order); -1 with errno set (EAGAIN when none is waiting).
static inline int interlude_accept(int listener, uint32_t *address, uint16_t *port) {
    struct sockaddr_in peer;
    socklen_t length = sizeof peer;
    int fd = accept4(listener, (struct sockaddr *)&peer, &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return -1;
    *address = peer.sin_family == AF_INET ? peer.sin_addr.s_addr : 0;
    *port = peer.sin_family == AF_INET ? peer.sin_port : 0;
    return fd;
}

/// Bytes waiting to be read on a socket; -1 on error.
static inline int interlude_readable_bytes(int fd) {
    int n = 0;
    return ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}

/// Closes a socket with a reset (SO_LINGER 0): no TIME_WAIT, nothing more sent.
static inline void interlude_abort_socket(int fd) {
    struct linger l = { 1, 0 };
    (void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    close(fd);
}

/// Adds `fd` to an epoll set for `events`, with `token` as its data; 0 on success.
static inline int interlude_epoll_add(int epoll, int fd, uint32_t events, uint64_t token) {
    struct epoll_event e;
    memset(&e, 0, sizeof e);
    e.events = events;
    e.data.u64 = token;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &e);
}

/// Removes `fd` from an epoll set.
static inline int interlude_epoll_remove(int epoll, int fd) {
    struct epoll_event e;
    memset(&e, 0, sizeof e);
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &e);
}

/// Waits up to `timeoutMs` for at most `capacity` events: their tokens and event bits; how many
/// (0 on timeout, -1 with errno set).
static inline int interlude_epoll_wait(int epoll, uint64_t *tokens, uint32_t *events, int capacity, int timeoutMs) {
    struct epoll_event batch[256];
    if (capacity > 256) capacity = 256;
    int n = epoll_wait(epoll, batch, capacity, timeoutMs);
    for (int i = 0; i < n; i++) { tokens[i] = batch[i].data.u64; events[i] = batch[i].events; }
    return n;
}

/// An eventfd (non-blocking, close-on-exec) to wake an epoll wait with; -1 on error.
static inline int interlude_wake_fd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

static const uint32_t interlude_epoll_in = EPOLLIN;
static const uint32_t interlude_epoll_edge = EPOLLET;
static const uint32_t interlude_epoll_hangup = EPOLLRDHUP | EPOLLHUP | EPOLLERR;
#endif
