/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_MSG_PRIV_H
#define LCA_MSG_PRIV_H

/* Envelopes (lca_msg.c) as the send path sees them. Private to the actor
 * core. */

#include "lca_actor_priv.h"

/* Count @p sent messages as the receiver's (or the pool's) from now on:
 * the running handler no longer owns the one it was given, if among them. */
static inline void
handed_over(struct actor_lcore *here, struct lca_msg **msgs, unsigned int sent)
{
	const struct lca_msg *current = here->current;

	/* Read once, and a search that stops: a reply with the envelope it
	 * was given (the common send from a handler) is one compare. */
	if (likely(current == NULL))
		return;
	for (unsigned int i = 0; i < sent; i++)
		if (msgs[i] == current) {
			here->current = NULL;
			return;
		}
}

#endif /* LCA_MSG_PRIV_H */
