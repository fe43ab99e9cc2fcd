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
#include "lca_steal.h"

#define DEFAULT_BURST 32
#define MAX_BURST 256

struct lcore_ctx {
	/* Its run queue: a plain FIFO, filled and emptied by this lcore only
	 * (or by one thread while the loops are not running), sized for every
	 * item, so no atomic and no ring header lines on the hot path. */
	void **runq;
	uint32_t head;
	uint32_t tail;
	uint32_t mask;
	struct lca_lcore_stats stats;
	uint64_t empty_loops;
} __rte_cache_aligned;

/* Empty loops (idle spin) a TSC read: see run_loop(). */
#define IDLE_CLOCK_EVERY 16

static struct lcore_ctx lcores[RTE_MAX_LCORE];
static struct lca_lcore_conf cfg;
static bool inited;
static bool running;
static uint32_t stop_flag;
static uint64_t deadline_tsc; /* checked by the main lcore only */
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
	unsigned int n = rte_lcore_count();
	rte_cpuset_t seen;
	unsigned int lcore_id;
	bool shared_cpu = false;

	CPU_ZERO(&seen);
	RTE_LCORE_FOREACH(lcore_id) {
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
	memset(lcores, 0, sizeof(lcores));
	RTE_LCORE_FOREACH(lcore_id) {
		struct lcore_ctx *c = &lcores[lcore_id];
		uint32_t size = rte_align32pow2(cfg.max_items + 1);

		c->runq = rte_zmalloc_socket("lca_runq", sizeof(void *) * size, 0,
					     (int)rte_lcore_to_socket_id(lcore_id));
		if (c->runq == NULL)
			goto fail;
		c->mask = size - 1;
	}
	if (steal_init(cfg.max_items) < 0)
		goto fail;
	n_lcores = rte_lcore_count();
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
		rte_free(lcores[i].runq);
		lcores[i].runq = NULL;
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
				  lcores[rte_lcore_id()].runq != NULL);
	c = lcore_id < RTE_MAX_LCORE ? &lcores[lcore_id] : NULL;
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
	return hook != NULL && lcore_id < RTE_MAX_LCORE && rte_lcore_is_enabled(lcore_id);
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

/* Items whose turn asked for another: they run after what is queued,
 * without going through the run queue. */
struct again_list {
	unsigned int n;
	void *items[MAX_BURST];
};

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

/*
 * Run what is runnable, batch after batch, until nothing is or burst turns
 * have run: work between items of this lcore (one actor waking the next)
 * goes on without a poll, so the poll and the loop's bookkeeping are paid
 * once a burst under load and at once when there is nothing else to do.
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
	} while (n > 0 && turns < cfg.burst);
	return turns;
}

static int
run_loop(void *arg)
{
	unsigned int lcore_id = rte_lcore_id();
	struct lcore_ctx *c = &lcores[lcore_id];
	const struct hook_set *hs = &hooks[lcore_id];
	void *items[MAX_BURST];
	struct again_list again = { .n = 0 };
	const bool is_main = lcore_id == rte_get_main_lcore();
	uint64_t prev = rte_rdtsc();
	bool stale = false; /* empty loops ran since `prev` was read */

	(void)arg;
	c->empty_loops = 0;
	/* The stop flag is read every loop; a signal, which only ends a run,
	 * every 1024 loops: that check is a call into another part. */
	while (!__atomic_load_n(&stop_flag, __ATOMIC_RELAXED) &&
	       ((c->stats.loops & 1023) != 0 || !lca_eal_stop_requested())) {
		unsigned int work = cfg.poll != NULL ? cfg.poll(lcore_id) : 0;
		unsigned int n;
		uint64_t now;

		if (work > 0) {
			/* The poll may have run handlers that read the clock. */
			now = rte_rdtsc();
			if (stale) {
				/* The empty loops up to this poll: idle. */
				c->stats.idle_cycles += now - prev;
				prev = now;
				stale = false;
			}
			work += hooks_poll(hs, lcore_id, now);
		} else {
			work = hooks_poll(hs, lcore_id, prev);
		}
		n = run_items(c, &again, items);
		if (steal_in_use())
			c->stats.steals += steal_balance(lcore_id, n + work == 0);
		hooks_end(hs, lcore_id);

		c->stats.loops++;
		if (n + work > 0) {
			now = rte_rdtsc();
			c->stats.busy_cycles += now - prev;
			c->stats.turns += n;
			c->empty_loops = 0;
			stale = false;
		} else {
			bool slept = idle(c);

			/* Reading the TSC costs what the rest of an empty loop
			 * does (about 9 ns in a VM), and a message that lands
			 * waits half an empty loop to be seen: so an empty loop
			 * reads it once in IDLE_CLOCK_EVERY, and after a pause
			 * or a sleep. A loop that finds work after unread ones
			 * counts them idle up to its poll (above); one whose
			 * work was a hook's or an item's counts them busy, at
			 * most IDLE_CLOCK_EVERY loops. */
			if (cfg.idle != LCA_IDLE_SPIN ||
			    (c->stats.loops & (IDLE_CLOCK_EVERY - 1)) == 0) {
				now = rte_rdtsc();
				c->stats.idle_cycles += now - prev;
				stale = false;
			} else {
				now = prev;
				stale = true;
			}
			/* A loop that sleeps is slow: look for a signal at
			 * every sleep, not every 1024 loops. */
			if (slept && lca_eal_stop_requested())
				break;
		}
		if (unlikely(now > deadline_tsc) && is_main) {
			timed_out = true;
			lca_lcore_stop();
		}
		prev = now;
	}
	/* Still runnable: back into the queue, so the next run finds them. */
	for (unsigned int i = 0; i < again.n; i++)
		c->runq[c->tail++ & c->mask] = again.items[i];
	/* Hand on what this lcore still holds, so nothing waits in it. */
	if (cfg.poll != NULL)
		cfg.poll(lcore_id);
	return 0;
}

int
lca_lcore_run(unsigned int timeout_ms)
{
	int ret;

	if (!inited)
		return -EINVAL;
	if (running)
		return -EBUSY;
	if (rte_lcore_id() != rte_get_main_lcore())
		return -EPERM;
	__atomic_store_n(&running, true, __ATOMIC_RELEASE);
	__atomic_store_n(&stop_flag, 0, __ATOMIC_RELEASE);
	timed_out = false;
	deadline_tsc = timeout_ms == 0 ? UINT64_MAX :
		rte_rdtsc() + rte_get_tsc_hz() / 1000 * timeout_ms;
	ret = rte_eal_mp_remote_launch(run_loop, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	__atomic_store_n(&running, false, __ATOMIC_RELEASE);
	if (ret < 0)
		return ret;
	if (timed_out)
		return -ETIMEDOUT;
	return lca_eal_stop_requested() ? -EINTR : 0;
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
	if (out == NULL || lcore_id >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lcore_id))
		return -EINVAL;
	*out = lcores[lcore_id].stats;
	return 0;
}

void
lca_lcore_stats_reset(void)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		memset(&lcores[i].stats, 0, sizeof(lcores[i].stats));
}
