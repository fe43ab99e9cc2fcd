/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_DEADLINE_PRIV_H
#define LCA_DEADLINE_PRIV_H

/* Deadlines of messages (lca_deadline.c). Private to the actor core. */

#include "lca_actor_priv.h"

/* Where a message's deadline is (lca_msg_set_deadline()). */
static inline uint64_t
msg_deadline(const struct lca_msg *m)
{
	uint64_t tsc;

	memcpy(&tsc, &m->data[LCA_MSG_INLINE_WITH_DEADLINE], sizeof(tsc));
	return tsc;
}

/* Whether a deadline was ever set (lca_msg_set_deadline()): until then a
 * turn does not look at its messages' flags for one. Never cleared: a
 * message with a deadline may outlive a runtime. */
extern bool deadlines_used;

/* Drop the messages of @p msgs[0..n) that are past their deadline,
 * counted on @p a; the rest close up, in order. @return how many are
 * left. Only called when one of them has a deadline. */
unsigned int deadlines_filter(struct lca_actor *a, struct lca_msg **msgs, unsigned int n);

#endif /* LCA_DEADLINE_PRIV_H */
