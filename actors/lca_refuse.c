/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused calls: one shared, rate-limited log line and a count by cause. */
#define LCA_LOG_PART lca_logtype_actor
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "lca_logtypes_priv.h"
#include "lca_refuse_priv.h"

/* Errnos above this are counted together in the last slot. */
#define ERRNO_SLOTS 160

static uint64_t refusals[ERRNO_SLOTS + 1];

static const char *const names[] = {
	[EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH", [EINTR] = "EINTR",
	[EIO] = "EIO", [E2BIG] = "E2BIG", [EAGAIN] = "EAGAIN", [ENOMEM] = "ENOMEM",
	[EACCES] = "EACCES", [EFAULT] = "EFAULT", [EBUSY] = "EBUSY", [EEXIST] = "EEXIST",
	[ENODEV] = "ENODEV", [EINVAL] = "EINVAL", [ENOSPC] = "ENOSPC", [EPIPE] = "EPIPE",
	[ERANGE] = "ERANGE", [EDEADLK] = "EDEADLK", [ENAMETOOLONG] = "ENAMETOOLONG",
	[ENOTSUP] = "ENOTSUP", [EMSGSIZE] = "EMSGSIZE", [ENOBUFS] = "ENOBUFS",
	[ENOTCONN] = "ENOTCONN", [ETIMEDOUT] = "ETIMEDOUT", [EHOSTDOWN] = "EHOSTDOWN",
	[EALREADY] = "EALREADY", [EINPROGRESS] = "EINPROGRESS", [ECANCELED] = "ECANCELED",
	[ENOTEMPTY] = "ENOTEMPTY", [EOVERFLOW] = "EOVERFLOW",
};

const char *
lca_errno_name(int err)
{
	unsigned int e = (unsigned int)(err < 0 ? -err : err);

	return e < RTE_DIM(names) ? names[e] : NULL;
}

uint64_t
lca_refusals_count(int err)
{
	unsigned int e = (unsigned int)(err < 0 ? -err : err);

	return __atomic_load_n(&refusals[RTE_MIN(e, (unsigned int)ERRNO_SLOTS)],
			       __ATOMIC_RELAXED);
}

/* Whether this refusal (@p err) may write its line now: the first one of
 * its cause does, then one a second; a race between lcores lost only
 * keeps a line quiet. */
static bool
site_turn(struct lca_refuse_site *site, int err, uint64_t *quiet)
{
	unsigned int i;
	uint64_t now, next;

	for (i = 0; i < LCA_REFUSE_CAUSES - 1; i++) {
		int seen = 0;

		if (__atomic_load_n(&site->cause[i].err, __ATOMIC_RELAXED) == err ||
		    __atomic_compare_exchange_n(&site->cause[i].err, &seen, err, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED) ||
		    seen == err)
			break;
	}
	now = rte_get_tsc_cycles();
	next = __atomic_load_n(&site->cause[i].next_tsc, __ATOMIC_RELAXED);
	if (now < next || !__atomic_compare_exchange_n(&site->cause[i].next_tsc, &next,
						       now + rte_get_tsc_hz(), false,
						       __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&site->cause[i].quiet, 1, __ATOMIC_RELAXED);
		return false;
	}
	*quiet = __atomic_exchange_n(&site->cause[i].quiet, 0, __ATOMIC_RELAXED);
	return true;
}

int
lca_refuse_log(struct lca_refuse_site *site, uint32_t level, int logtype, const char *call,
	       uint32_t actor, int err)
{
	unsigned int e = (unsigned int)(err < 0 ? -err : err);

	__atomic_fetch_add(&refusals[RTE_MIN(e, (unsigned int)ERRNO_SLOTS)], 1, __ATOMIC_RELAXED);
	return lca_refuse_note(site, level, logtype, call, actor, err);
}

int
lca_refuse_note(struct lca_refuse_site *site, uint32_t level, int logtype, const char *call,
		uint32_t actor, int err)
{
	unsigned int e = (unsigned int)(err < 0 ? -err : err);
	const char *name = lca_errno_name(err);
	char who[32], more[64] = "";
	uint64_t quiet;

	if (!rte_log_can_log(logtype, level) || !site_turn(site, err, &quiet))
		return err;
	if (actor == UINT32_MAX)
		snprintf(who, sizeof(who), "no actor");
	else
		snprintf(who, sizeof(who), "actor %" PRIu32, actor);
	if (quiet > 0)
		snprintf(more, sizeof(more), " (and %" PRIu64 " more here in the last second)",
			 quiet);
	rte_log(level, logtype, "lcactor: %s refused (%s): -%s, %s%s\n", call, who,
		name != NULL ? name : "E?", rte_strerror((int)e), more);
	return err;
}
