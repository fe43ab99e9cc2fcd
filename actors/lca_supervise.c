/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Supervision: what happens when a handler fails, and who is told.
 *
 * A handler fails by calling lca_actor_fail(); the turn sees it when the
 * handler returns (a flag of the lcore, one load a message) and comes here.
 * The message is dropped and counted unless the handler already sent or
 * kept it. Then the strategy: resume; restart (state zeroed and state_init
 * run again, the mailbox kept), at most max_restarts within within_ms, past
 * which it stops; or stop. A restart with a backoff pauses the actor: its
 * `scheduled` flag stays held, so no waker queues it, and a timer on this
 * lcore queues it again when the pause is over (its messages wait in the
 * mailbox meanwhile; none is lost). The supervisor gets an LCA_TYPE_FAILED
 * notice on its control lane, so a backed-up mailbox does not delay it.
 *
 * Watchers get LCA_TYPE_TERMINATED on their control lanes when the actor
 * stops, whatever stopped it; one that starts watching a stopped actor is
 * told at once. The list is short and fixed (LCA_WATCHERS_MAX) and taken
 * under a lock, which only watch and the stop take.
 */
#define LCA_LOG_PART lca_logtype_actor
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_actor_priv.h"
#include "lca_control_priv.h"
#include "lca_eal.h"
#include "lca_trace_priv.h"
#include "lca_logtypes_priv.h"
#include "lca_supervise_priv.h"
#include "lca_timer_priv.h"

#define DEFAULT_MAX_RESTARTS 10
#define DEFAULT_WITHIN_MS 1000
#define DEFAULT_BACKOFF_MAX_US 1000000u

static bool quiet;

void
supervision_quiet(bool q)
{
	quiet = q;
}

int
lca_actor_fail(int reason)
{
	struct actor_lcore *here = actor_lcore_here();

	if (here->self == NULL)
		return -EPERM;
	here->failed = true;
	here->fail_reason = reason;
	return 0;
}

/* A notice of @p type with @p len bytes of @p data to @p to's control
 * lane, from @p from. Counted on @p from when it cannot go. */
static void
notify(struct lca_actor *from, lca_actor_id_t to, uint32_t type, const void *data, uint16_t len)
{
	struct lca_msg *m;
	int err = lca_msg_alloc(&m);

	if (err == 0) {
		m->type = type;
		m->len = len;
		memcpy(m->data, data, len);
		err = control_send_from(from->id, to, m);
		if (err != 0)
			lca_msg_free(m);
	}
	/* A watcher or supervisor that has stopped has nobody to tell. */
	if (err != 0 && err != -EPIPE && err != -ESRCH) {
		__atomic_fetch_add(&from->send_failures, 1, __ATOMIC_RELAXED);
		LCA_LOG(WARNING, "actor %u: notice %#x to actor %u not sent: %s\n", from->id, type,
			to, strerror(-err));
	}
}

/* Restart @p a within its limit. @return the pause before its next
 * message (us), or -1 when it is past its limit and must stop. */
static int64_t
restart(struct lca_actor *a)
{
	uint64_t now = rte_rdtsc();
	uint64_t window = (uint64_t)(a->sup.within_ms ? a->sup.within_ms : DEFAULT_WITHIN_MS) *
			  (rte_get_tsc_hz() / 1000);
	unsigned int max = a->sup.max_restarts ? a->sup.max_restarts : DEFAULT_MAX_RESTARTS;
	uint64_t pause = 0;

	if (a->window_restarts == 0 || now - a->window_tsc > window) {
		a->window_tsc = now;
		a->window_restarts = 0;
	}
	if (++a->window_restarts > max)
		return -1;
	a->restarts++;
	if (a->state != NULL) {
		memset(a->state, 0, a->state_size);
		if (a->state_init != NULL)
			a->state_init(a->state, a->state_arg);
	}
	if (a->sup.backoff_min_us != 0) {
		uint64_t cap = a->sup.backoff_max_us ? a->sup.backoff_max_us :
						       DEFAULT_BACKOFF_MAX_US;

		pause = (uint64_t)a->sup.backoff_min_us << RTE_MIN(a->window_restarts - 1, 20u);
		pause = RTE_MIN(pause, cap);
	}
	return (int64_t)pause;
}

void
actor_failed(struct lca_actor *a, struct actor_lcore *here, struct lca_msg *msg)
{
	struct lca_failure f = {
		.actor = a->id,
		.reason = here->fail_reason,
		.msg_type = msg != NULL ? msg->type : 0,
		.action = a->sup.strategy,
	};
	int64_t pause;

	here->failed = false;
	lca_trace_fail(a->id, here->fail_reason, f.msg_type, a->sup.strategy);
	LCA_LOG(DEBUG, "actor %u failed (reason %d, message type %u): strategy %d\n",
		a->id, f.reason, f.msg_type, (int)a->sup.strategy);
	a->failures++;
	if (msg != NULL && here->current == msg) {
		here->current = NULL;
		lca_msg_free(msg);
		a->failed_msgs++;
	}
	if (a->sup.strategy == LCA_SUPERVISE_RESTART) {
		pause = restart(a);
		lca_trace_restart(a->id, a->restarts, pause);
		if (pause < 0) {
			f.action = LCA_SUPERVISE_STOP;
		} else if (pause > 0) {
			if (timer_wake_after(a, (uint64_t)pause) == 0) {
				a->paused = 1;
				f.backoff_us = (uint32_t)pause;
			} else {
				LCA_LOG(WARNING, "actor %u: restarted without its backoff: no timer\n",
					a->id);
			}
		}
	}
	f.restarts = (uint32_t)RTE_MIN(a->restarts, (uint64_t)UINT32_MAX);
	if (f.action == LCA_SUPERVISE_STOP) {
		a->by_supervision = true;
		lca_actor_stop(a->id);
	}
	if (a->sup.supervisor != LCA_ACTOR_NONE)
		notify(a, a->sup.supervisor, LCA_TYPE_FAILED, &f, sizeof(f));
}

void
actor_tell_watchers(struct lca_actor *a)
{
	lca_actor_id_t watchers[LCA_WATCHERS_MAX];
	struct lca_terminated t = { .actor = a->id, .by_supervision = a->by_supervision };
	uint32_t n;

	if (quiet)
		return;
	rte_spinlock_lock(&a->watch_lock);
	if (a->told_watchers) {
		rte_spinlock_unlock(&a->watch_lock);
		return;
	}
	a->told_watchers = true;
	n = a->n_watchers;
	memcpy(watchers, a->watchers, n * sizeof(watchers[0]));
	rte_spinlock_unlock(&a->watch_lock);
	for (uint32_t i = 0; i < n; i++)
		notify(a, watchers[i], LCA_TYPE_TERMINATED, &t, sizeof(t));
}

int
lca_actor_watch(lca_actor_id_t watcher, lca_actor_id_t target)
{
	struct lca_actor *a = actor_lookup(target);
	struct lca_terminated t = { .actor = target };
	int ret = 0;
	bool now = false;

	if (a == NULL || actor_lookup(watcher) == NULL)
		return -ESRCH;
	rte_spinlock_lock(&a->watch_lock);
	for (uint32_t i = 0; i < a->n_watchers; i++)
		if (a->watchers[i] == watcher)
			ret = -EALREADY;
	if (ret == 0 && a->told_watchers)
		now = true;
	else if (ret == 0 && a->n_watchers == LCA_WATCHERS_MAX)
		ret = -ENOSPC;
	else if (ret == 0)
		a->watchers[a->n_watchers++] = watcher;
	t.by_supervision = a->by_supervision;
	rte_spinlock_unlock(&a->watch_lock);
	if (now)
		notify(a, watcher, LCA_TYPE_TERMINATED, &t, sizeof(t));
	return ret;
}
