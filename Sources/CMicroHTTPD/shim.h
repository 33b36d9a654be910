// libmicrohttpd (0.9.75) for the one HTTP server (HTTPServer, the only Swift module that imports
// it). MHD_start_daemon is variadic, which Swift cannot call: one typed wrapper that passes the
// options the server uses; and MHD_get_daemon_info's union, read in C.
#ifndef INTERLUDE_CMICROHTTPD_SHIM_H
#define INTERLUDE_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
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

/// Starts a daemon on IPv4 `host` (dotted quad) and `port` (0: any free port) with its own
/// thread pool, connection limit, idle timeout (seconds) and per-connection memory (bounds the
/// request line and headers); NULL when the address is invalid or cannot be bound.
static inline struct MHD_Daemon *interlude_mhd_start(const char *host, uint16_t port, unsigned int threads,
                                                     unsigned int connectionLimit, unsigned int timeoutSeconds,
                                                     size_t connectionMemory,
                                                     MHD_AccessHandlerCallback handler, void *handlerContext,
                                                     MHD_RequestCompletedCallback completed, void *completedContext) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    if (inet_pton(AF_INET, host, &address.sin_addr) != 1) return NULL;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME;
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handlerContext,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_LIMIT, connectionLimit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connectionMemory,
                            MHD_OPTION_LISTENING_ADDRESS_REUSE, 1u,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completedContext,
                            MHD_OPTION_END);
}

/// The port the daemon listens on (the one chosen when started on port 0); 0 when unknown.
static inline uint16_t interlude_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// Open connections (kept-alive ones included).
static inline unsigned int interlude_mhd_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}
#endif
