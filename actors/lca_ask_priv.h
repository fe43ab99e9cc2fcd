/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_ASK_PRIV_H
#define LCA_ASK_PRIV_H

/* Asks with a timeout (lca_ask.c): what the core calls. */

#include <stdbool.h>

#include "lca_actor.h"

/* Set at the first lca_ask(): until then a turn does not look for replies. */
extern bool asks_used;

int asks_init(unsigned int max_actors);
void asks_cleanup(void);

/* In a turn of @p self, before its handler: let through what is not a
 * reply to one of its asks; for a reply or a timeout in time, end its
 * ask; drop (free, count) a late one. @return how many of @p msgs[0..n)
 * are left, in order. */
unsigned int asks_filter(lca_actor_id_t self, struct lca_msg **msgs, unsigned int n);

/* @p self stopped: its waiting asks end without a notice. */
void asks_actor_stopped(lca_actor_id_t self);

#endif /* LCA_ASK_PRIV_H */
