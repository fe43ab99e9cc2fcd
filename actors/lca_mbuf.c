/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packets as messages: an envelope owns an rte_mbuf through ptr, so a
 * packet crosses lcores without a copy, and a TX stage takes the mbufs back
 * out in bursts for the driver.
 */
#include <errno.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lca_actor_priv.h"
#include "lca_mempool.h"

int
lca_msg_from_mbuf_bulk(struct rte_mbuf **m, struct lca_msg **msgs, unsigned int n)
{
	int ret;

	if (m == NULL || msgs == NULL)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++)
		if (m[i] == NULL)
			return -EINVAL;
	ret = lca_msg_alloc_bulk(msgs, n);
	if (ret < 0)
		return ret;
	for (unsigned int i = 0; i < n; i++) {
		msgs[i]->ptr = m[i];
		msgs[i]->flags = LCA_MSG_F_MBUF;
	}
	return 0;
}

int
lca_msg_from_mbuf(struct rte_mbuf *m, struct lca_msg **msg)
{
	if (msg == NULL)
		return -EINVAL;
	return lca_msg_from_mbuf_bulk(&m, msg, 1);
}

struct rte_mbuf *
lca_msg_detach_mbuf(struct lca_msg *msg)
{
	struct rte_mbuf *m;

	if (msg == NULL || !(msg->flags & LCA_MSG_F_MBUF))
		return NULL;
	m = msg->ptr;
	msg->ptr = NULL;
	msg->flags &= (uint8_t)~LCA_MSG_F_MBUF;
	return m;
}

unsigned int
lca_msg_to_mbuf_bulk(struct lca_msg **msgs, struct rte_mbuf **mbufs, unsigned int n)
{
	unsigned int out = 0;

	if (msgs == NULL || mbufs == NULL)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = lca_msg_detach_mbuf(msgs[i]);

		if (m != NULL)
			mbufs[out++] = m;
	}
	lca_msg_free_bulk(msgs, n);
	return out;
}
