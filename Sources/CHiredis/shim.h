// hiredis (0.14) for the one Redis client (Redis, the only Swift module that imports it).
// redisCommand is variadic, which Swift cannot call: the client uses redisCommandArgv only.
#ifndef INTERLUDE_CHIREDIS_SHIM_H
#define INTERLUDE_CHIREDIS_SHIM_H
#include <sys/time.h>
#include <hiredis/hiredis.h>

static const int interlude_redis_reply_string = REDIS_REPLY_STRING;
static const int interlude_redis_reply_array = REDIS_REPLY_ARRAY;
static const int interlude_redis_reply_integer = REDIS_REPLY_INTEGER;
static const int interlude_redis_reply_nil = REDIS_REPLY_NIL;
static const int interlude_redis_reply_status = REDIS_REPLY_STATUS;
static const int interlude_redis_reply_error = REDIS_REPLY_ERROR;
#endif
