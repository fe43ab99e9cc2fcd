/* SPDX-License-Identifier: BSD-3-Clause */
/* What the core lends the parts that route messages beyond this process
 * (actors/remote): a route for remote references, a burst sent on behalf
 * of a remote sender, and the count of a send that failed. Nothing else
 * of the core's interior is theirs to include. */
#ifndef LCA_ROUTE_PRIV_H
#define LCA_ROUTE_PRIV_H

#include "lca_actor.h"

/* Count a failed send: on the sending actor and in the runtime's causes. */
void send_failed(int err);

/* A burst on behalf of @p from (a remote sender, as the record named it):
 * lca_send_burst(), or with @p rtc lca_send_burst_rtc(). */
unsigned int send_burst_from(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg **msgs,
			     unsigned int n, bool rtc, int *err);

/* Sends to ids the local table does not hold go here when set: the remote
 * part (actors/remote) takes LCA_ACTOR_REMOTE_BASE and up. As
 * send_burst_here(): returns how many were sent, *err why not all. */
typedef unsigned int (*remote_send_fn)(lca_actor_id_t from, lca_actor_id_t to,
				       struct lca_msg **msgs, unsigned int n, int *err);
extern remote_send_fn remote_send_hook;

#endif
