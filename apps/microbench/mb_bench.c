/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The microbenchmark's streaming scenarios (same-lcore, cross-lcore,
 * many-to-one) and what every scenario uses: spawning, injecting, running.
 *
 * A sender is poked: each turn it sends a batch (in bursts of --burst, with
 * lca_msg_alloc_bulk + lca_send_burst, or lca_msg_alloc + lca_send for a
 * burst of 1), then sends the poke envelope to itself to be run again. When
 * a send returns -ENOBUFS (the receiver's mailbox is full, or for a send to
 * another lcore the channel to it) it frees what was not sent and retries
 * next turn; every such retry is counted and printed. A run is timed from
 * the first send to the receiver counting the last message, and every count
 * is checked exactly: any mismatch, leak or timeout fails the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "app_floor_stream.h"
#include "lca_lcore.h"
#include "app_window.h"
#include "microbench.h"

#define PROG MB_PROG

/* A poked sender's state (on its home node; touched only by its lcore
 * while the loops run, by main between runs). */
struct sender {
	lca_actor_id_t to;
	unsigned int burst;
	unsigned int batch;
	uint64_t left;        /* messages still to send this run */
	uint64_t sent;        /* sent this run */
	uint64_t full_retries; /* turns cut short by -ENOBUFS */
	uint64_t full_msgs;   /* messages freed unsent because of it (re-sent later) */
	uint64_t pool_retries; /* turns cut short by an empty pool */
};

/* The receiver's state. */
struct receiver {
	uint64_t count;
	uint64_t expected;
	uint64_t t_end;
};

/* Time of the first send of a run (the earliest sender sets it). */
static uint64_t t_start;
/* --- actors ------------------------------------------------------------ */

/* Send up to a batch; poke itself while there is more to send. */
static void
sender_handler(lca_actor_id_t self, void *state, struct lca_msg *poke)
{
	struct sender *s = state;
	struct lca_msg *msgs[MB_MAX_BURST];
	uint64_t quota = RTE_MIN(s->left, (uint64_t)s->batch);
	uint64_t now = rte_rdtsc();
	uint64_t zero = 0;

	__atomic_compare_exchange_n(&t_start, &zero, now, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	while (quota > 0) {
		unsigned int n = (unsigned int)RTE_MIN(quota, (uint64_t)s->burst);
		unsigned int sent;
		int err;

		if (n == 1 && s->burst == 1) {
			if (lca_msg_alloc(&msgs[0]) != 0) {
				s->pool_retries++;
				break;
			}
			err = lca_send(s->to, msgs[0]);
			sent = err == 0 ? 1 : 0;
		} else {
			if (lca_msg_alloc_bulk(msgs, n) != 0) {
				s->pool_retries++;
				break;
			}
			sent = lca_send_burst(s->to, msgs, n, &err);
		}
		s->sent += sent;
		s->left -= sent;
		quota -= sent;
		if (sent < n) {
			/* Still ours: free them and retry next turn. */
			for (unsigned int i = sent; i < n; i++)
				lca_msg_free(msgs[i]);
			if (err == -ENOBUFS) {
				s->full_retries++;
				s->full_msgs += n - sent;
			} else {
				fprintf(stderr, PROG ": sender %u: send failed: %s\n", self,
					strerror(-err));
				s->left = 0; /* the run will fail its count check */
			}
			break;
		}
	}
	/* Keep going: the poke envelope goes back to us (no allocation). */
	if (s->left > 0 && lca_send(self, poke) != 0) {
		fprintf(stderr, PROG ": sender %u: cannot poke itself\n", self);
		lca_runtime_stop();
	}
}

static void
receiver_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct receiver *r = state;

	(void)self;
	(void)msg;
	if (++r->count == r->expected) {
		r->t_end = rte_rdtsc();
		lca_runtime_stop();
	}
}

int
mb_spawn(lca_handler_fn h, size_t state_size, unsigned int lcore, unsigned int mailbox,
      enum lca_mailbox_mode mode, unsigned int throughput, const char *name, lca_actor_id_t *id)
{
	struct lca_actor_spec spec = {
		.handler = h,
		.state_size = state_size,
		.lcore = lcore,
		.mailbox_size = mailbox,
		.mailbox_mode = mode,
		.throughput = throughput,
		.name = name,
	};
	int ret = lca_actor_spawn(&spec, id);

	if (ret < 0)
		fprintf(stderr, PROG ": cannot spawn %s on lcore %u: %s\n", name, lcore,
			strerror(-ret));
	return ret;
}

/* Send a fresh envelope from outside any actor. */
int
mb_inject(lca_actor_id_t to)
{
	struct lca_msg *m;
	int ret = lca_msg_alloc(&m);

	if (ret == 0) {
		ret = lca_send(to, m);
		if (ret < 0)
			lca_msg_free(m);
	}
	if (ret < 0)
		fprintf(stderr, PROG ": cannot send to actor %u: %s\n", to, strerror(-ret));
	return ret;
}

/* Run the loops once, within --timeout. */
int
mb_run_loops(const struct mb_conf *c)
{
	int ret = lca_runtime_run((unsigned int)(c->timeout_s * 1000));

	if (ret == -ETIMEDOUT)
		fprintf(stderr, PROG ": run did not finish within %" PRIu64 " s (--timeout)\n",
			c->timeout_s);
	else if (ret == -EINTR)
		fprintf(stderr, PROG ": interrupted\n");
	else if (ret < 0)
		fprintf(stderr, PROG ": runtime run failed: %s\n", strerror(-ret));
	return ret;
}

double
mb_tsc_ms(uint64_t cycles)
{
	return (double)cycles * 1e3 / (double)rte_get_tsc_hz();
}

/* --- streaming scenarios (1-3) ------------------------------------------ */

static int
actor_stats_mark(lca_actor_id_t a, struct lca_actor_stats *sa, lca_actor_id_t b,
		 struct lca_actor_stats *sb)
{
	return lca_actor_stats_get(a, sa) == 0 && lca_actor_stats_get(b, sb) == 0 ? 0 : -EIO;
}

/* What the measured runs cost one actor, from the runtime's counters. */
static void
print_actor_costs(const char *what, lca_actor_id_t id, const struct lca_actor_stats *before)
{
	struct lca_actor_stats now;
	uint64_t turns, handled, cycles, timed;

	if (lca_actor_stats_get(id, &now) != 0)
		return;
	turns = now.turns - before->turns;
	handled = now.handled - before->handled;
	cycles = now.handler_cycles - before->handler_cycles;
	timed = now.timed_msgs - before->timed_msgs;
	printf("   %s actor %u: %" PRIu64 " turns, %.1f msgs/turn, %.1f cycles/msg in its "
	       "handler (frees included), mailbox high-water %u, deferred %" PRIu64 "\n",
	       what, id, turns, turns ? (double)handled / (double)turns : 0.0,
	       timed ? (double)cycles / (double)timed : 0.0, now.mailbox_hwm,
	       now.deferred - before->deferred);
}

/* The actors of a streaming scenario, and where its figures go. */
struct stream {
	const struct mb_conf *c;
	enum mb_scenario sc;
	lca_actor_id_t senders[MB_MAX_SENDERS];
	unsigned int n_senders;
	lca_actor_id_t recv;
	unsigned int send_lc, recv_lc; /* main's lcore, the receiver's */
	struct mb_result *r;
};

/* Of @p msgs, what the senders on another lcore than the receiver's send,
 * each its share as stream_run() deals them. */
static uint64_t
cross_share(const struct stream *st, uint64_t msgs)
{
	uint64_t cross = 0;

	for (unsigned int i = 0; i < st->n_senders; i++)
		if ((unsigned int)lca_actor_lcore(st->senders[i]) != st->recv_lc)
			cross += msgs / st->n_senders + (i < msgs % st->n_senders);
	return cross;
}

/* The floor's messages sent and handled on one lcore. */
struct local_work {
	const struct stream *st;
	struct receiver rs;
};

/*
 * The work of @p n messages sent and handled on one lcore, without the
 * runtime: envelopes from the pool in bursts of --burst, as a sender takes
 * them, the receiver's own handler called on each in a plain loop, and
 * given back in one call, as a turn frees what its handler left. The
 * same-lcore floor, and the local half of a many-to-one floor.
 */
static int
local_burst(void *arg, unsigned int n)
{
	struct local_work *w = arg;
	struct lca_msg *m[MB_MAX_BURST];
	unsigned int burst = (unsigned int)w->st->c->burst;

	while (n > 0) {
		unsigned int k = RTE_MIN(n, burst);

		if ((k == 1 ? lca_msg_alloc(&m[0]) : lca_msg_alloc_bulk(m, k)) != 0)
			return -ENOMEM;
		for (unsigned int i = 0; i < k; i++)
			receiver_handler(w->st->recv, &w->rs, m[i]);
		lca_msg_free_bulk(m, k);
		n -= k;
	}
	return 0;
}

/* The same-lcore floor: local_burst() with no mailbox or scheduler. */
static int
same_lcore_floor(const struct stream *st, uint64_t msgs, uint64_t *cycles)
{
	struct local_work w = { .st = st, .rs.expected = UINT64_MAX };
	unsigned int burst = (unsigned int)st->c->burst;
	uint64_t t0 = rte_rdtsc();

	for (uint64_t left = msgs; left > 0;) {
		unsigned int n = (unsigned int)RTE_MIN(left, (uint64_t)burst);
		int ret = local_burst(&w, n);

		if (ret != 0)
			return ret;
		left -= n;
		if ((left & 0xffff) < n && lca_eal_stop_requested())
			return -EINTR;
	}
	*cycles = rte_rdtsc() - t0;
	return w.rs.count == msgs ? 0 : -EIO;
}

/* A round of the scenario's floor of @p msgs; its time in @p ms. */
static int
floor_of(const struct stream *st, uint64_t msgs, double *ms)
{
	uint64_t cycles = 0, cross = cross_share(st, msgs);
	int ret;

	if (st->sc == MB_SAME_LCORE) {
		ret = same_lcore_floor(st, msgs, &cycles);
	} else {
		/* What crosses goes through the ring; what the senders on the
		 * receiver's lcore send, its consumer takes, handles and gives
		 * back itself, a sender's batch between two looks. */
		struct local_work w = { .st = st, .rs.expected = UINT64_MAX };
		struct app_floor_stream fs = {
			.producer = st->send_lc, .consumer = st->recv_lc,
			.messages = cross, .local = msgs - cross,
			.burst = (unsigned int)st->c->batch,
			.local_fn = local_burst, .local_arg = &w,
		};

		ret = app_floor_stream_run(&fs, &cycles);
		if (ret == 0 && w.rs.count != msgs - cross)
			ret = -EIO;
	}
	if (ret < 0 && ret != -EINTR) /* a signal: the app says "interrupted" */
		fprintf(stderr, PROG ": %s: the floor round failed: %s\n", st->r->label,
			strerror(-ret));
	*ms = mb_tsc_ms(cycles);
	return ret;
}

/* One round of the scenario's floor, before its run @p k (ABAB). */
static int
floor_round(const struct stream *st, unsigned int k)
{
	struct mb_result *r = st->r;
	int ret = floor_of(st, r->floor_messages, &r->floor_ms[k]);

	if (ret == 0)
		r->floor_mps[k] = (double)r->floor_messages / (r->floor_ms[k] * 1e3);
	return ret;
}

/* What the floor of scenario @p st is, in words, into its result. */
static void
describe_floor(const struct stream *st)
{
	struct mb_result *r = st->r;
	uint64_t cross = cross_share(st, r->floor_messages);

	if (st->sc == MB_SAME_LCORE)
		snprintf(r->floor_what, sizeof(r->floor_what),
			 "the receiver's handler called in a plain loop on lcore %u, envelopes "
			 "from the pool in bursts of %" PRIu64, st->recv_lc, st->c->burst);
	else if (cross == r->floor_messages)
		snprintf(r->floor_what, sizeof(r->floor_what),
			 "a bare ring of 64-byte slots streamed from lcore %u to lcore %u",
			 st->send_lc, st->recv_lc);
	else
		snprintf(r->floor_what, sizeof(r->floor_what),
			 "a bare ring of 64-byte slots streamed from lcore %u to lcore %u "
			 "(%" PRIu64 " msgs), lcore %u taking, handling and freeing its own %" PRIu64
			 " between looks",
			 st->send_lc, st->recv_lc, cross, st->recv_lc, r->floor_messages - cross);
}

/* One run of senders -> receiver; figures into r (NULL: a warm-up or a
 * pilot, whose count and time go into the result's warmup_msgs and _ms). */
static int
stream_run(const struct mb_conf *c, const struct stream *st, uint64_t msgs, struct mb_result *r,
	   unsigned int run)
{
	const lca_actor_id_t *senders = st->senders, recv = st->recv;
	unsigned int n_senders = st->n_senders;
	struct receiver *rs = lca_actor_state(recv);
	struct lca_actor_stats before, after;
	uint64_t sent = 0, full = 0, full_msgs = 0, pool = 0;
	int ret;

	lca_actor_stats_get(recv, &before);
	rs->count = 0;
	rs->expected = msgs;
	rs->t_end = 0;
	t_start = 0;
	for (unsigned int i = 0; i < n_senders; i++) {
		struct sender *s = lca_actor_state(senders[i]);

		s->left = msgs / n_senders + (i < msgs % n_senders ? 1 : 0);
		s->sent = s->full_retries = s->full_msgs = s->pool_retries = 0;
		if (s->left > 0 && mb_inject(senders[i]) < 0)
			return -EIO;
	}
	ret = mb_run_loops(c);
	if (ret < 0)
		return ret;

	lca_actor_stats_get(recv, &after);
	for (unsigned int i = 0; i < n_senders; i++) {
		struct sender *s = lca_actor_state(senders[i]);

		sent += s->sent;
		full += s->full_retries;
		full_msgs += s->full_msgs;
		pool += s->pool_retries;
	}
	if (rs->count != msgs || sent != msgs || after.handled - before.handled != msgs ||
	    after.received - before.received != msgs) {
		fprintf(stderr,
			PROG ": count mismatch: sent %" PRIu64 ", received %" PRIu64
			     ", handled %" PRIu64 ", counted %" PRIu64 ", expected %" PRIu64 "\n",
			sent, after.received - before.received, after.handled - before.handled,
			rs->count, msgs);
		return -EIO;
	}
	if (r != NULL) {
		r->ms[run] = mb_tsc_ms(rs->t_end - t_start);
		r->mps[run] = (double)msgs / (r->ms[run] * 1e3);
		r->full_retries[run] = full;
		r->full_msgs[run] = full_msgs;
		r->pool_retries[run] = pool;
		r->runs = run + 1;
		mb_print_run(r, run);
	} else {
		st->r->warmup_msgs = msgs;
		st->r->warmup_ms = mb_tsc_ms(rs->t_end - t_start);
		printf("   warm-up (not measured): %" PRIu64 " msgs in %.1f ms, ENOBUFS retries %"
		       PRIu64 " (%" PRIu64 " msgs re-sent), pool-empty retries %" PRIu64 "\n",
		       msgs, st->r->warmup_ms, full, full_msgs, pool);
	}
	return 0;
}

static int
stream_one(void *arg, unsigned int k)
{
	const struct stream *st = arg;
	int ret = floor_round(st, k);

	if (ret == 0)
		ret = stream_run(st->c, st, st->r->messages, st->r, k);
	if (ret == 0)
		mb_print_floor(st->r, k);
	return ret;
}

/* The receiver on @p run->recv_lc, the senders on the main lcore (every
 * other one on the second lcore for many-to-one). */
static int
stream_spawn(const struct mb_conf *c, struct stream *run, unsigned int other)
{
	int ret = mb_spawn(receiver_handler, sizeof(struct receiver), run->recv_lc,
			   (unsigned int)c->mailbox_size, c->mailbox_mode,
			   (unsigned int)c->throughput, "receiver", &run->recv);

	for (unsigned int i = 0; ret == 0 && i < run->n_senders; i++) {
		unsigned int lc = run->sc == MB_MANY_TO_ONE && (i % 2) ? other : run->send_lc;

		ret = mb_spawn(sender_handler, sizeof(struct sender), lc, 16, LCA_MAILBOX_MP, 1,
			       "sender", &run->senders[i]);
		if (ret == 0) {
			struct sender *s = lca_actor_state(run->senders[i]);

			s->to = run->recv;
			s->burst = (unsigned int)c->burst;
			s->batch = (unsigned int)c->batch;
		}
	}
	return ret;
}

static void
stream_describe(const struct mb_conf *c, const struct stream *run)
{
	printf("\n== %s: %u sender(s) -> 1 receiver; burst %" PRIu64 ", batch %" PRIu64
	       ", receiver throughput %" PRIu64 ", mailbox %" PRIu64 " (%s)\n",
	       run->r->scenario, run->n_senders, c->burst, c->batch, c->throughput,
	       c->mailbox_size, lca_mailbox_mode_name(c->mailbox_mode));
	printf("   receiver: actor %u on lcore %u; senders:", run->recv, run->recv_lc);
	for (unsigned int i = 0; i < run->n_senders; i++)
		printf(" actor %u on lcore %d%s", run->senders[i], lca_actor_lcore(run->senders[i]),
		       i + 1 < run->n_senders ? "," : "\n");
}

/* Warm-up: fault pages in, fill the pool caches; not measured, but its rate
 * (and its floor's) sets the counts unless --messages did. */
static int
stream_calibrate(const struct mb_conf *c, struct stream *run)
{
	struct mb_result *r = run->r;
	int ret = stream_run(c, run, RTE_MIN(c->messages, (uint64_t)MB_WARMUP_MAX), NULL, 0);

	if (ret == 0)
		ret = floor_of(run, r->warmup_msgs, &r->floor_warmup_ms);
	r->floor_warmup_msgs = r->warmup_msgs;
	/* The first warm-up runs cold, and may be over in a tick or two:
	 * pilots of twice as many until one lasts APP_WINDOW_PILOT_S give
	 * the rates. */
	while (ret == 0 && !c->messages_given && r->warmup_ms < APP_WINDOW_PILOT_S * 1e3)
		ret = stream_run(c, run, 2 * r->warmup_msgs, NULL, 0);
	while (ret == 0 && !c->messages_given && r->floor_warmup_ms < APP_WINDOW_PILOT_S * 1e3) {
		r->floor_warmup_msgs *= 2;
		ret = floor_of(run, r->floor_warmup_msgs, &r->floor_warmup_ms);
	}
	if (ret != 0)
		return ret;
	r->messages = mb_calibrate(c, r->warmup_msgs, r->warmup_ms);
	r->floor_messages = mb_calibrate(c, r->floor_warmup_msgs, r->floor_warmup_ms);
	if (c->messages_given)
		r->warmup_ms = r->floor_warmup_ms = 0;
	mb_print_calibration(r);
	describe_floor(run);
	printf("   floor: %s; a round of it before each run\n", r->floor_what);
	return 0;
}

int
mb_stream_scenario(const struct mb_conf *c, enum mb_scenario sc)
{
	unsigned int main_lc = rte_get_main_lcore();
	unsigned int other = rte_get_next_lcore(main_lc, 1, 0);
	struct lca_actor_stats recv_before, send_before;
	struct mb_result *r = calloc(1, sizeof(*r));
	struct stream run = {
		.c = c, .sc = sc, .n_senders = sc == MB_MANY_TO_ONE ? (unsigned int)c->senders : 1,
		.r = r, .send_lc = main_lc, .recv_lc = sc == MB_SAME_LCORE ? main_lc : other,
	};
	int ret;

	if (r == NULL)
		return -ENOMEM;
	r->scenario = mb_scenario_names[sc];
	r->messages = c->messages;
	r->calibrated = !c->messages_given;
	snprintf(r->variant, sizeof(r->variant), "burst %" PRIu64, c->burst);
	snprintf(r->label, sizeof(r->label), "%s %s", r->scenario, r->variant);
	ret = stream_spawn(c, &run, other);
	if (ret == 0) {
		stream_describe(c, &run);
		ret = stream_calibrate(c, &run);
	}
	if (ret == 0)
		ret = actor_stats_mark(run.recv, &recv_before, run.senders[0], &send_before);
	if (ret == 0)
		ret = app_series_run(&r->series, r->label, (unsigned int)c->runs, stream_one, &run);
	if (ret == 0) {
		mb_report_series(r);
		print_actor_costs("receiver", run.recv, &recv_before);
		print_actor_costs("sender", run.senders[0], &send_before);
	}
	app_series_release(&r->series);
	free(r);
	return ret;
}
