/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_SEND_PRIV_H
#define LCA_SEND_PRIV_H

/* Sending (lca_send.c): what the runtime calls. Private to the actor core. */

#include "lca_actor_priv.h"

/* Zero the runtime-wide counters of failed sends (at runtime init). */
void lca_send_errors_reset(void);

#endif /* LCA_SEND_PRIV_H */
