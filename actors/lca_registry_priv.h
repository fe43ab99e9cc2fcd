/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_REGISTRY_PRIV_H
#define LCA_REGISTRY_PRIV_H

/* Names of actors (lca_registry.c), and the hooks by which the core
 * starts, tells and ends the services beside it: names and asks. */

#include "lca_actor.h"

struct rte_tel_data;

/* At runtime init, after the timers; @return 0 or -ENOMEM. */
int actor_services_init(unsigned int max_actors);
/* At runtime cleanup, once the actors are gone (also after a failed init). */
void actor_services_cleanup(void);
/* @p id stopped: its name goes, its waiting asks end. */
void actor_services_stopped(lca_actor_id_t id);

/* Telemetry /lcactor/actors[,FIRST]: up to a page of actors from FIRST
 * (lca_telemetry.c calls it under its lock). */
int registry_fill_actors(const char *params, struct rte_tel_data *d);
/* The asks' counters into /lcactor/info's dict. */
void asks_fill_info(struct rte_tel_data *d);

#endif /* LCA_REGISTRY_PRIV_H */
