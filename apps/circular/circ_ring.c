/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring and its rounds. The lcore loops keep running from round to
 * round: the actor that gets 0 reads the TSC, records the round, and sends
 * the next round's number to the first actor itself, reusing the envelope,
 * until the rounds of the phase are done; then it stops the loops.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "circular.h"

/* Only one message is ever in flight, so mailboxes need no depth. */
#define RING_MAILBOX 16
/* A phase that runs longer than this has lost its message. */
#define PHASE_TIMEOUT_BASE_MS 10000
#define PHASE_TIMEOUT_NS_PER_HOP 100000

struct circ_actor {
	lca_actor_id_t next;
};

/* The rounds of one phase. Written by the actor that gets 0 (always the
 * same one, hops mod N), and by the main lcore while the loops are stopped. */
static struct {
	uint64_t start;      /* TSC at the round's start send */
	uint64_t *cycles;    /* where measured rounds go */
	uint64_t done;       /* rounds ended */
	uint64_t skip;       /* rounds not recorded at the phase's start */
	uint64_t total;      /* most rounds of the phase */
	uint64_t least;      /* rounds of the phase before it may end early... */
	uint64_t window;     /* ...once its recorded rounds have taken this many cycles */
	uint64_t spent;      /* cycles of the recorded rounds so far */
	uint32_t hops;
	lca_actor_id_t first;
	uint32_t send_failed; /* atomic: a forward failed; the phase stops */
} __rte_cache_aligned rounds;

static void
forward_failed(int err)
{
	fprintf(stderr, "lca-circular: a forward failed: %s\n", strerror(-err));
	__atomic_store_n(&rounds.send_failed, 1, __ATOMIC_RELAXED);
	lca_runtime_stop();
}

static void
round_end(struct lca_msg *msg)
{
	uint64_t now = rte_rdtsc();
	int ret;

	if (rounds.done >= rounds.skip) {
		rounds.cycles[rounds.done - rounds.skip] = now - rounds.start;
		rounds.spent += now - rounds.start;
	}
	if (++rounds.done == rounds.total ||
	    (rounds.done >= rounds.least && rounds.spent >= rounds.window)) {
		lca_runtime_stop();
		return; /* the runtime frees the envelope */
	}
	*(uint32_t *)msg->data = rounds.hops;
	rounds.start = rte_rdtsc();
	ret = lca_send(rounds.first, msg);
	if (unlikely(ret != 0))
		forward_failed(ret);
}

static void
ring_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	const struct circ_actor *a = state;
	uint32_t n = *(uint32_t *)msg->data;
	int ret;

	(void)self;
	if (unlikely(n == 0)) {
		round_end(msg);
		return;
	}
	*(uint32_t *)msg->data = n - 1;
	ret = lca_send(a->next, msg);
	if (unlikely(ret != 0))
		forward_failed(ret);
}

static int
spawn_ring(const struct circ_conf *c, lca_actor_id_t *ids, struct circ_outcome *out)
{
	for (unsigned int i = 0; i < c->actors; i++) {
		struct lca_actor_spec spec = {
			.handler = ring_handler,
			.state_size = sizeof(struct circ_actor),
			.lcore = LCA_LCORE_ANY,
			.mailbox_size = RING_MAILBOX,
			.name = "ring",
		};
		int ret = lca_actor_spawn(&spec, &ids[i]);

		if (ret < 0) {
			fprintf(stderr, "lca-circular: cannot spawn actor %u of %u: %s\n", i,
				c->actors, strerror(-ret));
			return ret;
		}
		out->lcore_of[i] = (unsigned int)lca_actor_lcore(ids[i]);
	}
	out->cross_links = 0;
	for (unsigned int i = 0; i < c->actors; i++) {
		struct circ_actor *a = lca_actor_state(ids[i]);
		unsigned int j = (i + 1) % c->actors;

		a->next = ids[j];
		out->cross_links += out->lcore_of[i] != out->lcore_of[j];
	}
	return 0;
}

/* One launch of the loops: at least @p least rounds and then until the
 * recorded ones have taken @p window cycles, at most @p total; the first
 * @p skip not recorded. */
static int
run_phase(const struct circ_conf *c, lca_actor_id_t first, uint64_t least, uint64_t window,
	  uint64_t total, uint64_t skip, uint64_t *cycles)
{
	/* Saturating: rounds x hops x ns a hop overflows 64 bits long before
	 * it stops being "no limit" (0 below). */
	uint64_t hops = total * (uint64_t)c->hops, timeout_ms = UINT64_MAX;
	struct lca_msg *m;
	int ret;

	if ((c->hops == 0 || hops / c->hops == total) &&
	    hops <= UINT64_MAX / PHASE_TIMEOUT_NS_PER_HOP)
		timeout_ms = PHASE_TIMEOUT_BASE_MS + hops * PHASE_TIMEOUT_NS_PER_HOP / 1000000;

	rounds.cycles = cycles;
	rounds.done = 0;
	rounds.skip = skip;
	rounds.total = total;
	rounds.least = least;
	rounds.window = window;
	rounds.spent = 0;
	rounds.hops = c->hops;
	rounds.first = first;
	ret = lca_msg_alloc(&m);
	if (ret < 0)
		return ret;
	*(uint32_t *)m->data = c->hops;
	m->len = sizeof(uint32_t);
	rounds.start = rte_rdtsc();
	ret = lca_send(first, m);
	if (ret < 0) {
		lca_msg_free(m);
		return ret;
	}
	ret = lca_runtime_run(timeout_ms > UINT32_MAX ? 0 : (unsigned int)timeout_ms);
	if (ret == -ETIMEDOUT)
		fprintf(stderr, "lca-circular: %u actors: the rounds did not end in %" PRIu64
				" ms (%" PRIu64 " of %" PRIu64 " done)\n",
			c->actors, timeout_ms, rounds.done, total);
	if (ret == 0 && (rounds.send_failed || rounds.done < least))
		ret = -EIO;
	return ret;
}

static int
check_counts(const struct circ_conf *c, const lca_actor_id_t *ids, struct circ_outcome *out)
{
	struct lca_send_errors e;

	out->handled = 0;
	for (unsigned int i = 0; i < c->actors; i++) {
		struct lca_actor_stats s;

		if (lca_actor_stats_get(ids[i], &s) == 0)
			out->handled += s.handled;
	}
	out->expected = out->rounds * ((uint64_t)c->hops + 1);
	lca_send_errors_get(&e);
	if (out->handled != out->expected ||
	    e.mailbox_full + e.no_actor + e.stopped + e.pool_empty != 0) {
		fprintf(stderr, "lca-circular: %u actors: %" PRIu64 " messages handled, expected %"
				PRIu64 " (%" PRIu64 " rounds x %" PRIu32 " + 1); send failures %"
				PRIu64 "\n",
			c->actors, out->handled, out->expected, out->rounds, c->hops,
			e.mailbox_full + e.no_actor + e.stopped + e.pool_empty);
		return -EIO;
	}
	return 0;
}

int
circ_run(const struct circ_conf *c, circ_phase_fn phase, void *arg, struct circ_outcome *out)
{
	struct lca_runtime_conf rc = {
		.max_actors = c->actors,
		.placement = c->placement,
		.msgs_per_node = 4095,
	};
	lca_actor_id_t *ids = calloc(c->actors, sizeof(*ids));
	bool begun;
	int ret, end;

	if (ids == NULL)
		return -ENOMEM;
	memset(&rounds, 0, sizeof(rounds));
	ret = lca_runtime_init(&rc);
	if (ret < 0) {
		fprintf(stderr, "lca-circular: runtime init failed: %s\n", strerror(-ret));
		free(ids);
		return ret;
	}
	out->rounds = 0;
	ret = spawn_ring(c, ids, out);
	if (ret == 0 && c->warmup > 0) {
		ret = run_phase(c, ids[0], c->warmup, 0, c->warmup, c->warmup, NULL);
		out->rounds += rounds.done;
	}
	begun = ret == 0;
	if (begun)
		ret = phase(0, 0, arg);
	for (unsigned int k = 0; ret == 0 && k < c->iterations; k++) {
		/* The launch of the loops is in the first round: not counted. */
		ret = run_phase(c, ids[0], 1 + (uint64_t)c->min_rounds,
				(uint64_t)(c->window_s * (double)rte_get_tsc_hz()),
				1 + (uint64_t)c->max_rounds, 1, out->cycles);
		out->rounds += rounds.done;
		if (ret == 0)
			ret = phase(k, (unsigned int)(rounds.done - 1), arg);
	}
	/* The monitor stops whatever happened, as it started. */
	if (begun && (end = phase(c->iterations, 0, arg)) < 0 && ret == 0)
		ret = end;
	if (ret == 0)
		ret = check_counts(c, ids, out);
	lca_runtime_cleanup();
	free(ids);
	return ret;
}
