/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rte_graph nodes between a graph and actors (actors/graph): a graph
 * on each lcore, walked by the application's own loop beside
 * lca_runtime_poll(), whose source node stamps each packet's lca_pkt_meta
 * with one of two actors (on both lcores); LCA_GRAPH_NODE_TO_ACTORS puts
 * them on the packet lane, the actors count them and hand them back to the
 * graph of their own lcore (lca_graph_send()), and
 * LCA_GRAPH_NODE_FROM_ACTORS takes them on to a sink node: every packet,
 * each actor's in order, exact counts. Then what is refused: a packet for
 * no actor (freed, counted), the default edge (freed, counted), a full
 * queue (left to the caller, counted).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_graph.h"
#include "lca_mempool.h"
#include "lca_test.h"

#define N_PKTS 4096
#define N_ACTORS 2

static struct rte_mempool *pool;
static lca_actor_id_t actors[N_ACTORS];
static uint64_t made[RTE_MAX_LCORE];    /* by the source node, per lcore */
static uint64_t sunk;                   /* by the sink node, both lcores */
static uint64_t sink_out_of_order;
static uint32_t sink_next[RTE_MAX_LCORE][N_ACTORS];
static unsigned int n_walkers;

struct pkt_tag {
	uint32_t lcore; /* where the source made it */
	uint32_t actor; /* index into actors[] */
	uint32_t seq;   /* per (lcore, actor) */
};

struct counter {
	uint64_t got;
	uint32_t next[RTE_MAX_LCORE];
	uint64_t out_of_order;
};

static uint32_t src_next[RTE_MAX_LCORE][N_ACTORS];

static uint16_t
src_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	unsigned int me = rte_lcore_id();
	uint64_t left = N_PKTS / n_walkers - made[me];
	uint16_t n = (uint16_t)RTE_MIN(left, 32u);
	struct rte_mbuf **to;

	(void)objs;
	(void)nb;
	if (n == 0)
		return 0;
	to = (struct rte_mbuf **)rte_node_next_stream_get(graph, node, 0, n);
	if (rte_pktmbuf_alloc_bulk(pool, to, n) != 0)
		return 0;
	for (uint16_t i = 0; i < n; i++) {
		struct pkt_tag *t = rte_pktmbuf_mtod(to[i], struct pkt_tag *);
		/* Runs of 4 to one actor: the node sends a run at once. */
		uint32_t a = (uint32_t)((made[me] + i) / 4 % N_ACTORS);

		*t = (struct pkt_tag){ .lcore = me, .actor = a, .seq = src_next[me][a]++ };
		lca_pkt_meta(to[i])->to = actors[a];
	}
	made[me] += n;
	rte_node_next_stream_put(graph, node, 0, n);
	return n;
}

static uint16_t
sink_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;

	(void)graph;
	(void)node;
	for (uint16_t i = 0; i < nb; i++) {
		struct pkt_tag *t = rte_pktmbuf_mtod(pkts[i], struct pkt_tag *);

		/* Each actor hands back in order what it got in order. */
		if (t->seq != sink_next[t->lcore][t->actor]++)
			__atomic_fetch_add(&sink_out_of_order, 1, __ATOMIC_RELAXED);
	}
	rte_pktmbuf_free_bulk(pkts, nb);
	if (__atomic_add_fetch(&sunk, nb, __ATOMIC_RELAXED) == N_PKTS)
		lca_runtime_stop();
	return nb;
}

static struct rte_node_register src_node = {
	.name = "t_src", .process = src_process, .flags = RTE_NODE_SOURCE_F,
	.nb_edges = 1, .next_nodes = { LCA_GRAPH_NODE_TO_ACTORS },
};
static struct rte_node_register sink_node = { .name = "t_sink", .process = sink_process };
RTE_NODE_REGISTER(src_node);
RTE_NODE_REGISTER(sink_node);

static void
counting_actor(lca_actor_id_t self, void *state, struct rte_mbuf **pkts, uint16_t n)
{
	struct counter *c = state;
	int sent;

	(void)self;
	for (uint16_t i = 0; i < n; i++) {
		struct pkt_tag *t = rte_pktmbuf_mtod(pkts[i], struct pkt_tag *);

		if (t->seq != c->next[t->lcore]++)
			c->out_of_order++;
	}
	c->got += n;
	/* On through the graph of the lcore that runs this actor. */
	sent = lca_graph_send(rte_lcore_id(), pkts, n);
	assert_int_equal(sent, n);
}

static rte_graph_t graphs[RTE_MAX_LCORE];

static int
walk_and_poll(void *arg)
{
	char name[RTE_GRAPH_NAMESIZE];
	struct rte_graph *g;

	(void)arg;
	snprintf(name, sizeof(name), "t_graph_%u", rte_lcore_id());
	g = rte_graph_lookup(name);
	/* The application's own loop: its graph, then lcactor. */
	while (lca_runtime_poll() >= 0)
		rte_graph_walk(g);
	return 0;
}

static int
setup(void **state)
{
	static const char *patterns[] = { "t_src", "t_sink", LCA_GRAPH_NODE_TO_ACTORS,
					  LCA_GRAPH_NODE_FROM_ACTORS };
	unsigned int lcore_id, i = 0;
	int ret = lca_test_setup(state);

	if (ret != 0 || lca_graph_init(0) != 0 ||
	    lca_graph_from_actors_next("t_sink") != 0)
		return -1;
	n_walkers = 0;
	LCA_LCORE_FOREACH(lcore_id) {
		struct lca_actor_spec spec = { .on_packets = counting_actor,
					       .state_size = sizeof(struct counter),
					       .lcore = lcore_id, .throughput = 32 };
		struct rte_graph_param prm = { .socket_id = (int)rte_lcore_to_socket_id(lcore_id),
					       .nb_node_patterns = RTE_DIM(patterns),
					       .node_patterns = patterns };
		char name[RTE_GRAPH_NAMESIZE];

		if (i < N_ACTORS && lca_actor_spawn(&spec, &actors[i++]) != 0)
			return -1;
		snprintf(name, sizeof(name), "t_graph_%u", lcore_id);
		graphs[lcore_id] = rte_graph_create(name, &prm);
		if (graphs[lcore_id] == RTE_GRAPH_ID_INVALID)
			return -1;
		n_walkers++;
	}
	return 0;
}

static int
teardown(void **state)
{
	unsigned int lcore_id;

	LCA_LCORE_FOREACH(lcore_id)
		rte_graph_destroy(graphs[lcore_id]);
	lca_runtime_cleanup();
	lca_graph_cleanup();
	(void)state;
	return 0;
}

static void
test_packets_through_actors_and_back(void **state)
{
	struct lca_graph_stats st, sum = { 0 };
	unsigned int lcore_id;
	int ret;

	(void)state;
	assert_int_equal(lca_runtime_start(100000), 0);
	assert_int_equal(rte_eal_mp_remote_launch(walk_and_poll, NULL, CALL_MAIN), 0);
	rte_eal_mp_wait_lcore();
	ret = lca_runtime_end();
	if (ret != 0 || sunk != N_PKTS)
		LCA_LCORE_FOREACH(lcore_id) {
			lca_graph_stats_get(lcore_id, &st);
			print_message("lcore %u: made %" PRIu64 ", to actors %" PRIu64 ", from actors %"
				      PRIu64 ", dropped %" PRIu64 "; sunk %" PRIu64 "\n", lcore_id,
				      made[lcore_id], st.to_actors, st.from_actors,
				      st.dropped_full + st.dropped_no_actor + st.dropped_edge, sunk);
		}
	assert_int_equal(ret, 0);
	assert_int_equal(sunk, N_PKTS);
	assert_int_equal(sink_out_of_order, 0);
	for (unsigned int a = 0; a < N_ACTORS; a++) {
		struct counter *c = lca_actor_state(actors[a]);

		assert_int_equal(c->out_of_order, 0);
		assert_int_equal(c->got, N_PKTS / N_ACTORS);
	}
	LCA_LCORE_FOREACH(lcore_id) {
		assert_int_equal(lca_graph_stats_get(lcore_id, &st), 0);
		sum.to_actors += st.to_actors;
		sum.from_actors += st.from_actors;
		sum.dropped_full += st.dropped_full + st.dropped_no_actor + st.dropped_edge;
	}
	assert_int_equal(sum.to_actors, N_PKTS);
	assert_int_equal(sum.from_actors, N_PKTS);
	assert_int_equal(sum.dropped_full, 0);
	assert_int_equal(rte_mempool_avail_count(pool), pool->size);
}

/* What the nodes refuse, each counted: a packet for no actor (freed), the
 * queue from actors full (the rest left to the caller), what the queue
 * still holds at cleanup (freed). */
#define QUEUE 4096
static struct rte_mbuf *many[QUEUE + 1];

static void
test_refusals_counted(void **state)
{
	unsigned int me = rte_lcore_id();
	struct lca_graph_stats before, after;
	char name[RTE_GRAPH_NAMESIZE];
	struct rte_node *node;
	struct rte_mbuf *m;

	(void)state;
	assert_int_equal(lca_graph_send(RTE_MAX_LCORE, &m, 1), -EINVAL);
	assert_int_equal(lca_graph_send(me, NULL, 1), -EINVAL);
	assert_int_equal(lca_graph_from_actors_next("no_such_node"), -ENOENT);
	assert_int_equal(lca_graph_init(0), -EEXIST);
	lca_graph_stats_get(me, &before);
	/* A packet whose metadata names no actor: freed, counted. */
	m = rte_pktmbuf_alloc(pool);
	assert_non_null(m);
	lca_pkt_meta(m)->to = 999999;
	snprintf(name, sizeof(name), "t_graph_%u", me);
	node = rte_graph_node_get_by_name(name, LCA_GRAPH_NODE_TO_ACTORS);
	assert_non_null(node);
	assert_int_equal(node->process(rte_graph_lookup(name), node, (void **)&m, 1), 1);
	lca_graph_stats_get(me, &after);
	assert_int_equal(after.dropped_no_actor, before.dropped_no_actor + 1);
	/* One more than the queue holds: the last stays the caller's. */
	assert_int_equal(rte_pktmbuf_alloc_bulk(pool, many, QUEUE + 1), 0);
	assert_int_equal(lca_graph_send(me, many, QUEUE + 1), QUEUE);
	lca_graph_stats_get(me, &after);
	assert_int_equal(after.send_refused, before.send_refused + 1);
	rte_pktmbuf_free(many[QUEUE]);
	/* The queue's packets, never walked: freed and counted at cleanup. */
	lca_graph_cleanup();
	lca_graph_stats_get(me, &after);
	assert_int_equal(after.dropped_edge, before.dropped_edge + QUEUE);
	assert_int_equal(lca_graph_send(me, many, 1), -ENODEV);
	assert_int_equal(rte_mempool_avail_count(pool), pool->size);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_packets_through_actors_and_back, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refusals_counted, setup, teardown),
	};
	int failed;

	lca_test_eal_init("lca_test_graph");
	pool = rte_pktmbuf_pool_create("t_graph_pool", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (pool == NULL)
		return 1;
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	rte_mempool_free(pool);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
