/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_REMOTE_RECORD_PRIV_H
#define LCA_REMOTE_RECORD_PRIV_H

/* The message records of docs/wire.md, which both transports pack: the
 * ethdev transport into frames (lca_remote_wire_priv.h), UCX into buffers. Every
 * multi-byte field is in network byte order. */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "lca_actor.h"

/* Message record flags. */
#define WIRE_MSG_F_MBUF 0x0001 /* the payload came from an mbuf: it arrives in one */
#define WIRE_MSG_F_FRAG 0x0002 /* a fragment of a large message (large lane only):
				* the payload starts with struct wire_frag */
#define WIRE_MSG_F_ASK 0x0004  /* an ask (LCA_MSG_F_ASK): the payload starts with
				* its 8-byte request id */
#define WIRE_MSG_F_REPLY 0x0008 /* a reply to an ask (LCA_MSG_F_REPLY): the same id */
#define WIRE_MSG_F_ID (WIRE_MSG_F_ASK | WIRE_MSG_F_REPLY)
#define WIRE_MSG_F_KNOWN (WIRE_MSG_F_MBUF | WIRE_MSG_F_FRAG | WIRE_MSG_F_ID)

/* The request id of an ask or a reply, before its payload and counted in
 * the record's len: a receiver puts it back in data[24..32) (the core's
 * place for it, LCA_MSG_INLINE_ASK), so the inline part is at most
 * LCA_MSG_INLINE_ASK bytes. */
#define WIRE_ID_LEN 8

/* Before a fragment's bytes: the whole message's length and this
 * fragment's offset in it. */
struct wire_frag {
	uint32_t total;
	uint32_t offset;
} __rte_packed;

#define WIRE_FRAG_LEN 8

struct wire_msg {
	uint32_t to;
	uint32_t from;
	uint32_t type;
	uint16_t len;
	uint16_t flags;
} __rte_packed;

#define WIRE_MSG_LEN 16
_Static_assert(sizeof(struct wire_msg) == WIRE_MSG_LEN, "record header is 16 bytes");

/* A record's bytes: its header and its payload, padded to 4. */
static inline uint32_t
wire_rec_len(uint32_t payload)
{
	return WIRE_MSG_LEN + ((payload + 3u) & ~3u);
}

/* The id bytes @p msg's record carries before its payload: WIRE_ID_LEN for
 * an ask or a reply, else 0. */
static inline uint32_t
wire_id_len(const struct lca_msg *msg)
{
	return (msg->flags & (LCA_MSG_F_ASK | LCA_MSG_F_REPLY)) ? WIRE_ID_LEN : 0;
}

/* Check @p n records in @p len bytes at @p rec: every length, the flags,
 * fragments only in the large lane (@p large), and nothing after the last.
 * @return 0 or -EBADMSG. */
int wire_records_check(const uint8_t *rec, uint32_t len, unsigned int n, bool large);

/* Write @p msg's record (to and from already in wire form: a local id on
 * the destination node, a remote reference or LCA_ACTOR_NONE) at @p dst;
 * an mbuf payload is copied out of its segments, an ask's or a reply's id
 * (data[24..32)) written before it. @return the record's bytes. */
uint32_t wire_rec_write(uint8_t *dst, uint32_t to, uint32_t from, const struct lca_msg *msg);

#endif /* LCA_REMOTE_RECORD_PRIV_H */
