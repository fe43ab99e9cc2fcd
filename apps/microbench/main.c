/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-microbench: messages per second through the runtime's hot path.
 *
 * Scenarios:
 *   same-lcore   one sender streams to one receiver, both on the main lcore;
 *   cross-lcore  the sender on the main lcore, the receiver on the next one;
 *   many-to-one  N senders spread over both lcores, one receiver;
 *   idle         one busy actor (it forwards a window of messages to itself)
 *                alone, then among 10,000 idle actors on the same lcore.
 *
 * A sender is poked: each turn it sends a batch (in bursts of --burst, with
 * lca_msg_alloc_bulk + lca_send_burst, or lca_msg_alloc + lca_send for a
 * burst of 1), then sends the poke envelope to itself to be run again. When
 * a send returns -ENOBUFS (the receiver's mailbox is full, or for a send to
 * another lcore the channel to it) it frees what was not sent and retries
 * next turn; every such retry is counted and printed. A run is timed from
 * the first send to the receiver counting the last message, and every count
 * is checked exactly: any mismatch, leak or timeout exits 1. Each series of
 * measured runs is wrapped in the frequency monitor (lca_freq.h), whose
 * per-lcore clock and steal report follows the series' summary.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_app.h"
#include "lca_actor.h"
#include "lca_cli.h"
#include "lca_eal.h"
#include "lca_freq.h"
#include "lca_freq_json.h"
#include "lca_freq_print.h"
#include "lca_lcore.h"
#include "lca_mempool.h"
#include "lca_report.h"
#include "lca_topo.h"

#define PROG "lca-microbench"

#define MAX_SENDERS 64
#define MAX_BURST 256
#define MAX_RUNS 1024
#define WARMUP_MAX 1000000u /* messages of each scenario's unmeasured warm-up run */

enum scenario {
	SC_SAME_LCORE,
	SC_CROSS_LCORE,
	SC_MANY_TO_ONE,
	SC_IDLE,
	SC_COUNT,
};

static const char *const scenario_names[SC_COUNT] = {
	[SC_SAME_LCORE] = "same-lcore",
	[SC_CROSS_LCORE] = "cross-lcore",
	[SC_MANY_TO_ONE] = "many-to-one",
	[SC_IDLE] = "idle",
};

struct mb_conf {
	uint64_t messages;
	uint64_t runs;
	uint64_t burst;
	uint64_t batch;
	uint64_t senders;
	uint64_t idle;
	uint64_t throughput;
	uint64_t mailbox_size;
	uint64_t timeout_s;
	enum lca_mailbox_mode mailbox_mode;
	bool want[SC_COUNT];
	const char *json_path;
};

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

/* The busy actor of the idle scenario: forwards its messages to itself. */
struct busy {
	uint64_t handled;
	uint64_t expected;
	uint64_t to_forward;
	uint64_t send_errors;
	uint64_t t_first;
	uint64_t t_end;
};

/* Time of the first send of a run (the earliest sender sets it). */
static uint64_t t_start;
/* Messages handled by idle actors (their warm-up message each). */
static uint64_t idle_handled;
static uint64_t idle_expected;

/* One scenario's figures. */
struct result {
	const char *scenario;
	char variant[32];
	unsigned int runs;
	double mps[MAX_RUNS];
	double ms[MAX_RUNS];
	uint64_t full_retries[MAX_RUNS];
	uint64_t full_msgs[MAX_RUNS];
	uint64_t pool_retries[MAX_RUNS];
	double mean, min, max;
	bool sampled;             /* freq_report holds its measured runs */
	json_t *freq_json;        /* that report as JSON, or NULL */
};

static json_t *json_results;

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [EAL args] -- [options]\n"
		"Messages per second through lcactor's send path.\n"
		"  --scenario LIST     comma-separated: same-lcore,cross-lcore,many-to-one,idle\n"
		"                      (default: all)\n"
		"  --messages N        messages per run (default 20000000)\n"
		"  --runs N            measured runs per scenario (default 5)\n"
		"  --burst N           envelopes per alloc/send call, 1..%u (default 32;\n"
		"                      1: lca_msg_alloc + lca_send)\n"
		"  --batch N           messages a sender sends per turn (default 256, >= burst)\n"
		"  --senders N         senders of many-to-one, 1..%u (default 4)\n"
		"  --idle N            idle actors of the idle scenario (default 10000)\n"
		"  --throughput N      receiver's messages per turn, 1..1024 (default 256)\n"
		"  --mailbox-size N    receiver's mailbox, a power of two (default 4096)\n"
		"  --mailbox MODE      receiver's mailbox mode: mp, sp, rts, hts (default mp)\n"
		"  --timeout SEC       give up on a run after SEC seconds (default 120)\n"
		"  --json FILE         also write the results as JSON\n"
		"  --topology          print the lcores' topology and exit\n"
		"  --help              this text\n",
		prog, MAX_BURST, MAX_SENDERS);
}

static int
parse_scenarios(const char *arg, bool *want)
{
	char *copy = strdup(arg), *items[SC_COUNT * 4];
	int n = copy ? lca_cli_split(copy, items, RTE_DIM(items)) : -ENOMEM;

	if (n < 0) {
		free(copy);
		return n;
	}
	memset(want, 0, sizeof(bool) * SC_COUNT);
	for (int i = 0; i < n; i++) {
		unsigned int s;

		for (s = 0; s < SC_COUNT; s++)
			if (strcmp(items[i], scenario_names[s]) == 0)
				break;
		if (s == SC_COUNT) {
			fprintf(stderr, PROG ": unknown scenario '%s' (same-lcore, cross-lcore, "
					"many-to-one, idle)\n", items[i]);
			free(copy);
			return -EINVAL;
		}
		want[s] = true;
	}
	free(copy);
	return 0;
}

static int
parse_args(int argc, char **argv, void *conf)
{
	struct mb_conf *c = conf;
	static const struct option opts[] = {
		{ "scenario", required_argument, NULL, 's' },
		{ "messages", required_argument, NULL, 'm' },
		{ "runs", required_argument, NULL, 'r' },
		{ "burst", required_argument, NULL, 'b' },
		{ "batch", required_argument, NULL, 'B' },
		{ "senders", required_argument, NULL, 'S' },
		{ "idle", required_argument, NULL, 'i' },
		{ "throughput", required_argument, NULL, 't' },
		{ "mailbox-size", required_argument, NULL, 'M' },
		{ "mailbox", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, idx = 0;

	*c = (struct mb_conf){
		.messages = 20000000,
		.runs = 5,
		.burst = 32,
		.batch = 256,
		.senders = 4,
		.idle = 10000,
		.throughput = 256,
		.mailbox_size = 4096,
		.timeout_s = 120,
		.mailbox_mode = LCA_MAILBOX_MP,
	};
	for (unsigned int s = 0; s < SC_COUNT; s++)
		c->want[s] = true;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", opts, &idx)) != -1) {
		int ret = 0;

		switch (opt) {
		case 's':
			ret = parse_scenarios(optarg, c->want);
			break;
		case 'm':
			ret = lca_cli_uint(optarg, 1, UINT64_C(1) << 40, &c->messages);
			break;
		case 'r':
			ret = lca_cli_uint(optarg, 1, MAX_RUNS, &c->runs);
			break;
		case 'b':
			ret = lca_cli_uint(optarg, 1, MAX_BURST, &c->burst);
			break;
		case 'B':
			ret = lca_cli_uint(optarg, 1, 65536, &c->batch);
			break;
		case 'S':
			ret = lca_cli_uint(optarg, 1, MAX_SENDERS, &c->senders);
			break;
		case 'i':
			ret = lca_cli_uint(optarg, 1, 1000000, &c->idle);
			break;
		case 't':
			ret = lca_cli_uint(optarg, 1, 1024, &c->throughput);
			break;
		case 'M':
			ret = lca_cli_uint(optarg, 2, UINT64_C(1) << 24, &c->mailbox_size);
			if (ret == 0 && !rte_is_power_of_2((uint32_t)c->mailbox_size))
				ret = -EINVAL;
			break;
		case 'o':
			ret = lca_mailbox_mode_parse(optarg, &c->mailbox_mode);
			break;
		case 'T':
			ret = lca_cli_uint(optarg, 1, 86400, &c->timeout_s);
			break;
		case 'j':
			c->json_path = optarg;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return LCA_APP_DONE;
		case ':':
			fprintf(stderr, PROG ": option '%s' needs a value\n", argv[optind - 1]);
			return -EINVAL;
		default:
			fprintf(stderr, PROG ": unknown option '%s'\n", argv[optind - 1]);
			return -EINVAL;
		}
		if (ret < 0) {
			fprintf(stderr, PROG ": bad value '%s' for --%s\n", optarg, opts[idx].name);
			return ret;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (c->burst > c->batch) {
		fprintf(stderr, PROG ": --burst (%" PRIu64 ") must not exceed --batch (%" PRIu64 ")\n",
			c->burst, c->batch);
		return -EINVAL;
	}
	if ((c->want[SC_CROSS_LCORE] || c->want[SC_MANY_TO_ONE]) && rte_lcore_count() < 2) {
		fprintf(stderr, PROG ": cross-lcore and many-to-one need 2 lcores (EAL -l 0-1); "
				"have %u; choose others with --scenario\n", rte_lcore_count());
		return -EINVAL;
	}
	return 0;
}

/* --- actors ------------------------------------------------------------ */

/* Send up to a batch; poke itself while there is more to send. */
static void
sender_handler(lca_actor_id_t self, void *state, struct lca_msg *poke)
{
	struct sender *s = state;
	struct lca_msg *msgs[MAX_BURST];
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

static void
busy_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct busy *b = state;

	if (b->handled++ == 0)
		b->t_first = rte_rdtsc();
	if (b->to_forward > 0) {
		if (lca_send(self, msg) == 0)
			b->to_forward--;
		else
			b->send_errors++;
	}
	if (b->handled == b->expected) {
		b->t_end = rte_rdtsc();
		lca_runtime_stop();
	}
}

static void
idle_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	(void)msg;
	if (__atomic_add_fetch(&idle_handled, 1, __ATOMIC_RELAXED) == idle_expected)
		lca_runtime_stop();
}

static int
spawn(lca_handler_fn h, size_t state_size, unsigned int lcore, unsigned int mailbox,
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
static int
inject(lca_actor_id_t to)
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
static int
run_loops(const struct mb_conf *c)
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

/* --- frequency report --------------------------------------------------- */

static struct lca_freq_report freq_report;

/* Sample every lcore's clock and steal time over a series of measured runs. */
static int
freq_start(void)
{
	int ret = lca_freq_monitor_start(NULL);

	if (ret < 0)
		fprintf(stderr, PROG ": cannot start the frequency monitor: %s\n", strerror(-ret));
	return ret;
}

/* Stop sampling; the report is printed after the series' summary. */
static void
freq_stop(struct result *r)
{
	if (lca_freq_monitor_stop(&freq_report) < 0)
		return;
	r->sampled = true;
	r->freq_json = lca_freq_report_json(&freq_report);
}

/* --- figures ------------------------------------------------------------ */

static void
result_summary(struct result *r)
{
	double sum = 0;

	r->min = r->max = r->mps[0];
	for (unsigned int i = 0; i < r->runs; i++) {
		sum += r->mps[i];
		r->min = RTE_MIN(r->min, r->mps[i]);
		r->max = RTE_MAX(r->max, r->mps[i]);
	}
	r->mean = sum / r->runs;
}

static void
print_run(const struct result *r, unsigned int i, uint64_t msgs)
{
	printf("%-12s %s: run %u: %" PRIu64 " msgs in %.1f ms = %.2f M msg/s", r->scenario,
	       r->variant, i + 1, msgs, r->ms[i], r->mps[i]);
	if (strcmp(r->scenario, "idle") != 0)
		printf(", ENOBUFS retries %" PRIu64 " (%" PRIu64 " msgs re-sent)"
		       ", pool-empty retries %" PRIu64,
		       r->full_retries[i], r->full_msgs[i], r->pool_retries[i]);
	printf("\n");
	fflush(stdout);
}

static void
print_summary(struct result *r, uint64_t msgs)
{
	json_t *runs = json_array();

	result_summary(r);
	printf("%-12s %s: mean %.2f M msg/s, min %.2f, max %.2f (%u runs)\n", r->scenario,
	       r->variant, r->mean, r->min, r->max, r->runs);
	if (r->sampled)
		lca_freq_report_print(stdout, &freq_report);
	for (unsigned int i = 0; i < r->runs; i++)
		json_array_append_new(runs,
				      json_pack("{s:I, s:f, s:f, s:I, s:I, s:I}", "messages",
						(json_int_t)msgs, "ms", r->ms[i], "mmsg_per_s",
						r->mps[i], "enobufs_retries",
						(json_int_t)r->full_retries[i], "enobufs_msgs",
						(json_int_t)r->full_msgs[i], "pool_empty_retries",
						(json_int_t)r->pool_retries[i]));
	json_array_append_new(json_results,
			      json_pack("{s:s, s:s, s:o, s:f, s:f, s:f, s:o?}", "scenario",
					r->scenario, "variant", r->variant, "runs", runs,
					"mean_mmsg_per_s", r->mean, "min_mmsg_per_s", r->min,
					"max_mmsg_per_s", r->max, "freq", r->freq_json));
	r->freq_json = NULL; /* the record owns it now */
}

static double
tsc_ms(uint64_t cycles)
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

/* One run of senders -> receiver; figures into r (NULL: warm-up). */
static int
stream_run(const struct mb_conf *c, const lca_actor_id_t *senders, unsigned int n_senders,
	   lca_actor_id_t recv, uint64_t msgs, struct result *r, unsigned int run)
{
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
		if (s->left > 0 && inject(senders[i]) < 0)
			return -EIO;
	}
	ret = run_loops(c);
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
		r->ms[run] = tsc_ms(rs->t_end - t_start);
		r->mps[run] = (double)msgs / (r->ms[run] * 1e3);
		r->full_retries[run] = full;
		r->full_msgs[run] = full_msgs;
		r->pool_retries[run] = pool;
		r->runs = run + 1;
		print_run(r, run, msgs);
	} else {
		printf("   warm-up (not measured): %" PRIu64 " msgs, ENOBUFS retries %" PRIu64
		       " (%" PRIu64 " msgs re-sent), pool-empty retries %" PRIu64 "\n",
		       msgs, full, full_msgs, pool);
	}
	return 0;
}

static int
stream_scenario(const struct mb_conf *c, enum scenario sc)
{
	unsigned int main_lc = rte_get_main_lcore();
	unsigned int other = rte_get_next_lcore(main_lc, 1, 0);
	unsigned int recv_lc = sc == SC_SAME_LCORE ? main_lc : other;
	unsigned int n_senders = sc == SC_MANY_TO_ONE ? (unsigned int)c->senders : 1;
	lca_actor_id_t senders[MAX_SENDERS], recv;
	struct lca_actor_stats recv_before, send_before;
	struct result *r = calloc(1, sizeof(*r));
	int ret;

	if (r == NULL)
		return -ENOMEM;
	r->scenario = scenario_names[sc];
	snprintf(r->variant, sizeof(r->variant), "burst %" PRIu64, c->burst);

	ret = spawn(receiver_handler, sizeof(struct receiver), recv_lc,
		    (unsigned int)c->mailbox_size, c->mailbox_mode, (unsigned int)c->throughput,
		    "receiver", &recv);
	for (unsigned int i = 0; ret == 0 && i < n_senders; i++) {
		unsigned int lc = sc == SC_MANY_TO_ONE && (i % 2) ? other : main_lc;

		ret = spawn(sender_handler, sizeof(struct sender), lc, 16, LCA_MAILBOX_MP, 1,
			    "sender", &senders[i]);
		if (ret == 0) {
			struct sender *s = lca_actor_state(senders[i]);

			s->to = recv;
			s->burst = (unsigned int)c->burst;
			s->batch = (unsigned int)c->batch;
		}
	}
	if (ret < 0)
		goto out;

	printf("\n== %s: %u sender(s) -> 1 receiver; burst %" PRIu64 ", batch %" PRIu64
	       ", receiver throughput %" PRIu64 ", mailbox %" PRIu64 " (%s)\n",
	       r->scenario, n_senders, c->burst, c->batch, c->throughput, c->mailbox_size,
	       lca_mailbox_mode_name(c->mailbox_mode));
	printf("   receiver: actor %u on lcore %u; senders:", recv, recv_lc);
	for (unsigned int i = 0; i < n_senders; i++)
		printf(" actor %u on lcore %d%s", senders[i], lca_actor_lcore(senders[i]),
		       i + 1 < n_senders ? "," : "\n");

	/* Warm-up: fault pages in, fill the pool caches; not measured. */
	ret = stream_run(c, senders, n_senders, recv, RTE_MIN(c->messages, (uint64_t)WARMUP_MAX),
			 NULL, 0);
	if (ret == 0)
		ret = actor_stats_mark(recv, &recv_before, senders[0], &send_before);
	if (ret == 0)
		ret = freq_start();
	for (unsigned int i = 0; ret == 0 && i < c->runs; i++)
		ret = stream_run(c, senders, n_senders, recv, c->messages, r, i);
	if (lca_freq_monitor_active())
		freq_stop(r);
	if (ret == 0) {
		print_summary(r, c->messages);
		print_actor_costs("receiver", recv, &recv_before);
		print_actor_costs("sender", senders[0], &send_before);
	}
out:
	if (r != NULL)
		json_decref(r->freq_json);
	free(r);
	return ret;
}

/* --- idle scenario (4) --------------------------------------------------- */

static int
busy_run(const struct mb_conf *c, lca_actor_id_t busy, uint64_t msgs, struct result *r,
	 unsigned int run)
{
	struct busy *b = lca_actor_state(busy);
	uint64_t window = RTE_MIN(c->throughput, msgs);
	struct lca_actor_stats before, after;
	int ret;

	lca_actor_stats_get(busy, &before);
	*b = (struct busy){ .expected = msgs, .to_forward = msgs - window };
	for (uint64_t i = 0; i < window; i++)
		if (inject(busy) < 0)
			return -EIO;
	ret = run_loops(c);
	if (ret < 0)
		return ret;
	lca_actor_stats_get(busy, &after);
	if (b->handled != msgs || b->to_forward != 0 || b->send_errors != 0 ||
	    after.handled - before.handled != msgs) {
		fprintf(stderr,
			PROG ": count mismatch: busy actor handled %" PRIu64 " (runtime says %" PRIu64
			     "), expected %" PRIu64 ", %" PRIu64 " forwards failed\n",
			b->handled, after.handled - before.handled, msgs, b->send_errors);
		return -EIO;
	}
	if (r != NULL) {
		r->ms[run] = tsc_ms(b->t_end - b->t_first);
		r->mps[run] = (double)msgs / (r->ms[run] * 1e3);
		r->runs = run + 1;
		print_run(r, run, msgs);
	}
	return 0;
}

static int
busy_series(const struct mb_conf *c, lca_actor_id_t busy, struct result *r)
{
	int ret = busy_run(c, busy, RTE_MIN(c->messages, (uint64_t)WARMUP_MAX), NULL, 0);

	if (ret == 0)
		ret = freq_start();
	for (unsigned int i = 0; ret == 0 && i < c->runs; i++)
		ret = busy_run(c, busy, c->messages, r, i);
	if (lca_freq_monitor_active())
		freq_stop(r);
	if (ret == 0)
		print_summary(r, c->messages);
	return ret;
}

static int
idle_scenario(const struct mb_conf *c)
{
	unsigned int lc = rte_get_main_lcore();
	struct result *alone = calloc(1, sizeof(*alone));
	struct result *crowd = calloc(1, sizeof(*crowd));
	struct lca_lcore_stats st;
	lca_actor_id_t busy, first_idle = 0, id;
	uint64_t turns_before;
	int ret;

	if (alone == NULL || crowd == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	alone->scenario = crowd->scenario = "idle";
	snprintf(alone->variant, sizeof(alone->variant), "alone");
	snprintf(crowd->variant, sizeof(crowd->variant), "+%" PRIu64 " idle", c->idle);

	ret = spawn(busy_handler, sizeof(struct busy), lc, (unsigned int)c->mailbox_size,
		    c->mailbox_mode, (unsigned int)c->throughput, "busy", &busy);
	if (ret < 0)
		goto out;
	printf("\n== idle: busy actor %u on lcore %u forwards a window of %" PRIu64
	       " messages to itself (throughput %" PRIu64 ", mailbox %" PRIu64 " (%s)); "
	       "first alone, then among %" PRIu64 " idle actors on the same lcore\n",
	       busy, lc, RTE_MIN(c->throughput, c->messages), c->throughput, c->mailbox_size,
	       lca_mailbox_mode_name(c->mailbox_mode), c->idle);
	ret = busy_series(c, busy, alone);
	if (ret < 0)
		goto out;

	/* The crowd: each idle actor handles one message, then never again. */
	for (uint64_t i = 0; i < c->idle; i++) {
		ret = spawn(idle_handler, 0, lc, 2, LCA_MAILBOX_MP, 1, "idle", &id);
		if (ret < 0)
			goto out;
		if (i == 0)
			first_idle = id;
	}
	idle_handled = 0;
	idle_expected = c->idle;
	for (uint64_t i = 0; i < c->idle; i++) {
		ret = inject(first_idle + (lca_actor_id_t)i);
		if (ret < 0)
			goto out;
	}
	ret = run_loops(c);
	if (ret < 0)
		goto out;
	if (idle_handled != c->idle) {
		fprintf(stderr, PROG ": idle actors handled %" PRIu64 " of %" PRIu64 " messages\n",
			idle_handled, c->idle);
		ret = -EIO;
		goto out;
	}
	printf("   %" PRIu64 " idle actors (ids %u..%" PRIu64 ") on lcore %u, each ran once\n",
	       c->idle, first_idle, first_idle + c->idle - 1, lc);

	lca_lcore_stats_get(lc, &st);
	turns_before = st.turns;
	ret = busy_series(c, busy, crowd);
	if (ret < 0)
		goto out;
	/* No idle actor may have run meanwhile: they had no mail. */
	for (uint64_t i = 0; i < c->idle; i++) {
		struct lca_actor_stats s;

		lca_actor_stats_get(first_idle + (lca_actor_id_t)i, &s);
		if (s.turns != 1) {
			fprintf(stderr, PROG ": idle actor %" PRIu64 " ran %" PRIu64 " turns\n",
				first_idle + i, s.turns);
			ret = -EIO;
			goto out;
		}
	}
	lca_lcore_stats_get(lc, &st);
	printf("   lcore %u ran %" PRIu64 " turns during the crowded runs (all the busy actor's)\n",
	       lc, st.turns - turns_before);
	/* Interference only ever slows a run down, so the best runs are the
	 * steadier comparison on a noisy machine; both are printed. */
	printf("busy actor keeps %.1f%% of its single-actor rate among %" PRIu64
	       " idle actors (mean %.2f vs %.2f M msg/s; best runs %.2f vs %.2f: %.1f%%)\n",
	       100.0 * crowd->mean / alone->mean, c->idle, crowd->mean, alone->mean, crowd->max,
	       alone->max, 100.0 * crowd->max / alone->max);
	json_array_append_new(json_results,
			      json_pack("{s:s, s:I, s:f, s:f}", "scenario", "idle-ratio",
					"idle_actors", (json_int_t)c->idle, "percent_kept",
					100.0 * crowd->mean / alone->mean, "percent_kept_best",
					100.0 * crowd->max / alone->max));
out:
	if (alone != NULL)
		json_decref(alone->freq_json);
	if (crowd != NULL)
		json_decref(crowd->freq_json);
	free(alone);
	free(crowd);
	return ret;
}

/* --- main ---------------------------------------------------------------- */

static int
write_json(const struct mb_conf *c, int status)
{
	struct lca_send_errors e;
	json_t *root, *scen = json_array();
	int ret;

	for (unsigned int s = 0; s < SC_COUNT; s++)
		if (c->want[s])
			json_array_append_new(scen, json_string(scenario_names[s]));
	lca_send_errors_get(&e);
	root = json_pack("{s:s, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:o}, "
			 "s:o, s:o, s:{s:I, s:I, s:I, s:I}, s:b}",
			 "app", PROG, "machine", lca_report_machine_json(), "options", "messages",
			 (json_int_t)c->messages, "runs", (json_int_t)c->runs, "burst",
			 (json_int_t)c->burst, "batch", (json_int_t)c->batch, "senders",
			 (json_int_t)c->senders, "idle", (json_int_t)c->idle, "throughput",
			 (json_int_t)c->throughput, "mailbox_size", (json_int_t)c->mailbox_size,
			 "mailbox_mode", lca_mailbox_mode_name(c->mailbox_mode), "scenarios",
			 scen, "results", json_incref(json_results), "lcores",
			 lca_report_lcores_json(), "send_errors", "mailbox_full",
			 (json_int_t)e.mailbox_full, "no_actor", (json_int_t)e.no_actor, "stopped",
			 (json_int_t)e.stopped, "pool_empty", (json_int_t)e.pool_empty, "ok",
			 status == 0);
	if (root == NULL) {
		fprintf(stderr, PROG ": cannot build the JSON record\n");
		return -ENOMEM;
	}
	ret = lca_report_write_json(c->json_path, root);
	json_decref(root);
	return ret;
}

static int
run(void *arg)
{
	const struct mb_conf *c = arg;
	struct mb_conf conf = *c;
	struct lca_runtime_conf rconf = { 0 };
	unsigned int avail_before, avail_after;
	int ret;

	/* Every actor of every scenario fits; room in the pool for full
	 * mailboxes and every sender's bursts in flight. */
	rconf.max_actors = (unsigned int)(conf.idle + conf.senders + 16);
	rconf.msgs_per_node = (unsigned int)RTE_MAX(65535u, 2 * conf.mailbox_size +
					     (conf.senders + 1) * conf.batch + 8192);
	ret = lca_runtime_init(&rconf);
	if (ret < 0)
		return ret;
	json_results = json_array();

	lca_report_machine(stdout);
	lca_topo_print_eal(stdout);
	printf("# microbench: %" PRIu64 " messages x %" PRIu64 " runs per scenario "
	       "(after one unmeasured warm-up run of %" PRIu64 ")\n",
	       conf.messages, conf.runs, RTE_MIN(conf.messages, (uint64_t)WARMUP_MAX));
	fflush(stdout);

	avail_before = lca_mempool_avail();
	for (unsigned int s = 0; ret == 0 && s < SC_COUNT; s++) {
		if (!conf.want[s])
			continue;
		ret = s == SC_IDLE ? idle_scenario(&conf) : stream_scenario(&conf, (enum scenario)s);
	}
	avail_after = lca_mempool_avail();
	if (ret == 0 && avail_after != avail_before) {
		fprintf(stderr, PROG ": envelopes leaked: %u available before, %u after\n",
			avail_before, avail_after);
		ret = -EIO;
	}

	printf("\n");
	lca_report_lcores(stdout);
	lca_report_send_errors(stdout);
	if (conf.json_path != NULL && write_json(&conf, ret) < 0 && ret == 0)
		ret = -EIO;
	printf("%s\n", ret == 0 ? "result: ok (every message counted)" : "result: FAILED");

	json_decref(json_results);
	lca_runtime_cleanup();
	return ret;
}

int
main(int argc, char **argv)
{
	struct mb_conf conf;
	const struct lca_app app = {
		.name = PROG, .parse = parse_args, .run = run, .conf = &conf,
	};

	return lca_app_main(argc, argv, &app);
}
