/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Payloads larger than an envelope's inline bytes, by value: a copy into
 * an mbuf chain that the envelope owns. Locally the chain goes by pointer
 * (the receiver owns it, as it owns any mbuf message); to another node the
 * remote part copies an mbuf payload into frames and gives the receiver an
 * mbuf again (lca_remote.h), so one call serves both. An mbuf rather than
 * chained envelopes: the remote part already carries mbufs of any size
 * (the large lane), and a port's handler already reads them.
 */
#define LCA_LOG_PART lca_logtype_actor
#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

#include "lca_actor.h"
#include "lca_refuse_priv.h"

/* An mbuf chain holding @p len bytes of @p buf, or NULL (*err says why). */
static struct rte_mbuf *
chain_of(struct rte_mempool *mp, const uint8_t *buf, uint32_t len, int *err)
{
	struct rte_mbuf *head = NULL;
	uint32_t done = 0;

	*err = -ENOMEM;
	while (done < len) {
		struct rte_mbuf *seg = rte_pktmbuf_alloc(mp);
		uint16_t n;

		if (seg == NULL)
			break;
		n = (uint16_t)RTE_MIN((uint32_t)rte_pktmbuf_tailroom(seg), len - done);
		memcpy(rte_pktmbuf_append(seg, n), buf + done, n);
		done += n;
		if (head == NULL) {
			head = seg;
		} else if (rte_pktmbuf_chain(head, seg) != 0) {
			rte_pktmbuf_free(seg);
			*err = -EOVERFLOW;
			break;
		}
	}
	if (done == len)
		return head;
	rte_pktmbuf_free(head);
	return NULL;
}

static int
from_bytes(struct rte_mempool *mp, const void *buf, uint32_t len, struct lca_msg **msg)
{
	struct rte_mbuf *m;
	int ret;

	if (msg == NULL || (buf == NULL && len > 0))
		return -EINVAL;
	if (len <= LCA_MSG_INLINE) {
		ret = lca_msg_alloc(msg);
		if (ret == 0) {
			if (len > 0)
				memcpy((*msg)->data, buf, len);
			(*msg)->len = (uint16_t)len;
		}
		return ret;
	}
	if (mp == NULL)
		return -EINVAL;
	m = chain_of(mp, buf, len, &ret);
	if (m == NULL)
		return ret;
	ret = lca_msg_from_mbuf(m, msg);
	if (ret < 0)
		rte_pktmbuf_free(m);
	return ret;
}

int
lca_msg_from_bytes(struct rte_mempool *mp, const void *buf, uint32_t len, struct lca_msg **msg)
{
	int ret = from_bytes(mp, buf, len, msg);

	return ret < 0 ? LCA_REFUSED(NOTICE, "lca_msg_from_bytes", lca_actor_self(), ret) : 0;
}

uint32_t
lca_msg_payload_len(const struct lca_msg *msg)
{
	if (msg == NULL)
		return 0;
	if (msg->flags & LCA_MSG_F_MBUF)
		return ((const struct rte_mbuf *)msg->ptr)->pkt_len;
	return msg->len;
}

const void *
lca_msg_payload_read(const struct lca_msg *msg, uint32_t off, uint32_t len, void *buf)
{
	if (msg == NULL)
		return NULL;
	if (msg->flags & LCA_MSG_F_MBUF)
		return rte_pktmbuf_read(msg->ptr, off, len, buf);
	if (off > msg->len || len > msg->len - off)
		return NULL;
	return &msg->data[off];
}
