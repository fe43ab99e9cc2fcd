/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_REFUSE_PRIV_H
#define LCA_REFUSE_PRIV_H

/*
 * A refused public call says so once, the DPDK way: one log line naming
 * the call, the actor and the cause, then at most one a second from the
 * same place, which also says how many it kept quiet. For every part
 * (core, port, remote), as lca_logtypes_priv.h is. Each refusal is counted by
 * its errno as well (lca_refusals_count(), telemetry /lcactor/refusals).
 *
 *	if (bad)
 *		return LCA_REFUSED(NOTICE, "lca_ask", from, -EINVAL);
 */

#include <stdint.h>

#include <rte_log.h>

#include "lca_logtypes_priv.h"

/* Causes a site keeps apart; a site's later causes share the last one. */
#define LCA_REFUSE_CAUSES 4

/* Where a refusal is logged from: a rate limit for each cause, so that a
 * common one keeps no rare one quiet. Zeroed (static) is ready. */
struct lca_refuse_site {
	struct {
		int err;           /* its errno; 0: not taken yet */
		uint64_t next_tsc; /* no line before this TSC */
		uint64_t quiet;    /* refusals not logged since the last line */
	} cause[LCA_REFUSE_CAUSES];
};

/* Log (rate limited by @p site) and count that @p call refused @p err
 * for @p actor (LCA_ACTOR_NONE, UINT32_MAX, when none is concerned).
 * Returns @p err, so that a caller can return it. */
int lca_refuse_log(struct lca_refuse_site *site, uint32_t level, int logtype, const char *call,
		   uint32_t actor, int err);

/* As lca_refuse_log(), without the count by errno: for a caller that
 * counts its refusals by cause itself (sends: lca_send_errors). */
int lca_refuse_note(struct lca_refuse_site *site, uint32_t level, int logtype, const char *call,
		    uint32_t actor, int err);

/* Refusals counted so far with errno @p err (negative or positive). */
uint64_t lca_refusals_count(int err);

/* The name of errno @p err ("ENOSPC"), or NULL for one the table lacks. */
const char *lca_errno_name(int err);

/* One rate limit for each place in the code that refuses. */
#define LCA_REFUSED(level, call, actor, err) __extension__({ \
	static struct lca_refuse_site lca_refuse_site_; \
	lca_refuse_log(&lca_refuse_site_, RTE_LOG_##level, LCA_LOG_PART, (call), (actor), (err)); \
})

#endif /* LCA_REFUSE_PRIV_H */
