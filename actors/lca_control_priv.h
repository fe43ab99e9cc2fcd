/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_CONTROL_PRIV_H
#define LCA_CONTROL_PRIV_H

/* The control lane (lca_control.c). Private to the actor core. */

#include "lca_actor_priv.h"

/* Whether @p a has messages in its control lane. */
static inline bool
actor_has_control(const struct lca_actor *a)
{
	const struct rte_ring *c = __atomic_load_n(&a->control, __ATOMIC_ACQUIRE);

	return unlikely(c != NULL) && !ring_empty(c);
}

/* Control lane (lca_control.c): on the actor's home lcore, a CTL_WAKE. */
void control_wake(struct lca_actor *a, unsigned int lcore_id);
/* lca_send_control() on behalf of @p from. */
int control_send_from(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg *msg);

#endif /* LCA_CONTROL_PRIV_H */
