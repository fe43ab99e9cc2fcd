/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lcactor engine: each partition's source is a loop hook on its lcore
 * (polled by the run loop, never an actor that sends itself a tick); each
 * partition's task is an actor on the partition's lcore, its counts in its
 * state on that lcore's node. A source stops producing for a partition
 * whose backlog (lca_actor_backlog(): what waits for the task, wherever)
 * is at the watermark, so nothing is refused, and what a send refuses all
 * the same is made again.
 *
 * --carrier says what carries a record:
 * - mbuf: the record in the private area of an mbuf, its pointer on the
 *   packet lane (lca_send_packets(), a task with on_packets). The mbufs
 *   carry no packet data, so they are taken and given back with the
 *   mempool's bulk calls, as plain takes its buffers and as a PMD refills
 *   its RX ring: direct, one segment, reference count 1 from the pool's
 *   init to its free, never reset. The runtime writes only its lca_pkt_meta.
 * - envelope: the record in an envelope's inline data (lca_msg_alloc_bulk(),
 *   lca_send_burst_rtc(), a task with a batch handler): the message path.
 * Sent from the task's own lcore to an idle task, either is taken before
 * the send returns, run to completion.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lca_actor.h"
#include "lca_lcore.h"
#include "pipeline.h"

#define PL_MSG_TYPE 0x504c /* "PL" */
#define CARRIER_CACHE 512
#define CARRIER_PRIV RTE_ALIGN_CEIL(sizeof(struct pl_rec), RTE_MBUF_PRIV_ALIGN)

/* A source lcore's hook: the partitions it produces for, and their tasks. */
struct src_hook {
	struct pl_lcore *l;
	unsigned int n;
	uint32_t part[PL_MAX_PARTITIONS];
	lca_actor_id_t task[PL_MAX_PARTITIONS];
	struct rte_mempool *carriers; /* --carrier mbuf: its node's pool */
	bool added;
};

static lca_actor_id_t task_id[PL_MAX_PARTITIONS];
static struct pl_task *task_state[PL_MAX_PARTITIONS];
static struct src_hook *hooks[RTE_MAX_LCORE];
static struct rte_mempool *carrier_pool[RTE_MAX_NUMA_NODES];
static bool runtime_up;

/* Records @p recs[0..n) to @p to in envelopes: how many went (what a send
 * refused is counted, and made again next time: the source commits what
 * went). */
static unsigned int
put_envelopes(lca_actor_id_t to, const struct pl_rec *recs, unsigned int n, struct pl_fig *f)
{
	struct lca_msg *msgs[PL_MAX_BURST];
	unsigned int sent;
	int err;

	if (lca_msg_alloc_bulk(msgs, n) != 0) {
		f->pool_empty++;
		return 0;
	}
	for (unsigned int k = 0; k < n; k++) {
		memcpy(msgs[k]->data, &recs[k], sizeof(recs[k]));
		msgs[k]->type = PL_MSG_TYPE;
		msgs[k]->len = sizeof(recs[k]);
	}
	sent = lca_send_burst_rtc(to, msgs, n, &err);
	if (sent < n) {
		lca_msg_free_bulk(msgs + sent, n - sent);
		f->refused += n - sent;
	}
	return sent;
}

/* Records @p recs[0..n) to @p to in mbufs of @p pool: as put_envelopes(). */
static unsigned int
put_mbufs(lca_actor_id_t to, struct rte_mempool *pool, const struct pl_rec *recs, unsigned int n,
	  struct pl_fig *f)
{
	struct rte_mbuf *pkts[PL_MAX_BURST];
	int sent;

	if (rte_mempool_get_bulk(pool, (void **)pkts, n) != 0) {
		f->pool_empty++;
		return 0;
	}
	for (unsigned int k = 0; k < n; k++)
		memcpy(rte_mbuf_to_priv(pkts[k]), &recs[k], sizeof(recs[k]));
	sent = lca_send_packets(to, pkts, n);
	if (sent < 0)
		sent = 0;
	if ((unsigned int)sent < n) {
		rte_mempool_put_bulk(pool, (void **)pkts + sent, n - (unsigned int)sent);
		f->refused += n - (unsigned int)sent;
	}
	return (unsigned int)sent;
}

static unsigned int
src_poll(unsigned int lcore_id, uint64_t now, void *arg)
{
	struct src_hook *h = arg;
	struct pl_fig *f = &h->l->f;
	const struct pl_conf *c = pl.conf;
	struct pl_rec recs[PL_MAX_BURST];
	unsigned int work = 0;

	(void)lcore_id;
	pl_warm_check(f, now);
	for (unsigned int i = 0; i < h->n; i++) {
		uint32_t p = h->part[i];
		lca_actor_id_t to = h->task[i];
		unsigned int n, sent, max = c->burst;
		int backlog;

		if (pl.feed->remaining(p) == 0)
			continue;
		backlog = lca_actor_backlog(to);
		if (backlog < 0 || (unsigned int)backlog >= c->watermark) {
			f->held++;
			continue;
		}
		if (c->watermark - (unsigned int)backlog < max)
			max = c->watermark - (unsigned int)backlog;
		n = pl.feed->peek(p, recs, max);
		sent = h->carriers != NULL ? put_mbufs(to, h->carriers, recs, n, f) :
					     put_envelopes(to, recs, n, f);
		pl.feed->commit(p, sent);
		f->produced += sent;
		work += sent;
	}
	return work;
}

/* A task took @p n records: the lcore's count, and the run's end. */
static void
task_took(struct pl_task *t, unsigned int n)
{
	struct pl_lcore *l = &pl.lc[rte_lcore_id()];

	t->processed += n;
	pl_count(&l->f, n, rte_rdtsc());
	if (l->f.processed == l->quota_process &&
	    __atomic_add_fetch(&pl.lcores_done, 1, __ATOMIC_ACQ_REL) == pl.lcores_busy)
		lca_runtime_stop();
}

static void
task_batch(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n)
{
	struct pl_task *t = state;

	(void)self;
	for (unsigned int i = 0; i < n; i++) {
		const struct pl_rec *r = (const struct pl_rec *)msgs[i]->data;

		pl_task_count(t, r->stream, r->offset);
	}
	lca_msg_free_bulk(msgs, n);
	task_took(t, n);
}

static void
task_packets(lca_actor_id_t self, void *state, struct rte_mbuf **pkts, uint16_t n)
{
	struct pl_task *t = state;

	(void)self;
	for (unsigned int i = 0; i < n; i++) {
		const struct pl_rec *r = rte_mbuf_to_priv(pkts[i]);

		pl_task_count(t, r->stream, r->offset);
	}
	/* A task's records all come from its one source, so from the pool of
	 * that source's node. */
	rte_mempool_put_bulk(pkts[0]->pool, (void **)pkts, n);
	task_took(t, n);
}

/* --carrier mbuf: a pool of carriers on each node with a source lcore,
 * room for every partition's backlog and each lcore's cache and burst. */
static int
carriers_setup(const struct pl_conf *c)
{
	unsigned int n = c->partitions * c->mailbox + pl.n_lcores * (CARRIER_CACHE * 2 + c->burst);

	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int socket = rte_lcore_to_socket_id(pl.lcores[i]);
		char name[RTE_MEMPOOL_NAMESIZE];

		if (carrier_pool[socket] != NULL)
			continue;
		snprintf(name, sizeof(name), "pl_carriers_%u", socket);
		carrier_pool[socket] = rte_pktmbuf_pool_create(name, n, CARRIER_CACHE, CARRIER_PRIV,
							       0, (int)socket);
		if (carrier_pool[socket] == NULL) {
			fprintf(stderr, "lca-pipeline: lcactor: no pool of %u mbufs on node %u: "
					"%s\n", n, socket, rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	return 0;
}

static void
task_init(void *state, void *arg)
{
	struct pl_task *t = state;
	uint32_t part = (uint32_t)(uintptr_t)arg;

	t->part = part;
	t->streams = pl.conf->streams;
}

int
pl_lcactor_setup(void)
{
	const struct pl_conf *c = pl.conf;
	static char names[PL_MAX_PARTITIONS][24];
	/* Room for every partition's backlog up to the watermark and a burst
	 * beyond, on top of the pool's default. */
	struct lca_runtime_conf rc = {
		.msgs_per_node = 65535 + c->partitions * (c->watermark + c->burst),
	};
	int ret = lca_runtime_init(&rc);

	if (ret < 0) {
		fprintf(stderr, "lca-pipeline: lcactor runtime: %s\n", strerror(-ret));
		return ret;
	}
	runtime_up = true;
	if (c->carrier == PL_CARRIER_MBUF && (ret = carriers_setup(c)) != 0)
		return ret;
	for (uint32_t p = 0; p < c->partitions; p++) {
		bool mbufs = c->carrier == PL_CARRIER_MBUF;
		struct lca_actor_spec spec = {
			.batch_handler = mbufs ? NULL : task_batch,
			.on_packets = mbufs ? task_packets : NULL,
			.packet_queue_size = mbufs ? c->mailbox : 0,
			.state_size = sizeof(struct pl_task) + c->streams * sizeof(uint64_t),
			.state_init = task_init,
			.state_arg = (void *)(uintptr_t)p,
			.lcore = pl.task_lcore[p],
			.mailbox_size = c->mailbox,
			.throughput = c->throughput,
			.name = names[p],
		};

		snprintf(names[p], sizeof(names[p]), "task p%u", p);
		ret = lca_actor_spawn(&spec, &task_id[p]);
		if (ret < 0) {
			fprintf(stderr, "lca-pipeline: cannot spawn the task of partition %u: %s\n", p,
				strerror(-ret));
			return ret;
		}
		task_state[p] = lca_actor_state(task_id[p]);
	}
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];
		struct src_hook *h = calloc(1, sizeof(*h));

		if (h == NULL)
			return -ENOMEM;
		h->l = &pl.lc[lc];
		for (unsigned int k = 0; k < pl.lc[lc].n_src; k++) {
			h->part[k] = pl.lc[lc].src_part[k];
			h->task[k] = task_id[h->part[k]];
		}
		h->n = pl.lc[lc].n_src;
		h->carriers = carrier_pool[rte_lcore_to_socket_id(lc)];
		hooks[lc] = h;
	}
	return 0;
}

uint32_t
pl_lcactor_task(uint32_t part)
{
	return task_id[part];
}

int
pl_lcactor_run(struct pl_result *r)
{
	const struct pl_conf *c = pl.conf;
	int ret = 0;

	for (uint32_t p = 0; p < c->partitions; p++)
		pl_task_reset(task_state[p]);
	/* Every hook, even of an lcore without sources: it sees the warm-up end. */
	for (unsigned int i = 0; i < pl.n_lcores && ret == 0; i++) {
		struct lca_lcore_hook hk = { .poll = src_poll, .arg = hooks[pl.lcores[i]] };

		ret = lca_lcore_hook_add(pl.lcores[i], &hk);
		hooks[pl.lcores[i]]->added = ret == 0;
	}
	if (ret == 0) {
		lca_lcore_stats_reset();
		pl_run_reset();
		ret = lca_runtime_run((unsigned int)(c->timeout_s * 1000));
	}
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		struct src_hook *h = hooks[pl.lcores[i]];
		struct lca_lcore_hook hk = { .poll = src_poll, .arg = h };

		if (h->added)
			lca_lcore_hook_remove(pl.lcores[i], &hk);
		h->added = false;
	}
	r->status = ret;
	pl_run_collect(r, task_state);
	return ret;
}

void
pl_lcactor_teardown(void)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		free(hooks[i]);
		hooks[i] = NULL;
	}
	if (runtime_up)
		lca_runtime_cleanup();
	runtime_up = false;
	/* After the runtime: a stopped task's queue gives its mbufs back. */
	for (unsigned int s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		rte_mempool_free(carrier_pool[s]);
		carrier_pool[s] = NULL;
	}
}
