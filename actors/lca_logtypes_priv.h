/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_LOGTYPES_PRIV_H
#define LCA_LOGTYPES_PRIV_H

/*
 * The rte_log types of the runtime's parts (private; lca_logtypes.c), so
 * that one part's debug lines can be asked for alone:
 * `--log-level 'lcactor.remote:debug'`, or all of them with
 * `--log-level 'lcactor*:debug'`. What belongs to no part (EAL bring-up,
 * mempool, lcore) keeps the logtype "lcactor" (lca_logtype, eal/).
 *
 * A source file picks its part's logtype for every LCA_LOG() in it by
 * defining LCA_LOG_PART before its first include:
 *
 *	#define LCA_LOG_PART lca_logtype_timer
 *	...
 *	#include "lca_logtypes_priv.h"
 */

/** "lcactor.actor": spawn, stop, supervision, sends. */
extern int lca_logtype_actor;
/** "lcactor.port": start, stop, queue set-up. */
extern int lca_logtype_port;
/** "lcactor.remote": nodes up and down, retransmissions. */
extern int lca_logtype_remote;
/** "lcactor.timer": arm, cancel. */
extern int lca_logtype_timer;
/** "lcactor.migrate": each step of an actor's move between lcores. */
extern int lca_logtype_migrate;

#endif /* LCA_LOGTYPES_PRIV_H */
