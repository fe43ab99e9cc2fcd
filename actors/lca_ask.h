/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_ASK_H
#define LCA_ASK_H

/**
 * @file
 * Ask with a timeout, and names (EXPERIMENTAL; actors/lca_ask.c,
 * actors/lca_registry.c). See docs/api.md, "Ask and names". Included by
 * lca_actor.h.
 */

#include <stdint.h>

#include "lca_actor.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The message carries a request id: it is an ask (lca_ask()). */
#define LCA_MSG_F_ASK 0x08
/** The message carries a request id: it is a reply to an ask
 *  (lca_ask_reply(), lca_reply()) or the ask's LCA_TYPE_TIMEOUT. */
#define LCA_MSG_F_REPLY 0x10

/** Inline bytes an ask, or a reply to one, may carry: the request id takes
 *  data[24..32), so that the deadline's last 8 bytes stay free. */
#define LCA_MSG_INLINE_ASK 24

/** Asks one actor may have waiting for their reply at once, unless
 *  lca_ask_pending_max_set() gave it more (or fewer). */
#define LCA_ASK_PENDING_MAX 64

/** The most lca_ask_pending_max_set() allows. */
#define LCA_ASK_PENDING_LIMIT 4096

/** To an asker's control lane: an ask got no reply in time; data is a
 *  struct lca_timeout, and lca_msg_req_id() gives the ask's id. */
#define LCA_TYPE_TIMEOUT (LCA_TYPE_SYSTEM + 3)

/** The payload of LCA_TYPE_TIMEOUT. */
struct lca_timeout {
	uint64_t req_id;       /**< The ask's id, as lca_ask() gave it. */
	lca_actor_id_t target; /**< Who was asked. */
	uint32_t msg_type;     /**< The type of the ask. */
	uint8_t head[8];       /**< The ask's data[0..8) as it was sent: what
				*   the asker put there to know which of its
				*   asks this was, with no table of ids. */
};

/** Counters of the asks, runtime-wide. */
struct lca_ask_stats {
	uint64_t asked;     /**< Asks sent. */
	uint64_t replied;   /**< Replies that came in time, given to the asker. */
	uint64_t timed_out; /**< LCA_TYPE_TIMEOUT notices given to the asker. */
	uint64_t late;      /**< Replies that came after their ask ended
			     *   (timed out or cancelled): dropped before
			     *   the handler. */
	uint64_t full;      /**< Asks refused with -ENOSPC: as many of the
			     *   asker's as it may have were waiting. */
	uint32_t pending;   /**< Asks waiting now. */
	uint64_t cancelled; /**< Asks ended by lca_ask_cancel(). */
};

/**
 * Send @p msg to @p to as a request that wants one reply within
 * @p timeout_us microseconds. Either the reply reaches @p from's handler,
 * with LCA_MSG_F_REPLY in its flags and lca_msg_req_id() equal to
 * *@p req_id, or an LCA_TYPE_TIMEOUT message (a struct lca_timeout) with
 * that id reaches @p from's control lane, never both: a reply that comes
 * after the timeout is dropped before the handler and counted (`late`).
 * The timeout is a one-shot timer (lca_send_after()), cancelled when the
 * reply comes. The receiver answers with lca_reply() (the same envelope)
 * or lca_ask_reply() (a new one). The request id rides in data[24..32),
 * so @p msg may carry at most LCA_MSG_INLINE_ASK inline bytes (or an
 * mbuf). An actor stopped while it has asks waiting gets no notice for
 * them.
 *
 * A target known dead (no such actor, or stopped) is an immediate error
 * and no timeout follows; a target that stops after the ask took the
 * request leaves the asker with its timeout.
 *
 * Call it from @p from's handler, or from a runtime lcore or registered
 * thread (the timer is armed on the calling lcore).
 *
 * @param from
 *   The asker: a live local actor, which gets the reply or the timeout.
 * @param to
 *   The actor asked: a local actor or a remote reference (the wire
 *   carries the request id, docs/wire.md).
 * @param msg
 *   The request; @p to's from a 0 return on, still the caller's on error.
 * @param timeout_us
 *   Microseconds to wait for the reply, at least 1.
 * @param[out] req_id
 *   The ask's id (never 0); may be NULL.
 * @return
 *   0; -EINVAL (NULL @p msg, a zero timeout, @p from not a local actor);
 *   -ESRCH or -EPIPE (@p from or @p to is not an actor, or stopped);
 *   -EMSGSIZE (msg->len above LCA_MSG_INLINE_ASK); -ENOSPC
 *   (LCA_ASK_PENDING_MAX asks of @p from are waiting, or the number
 *   lca_ask_pending_max_set() gave it, counted in `full`,
 *   or the timers are all armed); -EMSGSIZE also for an mbuf that needs
 *   a remote node's large lane (it carries no id); -EHOSTDOWN (@p to's
 *   node is down); -ENOTSUP (the runtime is not up);
 *   -ENOMEM; -ENOBUFS (the mailbox is full); an error of lca_send_after()
 *   (-EPERM from a thread without an EAL lcore id, -ERANGE).
 */
LCA_EXPERIMENTAL
LCA_API int lca_ask(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg *msg,
		    uint64_t timeout_us, uint64_t *req_id);

/**
 * Answer the ask @p request (being handled) with @p reply, a new envelope:
 * it goes to the asker with the ask's id and LCA_MSG_F_REPLY. To answer
 * with the request's own envelope, lca_reply() does the same. @p reply
 * may carry at most LCA_MSG_INLINE_ASK inline bytes (or an mbuf).
 *
 * @return
 *   As lca_send(); -EINVAL also when @p request is not an ask (no
 *   LCA_MSG_F_ASK); -EMSGSIZE when reply->len is above LCA_MSG_INLINE_ASK.
 */
LCA_EXPERIMENTAL
LCA_API int lca_ask_reply(const struct lca_msg *request, struct lca_msg *reply);

/**
 * The request id of an ask, of a reply to one, or of an LCA_TYPE_TIMEOUT.
 *
 * @return
 *   The id; 0 when @p msg is NULL or carries none.
 */
LCA_EXPERIMENTAL
LCA_API uint64_t lca_msg_req_id(const struct lca_msg *msg);

/**
 * Let @p asker have up to @p max asks waiting at once, instead of
 * LCA_ASK_PENDING_MAX: a front end that asks once per open connection
 * needs one per connection. The table is made now, on @p asker's socket,
 * rounded up to a power of two; call it before @p asker's first ask (its
 * init function is the place).
 *
 * @return
 *   0 (also when the table already has that size); -EINVAL (@p max 0 or
 *   above LCA_ASK_PENDING_LIMIT, a remote reference); -ESRCH (no such
 *   actor); -EBUSY (@p asker already asked, or was given another size);
 *   -ENOTSUP (the runtime is not up); -ENOMEM.
 */
LCA_EXPERIMENTAL
LCA_API int lca_ask_pending_max_set(lca_actor_id_t asker, unsigned int max);

/**
 * End the ask @p req_id of @p asker without a reply: neither its reply nor
 * its LCA_TYPE_TIMEOUT reaches @p asker's handler after this returns 0 (a
 * reply that comes is dropped and counted `late`). For an asker that no
 * longer wants the answer: the client that asked has gone. Call it where
 * lca_ask() may be called.
 *
 * @return
 *   0 (counted `cancelled`); -EINVAL (@p req_id is not one of @p asker's);
 *   -ENOENT (not waiting: it was answered, timed out or cancelled).
 */
LCA_EXPERIMENTAL
LCA_API int lca_ask_cancel(lca_actor_id_t asker, uint64_t req_id);

/** The asks' counters (also in telemetry /lcactor/info as ask_*). */
LCA_EXPERIMENTAL
LCA_API void lca_ask_stats_get(struct lca_ask_stats *out);

/** Bytes of a registered name, its final NUL included. */
#define LCA_ACTOR_NAME_MAX 32

/**
 * Give the live local actor @p id the name @p name, for lca_actor_lookup()
 * from any lcore or thread. An actor has at most one name; the name goes
 * when the actor stops (or by lca_actor_unregister()). This is not the
 * spec's name (lca_actor_name()), which need not be unique.
 *
 * @return
 *   0; -EINVAL (NULL or empty name); -ENAMETOOLONG (LCA_ACTOR_NAME_MAX
 *   bytes or more, the NUL included); -ESRCH (no such live actor);
 *   -EEXIST (the name is a live actor's); -EALREADY (@p id has a name);
 *   -ENOSPC (as many names as lca_runtime_conf.max_actors); -ENOTSUP (the
 *   runtime is not up).
 */
LCA_EXPERIMENTAL
LCA_API int lca_actor_register(const char *name, lca_actor_id_t id);

/**
 * Take the name @p name away from its actor.
 *
 * @return
 *   0; -EINVAL; -ENAMETOOLONG; -ENOENT (no such name); -ENOTSUP (the
 *   runtime is not up).
 */
LCA_EXPERIMENTAL
LCA_API int lca_actor_unregister(const char *name);

/**
 * The live actor named @p name. From any lcore or thread.
 *
 * @param[out] id
 *   Its id; LCA_ACTOR_NONE when there is none.
 * @return
 *   0; -EINVAL (NULL name or @p id); -ENAMETOOLONG; -ENOENT (no live
 *   actor has the name); -ENOTSUP (the runtime is not up).
 */
LCA_EXPERIMENTAL
LCA_API int lca_actor_lookup(const char *name, lca_actor_id_t *id);

#ifdef __cplusplus
}
#endif

#endif /* LCA_ASK_H */
