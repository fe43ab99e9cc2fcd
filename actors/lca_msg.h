/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_MSG_H
#define LCA_MSG_H

/**
 * @file
 * Messages: envelopes, where they come from and go back to.
 *
 * An envelope is one cache line from the node pool of the lcore that
 * allocates it (its per-lcore cache first), with up to LCA_MSG_INLINE
 * bytes inline and a pointer for a larger payload or an rte_mbuf. Sending
 * one (lca_actor.h) hands it to the receiver; who frees it is said there.
 * This header is included by lca_actor.h.
 */

#include <stdint.h>

#include <rte_common.h>

#include "lca_api.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;
struct rte_mempool;

/** An actor's id: an index into the runtime's actor table. */
typedef uint32_t lca_actor_id_t;

/** "No actor": the sender of a message sent from outside any actor. */
#define LCA_ACTOR_NONE UINT32_MAX

/** Ids from here up (below LCA_ACTOR_NONE) are references to actors on
 *  other nodes (lca_remote.h); the local table never reaches them. */
#define LCA_ACTOR_REMOTE_BASE 0x80000000u

/** Bytes of payload carried inside an envelope. */
#define LCA_MSG_INLINE 40

/** Flags of an envelope. */
#define LCA_MSG_F_MBUF 0x01    /**< ptr is an rte_mbuf owned by the message. */
#define LCA_MSG_F_CONTROL 0x02 /**< It came by the control lane (lca_send_control()). */
#define LCA_MSG_F_DEADLINE 0x04 /**< It carries a deadline (lca_msg_set_deadline()). */

/** Inline bytes a message with a deadline can carry: the deadline takes
 *  the last 8 of data[]. */
#define LCA_MSG_INLINE_WITH_DEADLINE (LCA_MSG_INLINE - 8)

/**
 * A message envelope: one cache line from the sending lcore's node pool.
 * The payload is inline (up to LCA_MSG_INLINE bytes) and/or behind ptr
 * (a larger, immutable payload or an rte_mbuf, never copied).
 */
struct lca_msg {
	lca_actor_id_t from; /**< Sender, set by lca_send(). */
	lca_actor_id_t to;   /**< Receiver, set by lca_send(). */
	uint32_t type;       /**< The app's message type. */
	uint16_t len;        /**< Bytes used in data[]. */
	uint8_t pool;        /**< Index of the pool it came from (runtime's). */
	uint8_t flags;       /**< LCA_MSG_F_*. */
	void *ptr;           /**< Larger payload or rte_mbuf, never copied. */
	uint8_t data[LCA_MSG_INLINE]; /**< Inline payload. */
} __rte_cache_aligned;

/**
 * Allocate an envelope from the calling lcore's node pool (its per-lcore
 * cache first). from and to are LCA_ACTOR_NONE until lca_send() sets them;
 * type, len, flags and ptr are zero; data[] is not cleared.
 *
 * @param[out] msg
 *   The envelope.
 * @return
 *   0; -ENOMEM when the pool is empty (counted); -EINVAL before
 *   lca_runtime_init() or after lca_runtime_cleanup() (logged).
 */
LCA_API int lca_msg_alloc(struct lca_msg **msg);

/**
 * Allocate @p n envelopes at once; all or none.
 *
 * @return
 *   0; -ENOMEM (counted); -EINVAL when the runtime is not up (logged).
 */
LCA_API int lca_msg_alloc_bulk(struct lca_msg **msgs, unsigned int n);

/** Give an envelope back to its pool (and its mbuf, if it carries one). */
LCA_API void lca_msg_free(struct lca_msg *msg);

/**
 * Free @p n envelopes (and the mbufs they carry) with one pool operation
 * per run of envelopes from the same pool. NULL entries are skipped.
 */
LCA_API void lca_msg_free_bulk(struct lca_msg **msgs, unsigned int n);

/**
 * Keep the message being handled: the runtime will not free it when the
 * handler returns; the handler's actor must free or send it later.
 */
LCA_API void lca_msg_keep(struct lca_msg *msg);

/**
 * Give @p msg a deadline: if its receiver's turn comes after @p tsc (the
 * TSC, rte_rdtsc()), the runtime drops it unhandled and counts it in the
 * receiver's `expired`. The deadline rides in the last 8 bytes of data[],
 * so the message may carry at most LCA_MSG_INLINE_WITH_DEADLINE inline
 * bytes from then on; it crosses lcores with the message.
 *
 * @return
 *   0; -EINVAL (NULL); -EMSGSIZE when msg->len is above
 *   LCA_MSG_INLINE_WITH_DEADLINE.
 */
LCA_EXPERIMENTAL
LCA_API int lca_msg_set_deadline(struct lca_msg *msg, uint64_t tsc);

/**
 * lca_msg_set_deadline() @p us microseconds from now.
 *
 * @return
 *   As lca_msg_set_deadline(); -ERANGE when @p us is further than the
 *   64-bit TSC reaches from now (about 254 years at 2.3 GHz).
 */
LCA_EXPERIMENTAL
LCA_API int lca_msg_set_deadline_us(struct lca_msg *msg, uint64_t us);

/**
 * Wrap an rte_mbuf in an envelope without copying it: the envelope owns
 * the mbuf, and freeing the envelope frees the mbuf.
 *
 * @return
 *   0; -ENOMEM.
 */
LCA_EXPERIMENTAL
LCA_API int lca_msg_from_mbuf(struct rte_mbuf *m, struct lca_msg **msg);

/**
 * Wrap @p n mbufs in @p n envelopes with one pool operation; all or none.
 * msgs[i] carries m[i] and has type 0 and len 0.
 *
 * @return
 *   0; -EINVAL for a NULL array or mbuf; -ENOMEM when the pool has fewer
 *   than @p n envelopes (counted): the mbufs stay the caller's.
 */
LCA_EXPERIMENTAL
LCA_API int lca_msg_from_mbuf_bulk(struct rte_mbuf **m, struct lca_msg **msgs, unsigned int n);

/**
 * Take the mbuf out of an envelope: the caller owns the mbuf from now on,
 * and the envelope (still the caller's) no longer frees it.
 *
 * @return
 *   The mbuf; NULL when @p msg is NULL or carries none.
 */
LCA_EXPERIMENTAL
LCA_API struct rte_mbuf *lca_msg_detach_mbuf(struct lca_msg *msg);

/**
 * Take the mbufs out of @p n envelopes and free the envelopes, in bulk:
 * what a TX stage does before rte_eth_tx_burst(). An envelope without an
 * mbuf is freed and contributes none, so the mbufs stay in message order.
 *
 * @param[out] mbufs
 *   Room for @p n mbufs.
 * @return
 *   How many mbufs were written to @p mbufs.
 */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_msg_to_mbuf_bulk(struct lca_msg **msgs, struct rte_mbuf **mbufs,
					  unsigned int n);

/*
 * Payloads larger than an envelope's inline bytes, by value (EXPERIMENTAL;
 * actors/lca_payload.c). See docs/api.md, "Payloads larger than a slot".
 */

/**
 * A new envelope holding a copy of @p len bytes of @p buf: inline when they
 * fit (LCA_MSG_INLINE), else in an mbuf chain from @p mp that the envelope
 * owns (LCA_MSG_F_MBUF, len 0). The receiver owns the copy, locally (the
 * mbuf goes by pointer) as on another node (its bytes cross in frames, the
 * large lane past a frame; lca_remote.h): the same send serves both. Read
 * it with lca_msg_payload_len() and lca_msg_payload_read().
 *
 * @param mp
 *   A pktmbuf pool (rte_pktmbuf_pool_create()); NULL when @p len fits
 *   inline.
 * @param[out] msg
 *   The envelope, the caller's.
 * @return
 *   0; -EINVAL (NULL @p msg, NULL @p buf with @p len > 0, or NULL @p mp
 *   for bytes that do not fit inline); -ENOMEM (no envelope or too few
 *   mbufs: nothing is kept); -EOVERFLOW (more segments than an mbuf chain
 *   holds).
 */
LCA_EXPERIMENTAL
LCA_API int lca_msg_from_bytes(struct rte_mempool *mp, const void *buf, uint32_t len,
			       struct lca_msg **msg);

/**
 * Bytes of a message's payload: its mbuf's pkt_len, else msg->len.
 *
 * @return
 *   The bytes; 0 for NULL.
 */
LCA_EXPERIMENTAL
LCA_API uint32_t lca_msg_payload_len(const struct lca_msg *msg);

/**
 * @p len bytes of a message's payload from @p off, as rte_pktmbuf_read():
 * a pointer into the message where they are contiguous, else into @p buf
 * after a copy.
 *
 * @param buf
 *   Room for @p len bytes, used when they span mbuf segments.
 * @return
 *   The bytes; NULL when [off, off + len) is past the payload, or for NULL.
 */
LCA_EXPERIMENTAL
LCA_API const void *lca_msg_payload_read(const struct lca_msg *msg, uint32_t off, uint32_t len,
					 void *buf);

#ifdef __cplusplus
}
#endif

#endif /* LCA_MSG_H */
