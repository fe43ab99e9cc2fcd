/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_malloc.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_steal_priv.h"

#define DEFAULT_BURST 32
/* Empty loops (idle spin) a TSC read: see loop_idle(). */
#define IDLE_CLOCK_EVERY 16
/* How long the end of a run waits for a service lcore's last poll. */
#define JOIN_WAIT_MS 1000
#define MAX_BURST LCA_LCORE_MAX_BURST

#include "lca_lcore_priv.h"

struct lcore_ctx lca_lcores[RTE_MAX_LCORE];
struct lca_lcore_due lca_lcore_dues[RTE_MAX_LCORE];
static struct lca_lcore_conf cfg;
static bool inited;
static bool running;
static bool guest; /* lca_lcore_start(): the application's loops poll */
static uint32_t stop_flag;
static uint64_t deadline_tsc;
static bool timed_out;
static unsigned int n_lcores;

/* Apart from the loop contexts: init clears those, and hooks outlive it. */
struct hook_set {
	unsigned int n;
	struct lca_lcore_hook h[LCA_LCORE_MAX_HOOKS];
} __rte_cache_aligned;

static struct hook_set hooks[RTE_MAX_LCORE];

static const char *const idle_names[] = {
	[LCA_IDLE_SPIN] = "spin",
	[LCA_IDLE_PAUSE] = "pause",
	[LCA_IDLE_SLEEP] = "sleep",
};

const char *
lca_idle_policy_name(enum lca_idle_policy p)
{
	return (unsigned int)p < RTE_DIM(idle_names) ? idle_names[p] : "?";
}

int
lca_idle_policy_parse(const char *name, enum lca_idle_policy *out)
{
	if (name == NULL || out == NULL)
		return -EINVAL;
	for (unsigned int i = 0; i < RTE_DIM(idle_names); i++) {
		if (strcmp(name, idle_names[i]) == 0) {
			*out = (enum lca_idle_policy)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Busy-polling lcores that share a CPU preempt each other; say so. */
static void
warn_oversubscription(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int n = lca_eal_lcore_count();
	rte_cpuset_t seen;
	unsigned int lcore_id;
	bool shared_cpu = false;

	CPU_ZERO(&seen);
	LCA_LCORE_FOREACH(lcore_id) {
		rte_cpuset_t set = rte_lcore_cpuset(lcore_id);
		rte_cpuset_t both;

		CPU_AND(&both, &set, &seen);
		if (CPU_COUNT(&both) > 0)
			shared_cpu = true;
		CPU_OR(&seen, &seen, &set);
	}
	if ((long)n > cpus || shared_cpu)
		LCA_LOG(WARNING,
			"WARNING: %u busy-polling lcores on %d CPU(s) (%ld online)%s: "
			"they preempt each other, and figures measured so are not per-core figures. "
			"Give each lcore a CPU of its own (-l with at most %ld lcores, or --lcores "
			"mapping each to a different CPU), or let idle lcores yield (idle policy "
			"pause or sleep, e.g. lca-reqresp --idle sleep)\n",
			n, CPU_COUNT(&seen), cpus, shared_cpu ? ", some sharing a CPU" : "", cpus);
}

int
lca_lcore_init(const struct lca_lcore_conf *conf)
{
	unsigned int lcore_id;

	if (conf == NULL || conf->turn == NULL || conf->max_items == 0 ||
	    conf->burst > MAX_BURST || (unsigned int)conf->idle > LCA_IDLE_SLEEP ||
	    (conf->idle == LCA_IDLE_SLEEP && conf->idle_sleep_us > LCA_IDLE_SLEEP_MAX_US))
		return -EINVAL;
	if (inited)
		return -EEXIST;

	cfg = *conf;
	if (cfg.burst == 0)
		cfg.burst = DEFAULT_BURST;
	memset(lca_lcores, 0, sizeof(lca_lcores));
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		lca_lcore_due_clear(i);
	LCA_LCORE_FOREACH(lcore_id) {
		struct lcore_ctx *c = &lca_lcores[lcore_id];
		uint32_t size = rte_align32pow2(cfg.max_items + 1);

		c->runq = rte_zmalloc_socket("lca_runq", sizeof(void *) * size, 0,
					     (int)rte_lcore_to_socket_id(lcore_id));
		if (c->runq == NULL)
			goto fail;
		c->mask = size - 1;
	}
	if (steal_init(cfg.max_items) < 0)
		goto fail;
	n_lcores = lca_eal_lcore_count();
	inited = true;
	warn_oversubscription();
	return 0;
fail:
	LCA_LOG(ERR, "no memory for run queues of %u items\n", cfg.max_items);
	inited = true;
	lca_lcore_cleanup();
	return -ENOMEM;
}

void
lca_lcore_cleanup(void)
{
	if (!inited)
		return;
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		rte_free(lca_lcores[i].runq);
		lca_lcores[i].runq = NULL;
	}
	steal_cleanup();
	inited = false;
}

int
lca_lcore_schedule(unsigned int lcore_id, void *item)
{
	struct lcore_ctx *c;

	if (lcore_id == LCA_LCORE_SHARED)
		return steal_push(item, __atomic_load_n(&running, __ATOMIC_ACQUIRE) &&
				  rte_lcore_id() < RTE_MAX_LCORE &&
				  lca_lcores[rte_lcore_id()].runq != NULL);
	c = lcore_id < RTE_MAX_LCORE ? &lca_lcores[lcore_id] : NULL;
	if (unlikely(c == NULL || c->runq == NULL))
		return -EINVAL;
	/* Cannot overflow: it holds every item and each is in it once. */
	c->runq[c->tail++ & c->mask] = item;
	return 0;
}

/* @return whether it slept. */
static bool
idle(struct lcore_ctx *c)
{
	switch (cfg.idle) {
	case LCA_IDLE_SPIN:
		break;
	case LCA_IDLE_PAUSE:
		rte_pause();
		break;
	case LCA_IDLE_SLEEP:
		if (++c->empty_loops >= cfg.idle_sleep_after) {
			struct timespec ts = {
				.tv_sec = cfg.idle_sleep_us / 1000000,
				.tv_nsec = (long)(cfg.idle_sleep_us % 1000000) * 1000,
			};

			nanosleep(&ts, NULL);
			c->stats.sleeps++;
			c->empty_loops = 0;
			return true;
		}
		break;
	}
	return false;
}

static bool
hook_valid_lcore(unsigned int lcore_id, const struct lca_lcore_hook *hook)
{
	return hook != NULL && lcore_id < RTE_MAX_LCORE && lca_eal_lcore_in_use(lcore_id);
}

static int
hook_find(const struct hook_set *hs, const struct lca_lcore_hook *hook)
{
	for (unsigned int i = 0; i < hs->n; i++)
		if (hs->h[i].poll == hook->poll && hs->h[i].end == hook->end &&
		    hs->h[i].arg == hook->arg)
			return (int)i;
	return -ENOENT;
}

int
lca_lcore_hook_add(unsigned int lcore_id, const struct lca_lcore_hook *hook)
{
	struct hook_set *hs;

	if (!hook_valid_lcore(lcore_id, hook) || (hook->poll == NULL && hook->end == NULL))
		return -EINVAL;
	/* The loops read the table without a lock: it changes only between runs. */
	if (lca_lcore_running())
		return -EBUSY;
	hs = &hooks[lcore_id];
	if (hook_find(hs, hook) >= 0)
		return -EEXIST;
	if (hs->n == LCA_LCORE_MAX_HOOKS)
		return -ENOSPC;
	hs->h[hs->n++] = *hook;
	return 0;
}

int
lca_lcore_hook_remove(unsigned int lcore_id, const struct lca_lcore_hook *hook)
{
	struct hook_set *hs;
	int i;

	if (!hook_valid_lcore(lcore_id, hook))
		return -EINVAL;
	if (lca_lcore_running())
		return -EBUSY;
	hs = &hooks[lcore_id];
	i = hook_find(hs, hook);
	if (i < 0)
		return i;
	memmove(&hs->h[i], &hs->h[i + 1], (hs->n - (unsigned int)i - 1) * sizeof(hs->h[0]));
	hs->n--;
	return 0;
}

static inline unsigned int
hooks_poll(const struct hook_set *hs, unsigned int lcore_id, uint64_t now)
{
	unsigned int work = 0;

	for (unsigned int i = 0; i < hs->n; i++)
		if (hs->h[i].poll != NULL)
			work += hs->h[i].poll(lcore_id, now, hs->h[i].arg);
	return work;
}

static inline void
hooks_end(const struct hook_set *hs, unsigned int lcore_id)
{
	for (unsigned int i = 0; i < hs->n; i++)
		if (hs->h[i].end != NULL)
			hs->h[i].end(lcore_id, hs->h[i].arg);
}

bool
lca_lcore_stopping(void)
{
	return __atomic_load_n(&stop_flag, __ATOMIC_RELAXED) != 0 || lca_eal_stop_requested();
}

/* Take what is runnable on this lcore: its queue, a share of the shared
 * queue, then the items that asked for another turn. */
static inline unsigned int
take_items(struct lcore_ctx *c, struct again_list *again, void **items)
{
	unsigned int room = cfg.burst - again->n;
	unsigned int n = 0;

	while (n < room && c->head != c->tail)
		items[n++] = c->runq[c->head++ & c->mask];

	if (steal_in_use())
		n += steal_take(rte_lcore_id(), items + n, room - n);
	/* Not a call to memcpy() for nothing: an idle loop comes here too. */
	if (again->n > 0) {
		memcpy(items + n, again->items, again->n * sizeof(items[0]));
		n += again->n;
		again->n = 0;
	}
	return n;
}

/* Whether the poll function has work due (lca_lcore_due_lower()): then
 * the burst ends, and the due time is forgotten, the poll saying the next.
 * One load when nothing is due; a clock read when something is. */
static inline bool
poll_due_now(unsigned int lcore_id)
{
	uint64_t due = lca_lcore_due(lcore_id);

	if (likely(due == UINT64_MAX) || rte_rdtsc() < due)
		return false;
	lca_lcore_due_clear(lcore_id);
	return true;
}

/*
 * Run what is runnable, batch after batch, until nothing is or burst turns
 * have run: work between items of this lcore (one actor waking the next)
 * goes on without a poll, so the poll and the loop's bookkeeping are paid
 * once a burst under load and at once when there is nothing else to do.
 * A burst also ends when the poll has work due (a timer): under load a
 * burst lasts microseconds, and a timer waited for its end.
 * @return the turns run.
 */
static inline unsigned int
run_items(struct lcore_ctx *c, struct again_list *again, void **items)
{
	unsigned int turns = 0, n;

	do {
		n = take_items(c, again, items);
		for (unsigned int i = 0; i < n; i++)
			if (cfg.turn(items[i]))
				again->items[again->n++] = items[i];
		turns += n;
		if (steal_in_use())
			steal_tick(rte_lcore_id());
	} while (n > 0 && turns < cfg.burst && !poll_due_now(rte_lcore_id()));
	return turns;
}

/* The poll function and the hooks' polls. @p now_io: the clock after
 * them, for the iteration's accounting. */
static inline unsigned int
poll_sources(struct lcore_ctx *c, const struct hook_set *hs, unsigned int lcore_id)
{
	unsigned int work = cfg.poll != NULL ? cfg.poll(lcore_id) : 0;

	if (work > 0) {
		/* The poll may have run handlers that read the clock. */
		uint64_t now = rte_rdtsc();

		if (c->stale) {
			/* The empty loops up to this poll: idle. */
			c->stats.idle_cycles += now - c->prev;
			c->prev = now;
			c->stale = false;
		}
		return work + hooks_poll(hs, lcore_id, now);
	}
	return hooks_poll(hs, lcore_id, c->prev);
}

/* An empty iteration: the idle policy (lcactor's own loop only: in a
 * guest poll, idling is the application's), and the clock.
 * @return whether it slept. */
static inline bool
loop_idle(struct lcore_ctx *c, bool in_guest, uint64_t *now)
{
	bool slept = in_guest ? false : idle(c);

	/* Reading the TSC costs what the rest of an empty loop does (about
	 * 9 ns in a VM), and a message that lands waits half an empty loop to
	 * be seen: so an empty loop reads it once in IDLE_CLOCK_EVERY, and
	 * after a pause or a sleep. A loop that finds work after unread ones
	 * counts them idle up to its poll (poll_sources()); one whose work was
	 * a hook's or an item's counts them busy, at most IDLE_CLOCK_EVERY
	 * loops. A guest poll read the clock on the way in: its empty polls
	 * are neither busy nor idle (the time between them is the
	 * application's), so it reads no more. */
	if (in_guest) {
		*now = c->prev;
	} else if (cfg.idle != LCA_IDLE_SPIN ||
		   (c->stats.loops & (IDLE_CLOCK_EVERY - 1)) == 0) {
		*now = rte_rdtsc();
		c->stats.idle_cycles += *now - c->prev;
		c->stale = false;
	} else {
		*now = c->prev;
		c->stale = true;
	}
	return slept;
}

/*
 * One iteration of an lcore's loop: the poll function and the hooks, the
 * runnable items, the hooks' ends, the accounting and the time limit. The
 * body of lcactor's own loop and of lca_lcore_poll() alike, inlined into
 * each (@p in_guest is a constant there).
 * @return the work done; -1 when an empty iteration slept and a signal
 * came (the loop looks at every sleep, not every 1024 loops).
 */
static inline int
loop_once(struct lcore_ctx *c, const struct hook_set *hs, unsigned int lcore_id,
	  void **items, bool in_guest)
{
	unsigned int work = poll_sources(c, hs, lcore_id);
	unsigned int n = run_items(c, &c->again, items);
	uint64_t now;

	if (steal_in_use())
		c->stats.steals += steal_balance(lcore_id, n + work == 0);
	hooks_end(hs, lcore_id);

	c->stats.loops++;
	if (n + work > 0) {
		now = rte_rdtsc();
		c->stats.busy_cycles += now - c->prev;
		c->stats.turns += n;
		c->empty_loops = 0;
		c->stale = false;
	} else if (loop_idle(c, in_guest, &now) && lca_eal_stop_requested()) {
		return -1;
	}
	if (unlikely(now >= __atomic_load_n(&lcore_watch_next_tsc, __ATOMIC_RELAXED)) && !in_guest)
		lcore_watch_check(now); /* a guest poll looked on the way in */
	if (unlikely(now > deadline_tsc)) {
		__atomic_store_n(&timed_out, true, __ATOMIC_RELAXED);
		lca_lcore_stop();
	}
	c->prev = now;
	return (int)(n + work);
}

/* Hand on what the lcore still holds after its last iteration, so that
 * nothing waits in it: the items still runnable go back into its queue,
 * for the next run, and its poll function moves what it holds. Called by
 * the lcore itself, or by the main lcore for a guest lcore that stopped
 * polling before it saw the stop. */
static void
loop_end(struct lcore_ctx *c, unsigned int lcore_id)
{
	for (unsigned int i = 0; i < c->again.n; i++)
		c->runq[c->tail++ & c->mask] = c->again.items[i];
	c->again.n = 0;
	if (cfg.poll != NULL)
		cfg.poll(lcore_id);
}

/* Whether the loops must end: the stop flag every loop; a signal, which
 * only ends a run, every 1024 loops: that check is a call into another
 * part. */
static inline bool
loop_should_stop(const struct lcore_ctx *c)
{
	return __atomic_load_n(&stop_flag, __ATOMIC_RELAXED) ||
	       ((c->stats.loops & 1023) == 0 && lca_eal_stop_requested());
}

static int
run_loop(void *arg)
{
	unsigned int lcore_id = rte_lcore_id();
	struct lcore_ctx *c = &lca_lcores[lcore_id];
	const struct hook_set *hs = &hooks[lcore_id];
	void *items[MAX_BURST];

	(void)arg;
	c->empty_loops = 0;
	c->prev = rte_rdtsc();
	c->stale = false;
	while (!loop_should_stop(c))
		if (loop_once(c, hs, lcore_id, items, false) < 0)
			break;
	loop_end(c, lcore_id);
	return 0;
}

/* A poll on a stopped run: the first hands on what the lcore holds. */
static int
poll_stopped(struct lcore_ctx *c, unsigned int lcore_id)
{
	uint32_t no = 0;

	if (__atomic_compare_exchange_n(&c->ended, &no, 1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED))
		loop_end(c, lcore_id);
	return -ESHUTDOWN;
}

/* The state of a run, from its start: shared by lcactor's loops and a
 * guest run. */
static int
run_begin(unsigned int timeout_ms, bool in_guest)
{
	uint64_t now = rte_rdtsc();
	unsigned int lcore_id;

	if (!inited)
		return -EINVAL;
	if (running)
		return -EBUSY;
	if (rte_lcore_id() != rte_get_main_lcore())
		return -EPERM;
	bool polled = false; /* an lcore that something else polls */

	LCA_LCORE_FOREACH(lcore_id) {
		struct lcore_ctx *c = &lca_lcores[lcore_id];

		/* Atomic: a service lcore's runner may still look at it, its
		 * last run's stop seen, while the next run starts. */
		__atomic_store_n(&c->ended, 0, __ATOMIC_RELAXED);
		c->prev = now;
		c->stale = false;
		/* lcactor's loops run on the EAL lcores; the service lcores,
		 * and a guest run's every lcore, are polled. */
		c->own_loop = !in_guest && rte_lcore_has_role(lcore_id, ROLE_RTE) == 1;
		polled |= !c->own_loop;
		__atomic_store_n(&c->seen_tsc, now, __ATOMIC_RELAXED);
		__atomic_store_n(&c->stalled, 0, __ATOMIC_RELAXED);
	}
	guest = in_guest;
	lcore_watch_start(now, polled);
	__atomic_store_n(&stop_flag, 0, __ATOMIC_RELEASE);
	timed_out = false;
	deadline_tsc = timeout_ms == 0 ? UINT64_MAX :
		now + rte_get_tsc_hz() / 1000 * timeout_ms;
	__atomic_store_n(&running, true, __ATOMIC_RELEASE);
	/* Last, with release: a polled lcore (a service lcore's runner never
	 * stops between runs) that reads READY sees all of the above. */
	LCA_LCORE_FOREACH(lcore_id)
		__atomic_store_n(&lca_lcores[lcore_id].poll_state,
				 lca_lcores[lcore_id].own_loop ? POLL_OWN_LOOP : POLL_READY,
				 __ATOMIC_RELEASE);
	return 0;
}

/* A polled lcore's hand-on after a stop: a service lcore does its own at
 * its next poll (wait for it, a while); an lcore whose poll will not come
 * (a guest run's loops have returned, a service that no longer runs) has it
 * done here. */
static void
join_polled(unsigned int lcore_id)
{
	struct lcore_ctx *c = &lca_lcores[lcore_id];
	uint64_t give_up = rte_rdtsc() + rte_get_tsc_hz() * JOIN_WAIT_MS / 1000;

	if (rte_lcore_has_role(lcore_id, ROLE_SERVICE) == 1)
		while (!__atomic_load_n(&c->ended, __ATOMIC_ACQUIRE) && rte_rdtsc() < give_up)
			rte_pause();
	if (__atomic_load_n(&c->ended, __ATOMIC_ACQUIRE))
		return;
	if (__atomic_load_n(&c->poll_state, __ATOMIC_ACQUIRE) == POLL_INSIDE) {
		LCA_LOG(ERR, "lcore %u: still inside a poll %u ms after the stop; "
			"what it holds stays there\n", lcore_id, JOIN_WAIT_MS);
		return;
	}
	if (rte_lcore_has_role(lcore_id, ROLE_SERVICE) == 1)
		LCA_LOG(WARNING, "lcore %u: its service did not poll after the stop "
			"(not mapped or not running?); what it held is handed on for it\n",
			lcore_id);
	poll_stopped(c, lcore_id);
}

/* The end of a run: the polled lcores joined; what it returns. */
static int
run_finish(void)
{
	unsigned int lcore_id;

	lca_lcore_stop();
	LCA_LCORE_FOREACH(lcore_id)
		if (!lca_lcores[lcore_id].own_loop)
			join_polled(lcore_id);
	LCA_LCORE_FOREACH(lcore_id) {
		uint8_t ready = POLL_READY;

		/* One still inside (said by join_polled()) finds the next run's. */
		if (!__atomic_compare_exchange_n(&lca_lcores[lcore_id].poll_state, &ready,
						 POLL_OFF, false, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
			__atomic_store_n(&lca_lcores[lcore_id].poll_state,
					 ready == POLL_INSIDE ? POLL_INSIDE : POLL_OFF,
					 __ATOMIC_RELAXED);
	}
	__atomic_store_n(&running, false, __ATOMIC_RELEASE);
	guest = false;
	if (__atomic_load_n(&timed_out, __ATOMIC_RELAXED))
		return -ETIMEDOUT;
	return lca_eal_stop_requested() ? -EINTR : 0;
}

int
lca_lcore_run(unsigned int timeout_ms)
{
	int ret = run_begin(timeout_ms, false);

	if (ret < 0)
		return ret;
	ret = rte_eal_mp_remote_launch(run_loop, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	if (ret < 0) {
		run_finish();
		return ret;
	}
	return run_finish();
}

int
lca_lcore_start(unsigned int timeout_ms)
{
	return run_begin(timeout_ms, true);
}

/* Why lca_lcore_poll() refuses on @p c. */
static int
poll_refused(const struct lcore_ctx *c)
{
	switch (__atomic_load_n(&c->poll_state, __ATOMIC_RELAXED)) {
	case POLL_INSIDE: /* a handler that polls would run turns inside one */
		return -EDEADLK;
	case POLL_OWN_LOOP: /* lcactor's loop polls it */
		return -EBUSY;
	default:
		return c->runq == NULL ? -EPERM : -ESHUTDOWN;
	}
}

int
lca_lcore_poll(void)
{
	unsigned int lcore_id = rte_lcore_id();
	struct lcore_ctx *c;
	void *items[MAX_BURST];
	uint64_t now;
	int ret;

	if (unlikely(lcore_id >= RTE_MAX_LCORE))
		return -EPERM;
	c = &lca_lcores[lcore_id];
	if (unlikely(__atomic_load_n(&c->poll_state, __ATOMIC_ACQUIRE) != POLL_READY))
		return poll_refused(c);
	if (unlikely(loop_should_stop(c)))
		return poll_stopped(c, lcore_id);
	__atomic_store_n(&c->poll_state, POLL_INSIDE, __ATOMIC_RELAXED);
	/* The time since the last poll was the application's: this poll's
	 * accounting starts now. */
	now = rte_rdtsc();
	c->prev = now;
	c->stale = false;
	__atomic_store_n(&c->seen_tsc, now, __ATOMIC_RELAXED);
	if (unlikely(now >= __atomic_load_n(&lcore_watch_next_tsc, __ATOMIC_RELAXED)))
		lcore_watch_check(now);
	ret = loop_once(c, &hooks[lcore_id], lcore_id, items, true);
	__atomic_store_n(&c->poll_state, POLL_READY, __ATOMIC_RELAXED);
	return ret;
}

int
lca_lcore_end(void)
{
	if (!running || !guest)
		return running ? -EBUSY : -EINVAL;
	if (rte_lcore_id() != rte_get_main_lcore())
		return -EPERM;
	return run_finish();
}

bool
lca_lcore_running(void)
{
	return __atomic_load_n(&running, __ATOMIC_ACQUIRE);
}

void
lca_lcore_stop(void)
{
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
}

int
lca_lcore_stats_get(unsigned int lcore_id, struct lca_lcore_stats *out)
{
	if (out == NULL || lcore_id >= RTE_MAX_LCORE || !lca_eal_lcore_in_use(lcore_id))
		return -EINVAL;
	*out = lca_lcores[lcore_id].stats;
	return 0;
}

void
lca_lcore_stats_reset(void)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		memset(&lca_lcores[i].stats, 0, sizeof(lca_lcores[i].stats));
}
