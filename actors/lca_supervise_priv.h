/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_SUPERVISE_PRIV_H
#define LCA_SUPERVISE_PRIV_H

/* Supervision (lca_supervise.c). Private to the actor core. */

#include "lca_actor_priv.h"

/* After a handler that failed: drop @p msg (NULL for a batch) unless
 * sent or kept, apply the strategy, tell the supervisor. */
void actor_failed(struct lca_actor *a, struct actor_lcore *here, struct lca_msg *msg);
/* Tell @p a's watchers it stopped (once). */
void actor_tell_watchers(struct lca_actor *a);
/* Between lca_runtime_cleanup()'s start and the next init: no notices
 * (the actors they would go to are being freed). */
void supervision_quiet(bool quiet);

#endif /* LCA_SUPERVISE_PRIV_H */
