/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * own_loop: actors inside an application's own loop.
 *
 * An l2fwd-shaped program: each worker lcore runs its own loop, which
 * forwards packets between two ports (rte_eth_rx_burst() on one, then
 * rte_eth_tx_burst() on the other, as DPDK's l2fwd does) and calls
 * lca_runtime_poll() once an iteration. lcactor never owns a loop here.
 * Beside the forwarding, actors hold the stateful part:
 *   - "port_stats", on the main lcore, keeps per-port counters that the
 *     workers send it after each burst;
 *   - "control", on the main lcore too, asks port_stats for a port's
 *     counters (lca_ask(), with a timeout) every 100 ms and prints them.
 * When the workers have forwarded --packets packets, each tells control
 * so, after its last counts; control asks once more for each port, prints
 * its counters beside the loops' own ("as the loops counted", or what
 * differs) and stops the run.
 *
 * Run it with two null ports (net_null makes packets on RX, frees them on
 * TX) on two lcores:
 *   own_loop -l 0-1 --no-huge --no-pci --in-memory \
 *            --vdev net_null0 --vdev net_null1 -- --packets 1000000
 */
#define ALLOW_EXPERIMENTAL_API 1 /* lca_runtime_start() and lca_ask() are EXPERIMENTAL */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <lca_actor.h>
#include <lca_eal.h>

#define BURST 32
#define N_PORTS 2
#define T_COUNT 1 /* worker -> port_stats: a burst's counts */
#define T_QUERY 2 /* control -> port_stats (an ask): a port's counters */
#define T_TICK 3  /* main loop -> control: time to ask */
#define T_FINAL 4 /* main loop -> control: forwarding done, check */

struct count_msg { uint16_t port; uint64_t rx; uint64_t tx; };
struct port_counts { uint64_t rx; uint64_t tx; };

static lca_actor_id_t port_stats, control;
static uint64_t packets_wanted = 1000000;
static uint64_t worker_rx[N_PORTS], worker_tx[N_PORTS], dropped[N_PORTS];
static volatile int forwarding_done;

/* port_stats: the per-port state, touched by its own lcore only. */
static void
port_stats_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct port_counts *ports = state;

	(void)self;
	if (msg->type == T_COUNT) {
		const struct count_msg *c = (const void *)msg->data;

		ports[c->port].rx += c->rx;
		ports[c->port].tx += c->tx;
	} else if (msg->type == T_QUERY) {
		uint16_t port = msg->data[0];

		/* The answer in the same envelope; the byte after it, the
		 * asker's kind of question, comes back as it was. */
		memcpy(msg->data, &ports[port], sizeof(ports[port]));
		msg->data[sizeof(ports[port])] = (uint8_t)port;
		msg->len = sizeof(ports[port]) + 2;
		lca_reply(msg); /* the same envelope back to the asker */
	}
}

static void
ask_port(lca_actor_id_t self, uint8_t port, uint32_t kind)
{
	struct lca_msg *q;
	int ret = lca_msg_alloc(&q);

	if (ret == 0) {
		q->type = T_QUERY;
		q->data[0] = port;
		q->data[sizeof(struct port_counts) + 1] = (uint8_t)kind; /* comes back */
		q->len = sizeof(struct port_counts) + 2; /* within LCA_MSG_INLINE_ASK */
		ret = lca_ask(self, port_stats, q, 100 * 1000, NULL);
		if (ret < 0)
			lca_msg_free(q);
	}
	/* Under load the workers' counts can empty the pool or fill
	 * port_stats' mailbox: said, not dropped silently. */
	if (ret < 0)
		printf("control: no ask for port %u this time: %s\n", port, strerror(-ret));
}

/* control: asks, prints, and at the end checks. */
struct control_state {
	unsigned int finals;  /* workers that said they are done */
	unsigned int checked; /* ports whose final counts were checked */
};

static unsigned int n_workers;

/* The final check of one port's counters against the loops' own. */
static void
check_port(struct control_state *cs, uint8_t port, const struct port_counts *c)
{
	if (c->rx == worker_rx[port] && c->tx == worker_tx[port])
		printf("port %u: rx %" PRIu64 " tx %" PRIu64 ", as the loops counted\n", port,
		       c->rx, c->tx);
	else
		printf("port %u: the actor has rx %" PRIu64 " tx %" PRIu64
		       ", the loops rx %" PRIu64 " tx %" PRIu64 "\n",
		       port, c->rx, c->tx, worker_rx[port], worker_tx[port]);
	if (++cs->checked == N_PORTS)
		lca_runtime_stop();
}

static void
control_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct control_state *cs = state;
	struct port_counts c;
	uint8_t port;

	/* A worker's T_FINAL comes after all its counts (order per sender),
	 * so when the last one is here, port_stats has them all in its
	 * mailbox, before the asks that follow. */
	if (msg->type == T_TICK || (msg->type == T_FINAL && ++cs->finals == n_workers)) {
		for (uint8_t p = 0; p < N_PORTS; p++)
			ask_port(self, p, msg->type);
		return;
	}
	if (msg->type == LCA_TYPE_TIMEOUT) {
		printf("control: an ask timed out\n");
		return;
	}
	if (!(msg->flags & LCA_MSG_F_REPLY))
		return;
	memcpy(&c, msg->data, sizeof(c));
	port = msg->data[sizeof(c)];
	if (msg->data[sizeof(c) + 1] == T_FINAL)
		check_port(cs, port, &c);
	else
		printf("port %u: rx %" PRIu64 " tx %" PRIu64 "\n", port, c.rx, c.tx);
}

/* A message from the application's loop, where no actor runs: an empty
 * pool or a full mailbox is tried again after a poll, which lets the
 * receiver's lcore drain it. */
static void
send_from_loop(lca_actor_id_t to, uint32_t type, const void *data, uint16_t len)
{
	struct lca_msg *m;

	while (lca_msg_alloc(&m) < 0)
		if (lca_runtime_poll() < 0)
			return;
	m->type = type;
	memcpy(m->data, data, len);
	m->len = len;
	while (lca_send(to, m) == -ENOBUFS)
		if (lca_runtime_poll() < 0)
			break;
}

/* Tell port_stats what a burst did. */
static void
send_count(uint16_t port, uint64_t rx, uint64_t tx)
{
	struct count_msg c = { .port = port, .rx = rx, .tx = tx };

	send_from_loop(port_stats, T_COUNT, &c, sizeof(c));
}

/* One port's burst, forwarded to the other port; its counts to the actor. */
static uint64_t
forward_burst(uint16_t rx_port)
{
	struct rte_mbuf *pkts[BURST];
	uint16_t tx_port = rx_port ^ 1;
	uint16_t n = rte_eth_rx_burst(rx_port, 0, pkts, BURST);
	uint16_t sent;

	if (n == 0)
		return 0;
	sent = rte_eth_tx_burst(tx_port, 0, pkts, n);
	if (sent < n) { /* l2fwd drops what TX refused; so do we, counted */
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
		__atomic_fetch_add(&dropped[tx_port], n - sent, __ATOMIC_RELAXED);
	}
	__atomic_fetch_add(&worker_rx[rx_port], n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&worker_tx[tx_port], sent, __ATOMIC_RELAXED);
	send_count(rx_port, n, 0);
	send_count(tx_port, 0, sent);
	return n;
}

/* The application's own loop on a worker lcore: forward, then poll. */
static int
worker_loop(void *arg)
{
	uint64_t *total = arg;

	(void)arg;
	while (!forwarding_done) {
		for (uint16_t p = 0; p < N_PORTS; p++)
			if (__atomic_add_fetch(total, forward_burst(p), __ATOMIC_RELAXED) >=
			    packets_wanted)
				forwarding_done = 1;
		if (lca_runtime_poll() < 0)
			return 0;
	}
	send_from_loop(control, T_FINAL, NULL, 0); /* after this loop's counts */
	while (lca_runtime_poll() >= 0) /* until control stops the run */
		;
	return 0;
}

/* The main lcore's own loop: ticks for control, then poll. */
static int
main_loop(void)
{
	uint64_t next_tick = rte_rdtsc();
	struct lca_msg *m;

	while (lca_runtime_poll() >= 0) {
		uint64_t now = rte_rdtsc();

		if (now < next_tick || lca_msg_alloc(&m) < 0)
			continue;
		next_tick = now + rte_get_tsc_hz() / 10;
		m->type = T_TICK;
		if (lca_send(control, m) < 0)
			lca_msg_free(m);
	}
	return 0;
}

static int
port_init(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf = { 0 };
	int ret = rte_eth_dev_configure(port, 1, 1, &conf);

	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port), NULL, pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret < 0)
		fprintf(stderr, "own_loop: port %u: %s\n", port, strerror(-ret));
	return ret;
}

static int
spawn(const char *name, lca_handler_fn fn, size_t state, lca_actor_id_t *id)
{
	struct lca_actor_spec spec = { .handler = fn, .state_size = state,
				       .lcore = rte_get_main_lcore(), .name = name };

	return lca_actor_spawn(&spec, id);
}

int
main(int argc, char **argv)
{
	struct rte_mempool *pool;
	uint64_t total = 0;
	int app_argc, ret;
	char **app_argv;
	char *end = NULL;
	bool help;

	if (lca_eal_init(argc, argv, &app_argc, &app_argv) < 0)
		return 1;
	if (app_argc == 3 && strcmp(app_argv[1], "--packets") == 0)
		packets_wanted = strtoull(app_argv[2], &end, 10);
	help = app_argc == 2 && (strcmp(app_argv[1], "--help") == 0 ||
				 strcmp(app_argv[1], "-h") == 0);
	if (help || (app_argc != 1 && (end == NULL || *end != '\0' || packets_wanted == 0))) {
		fprintf(help ? stdout : stderr, "usage: %s [EAL args] -- [--packets N]\n", argv[0]);
		return help ? 0 : 2;
	}
	if (rte_eth_dev_count_avail() < N_PORTS || rte_lcore_count() < 2) {
		fprintf(stderr, "own_loop: needs 2 ports (--vdev net_null0 --vdev net_null1) "
			"and 2 lcores (-l 0-1)\n");
		return 2;
	}
	pool = rte_pktmbuf_pool_create("own_loop_mbufs", 8191, 256, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (pool == NULL || port_init(0, pool) < 0 || port_init(1, pool) < 0)
		return 1;
	if (lca_runtime_init(NULL) < 0 ||
	    spawn("port_stats", port_stats_handler, sizeof(struct port_counts) * N_PORTS,
		  &port_stats) < 0 ||
	    spawn("control", control_handler, sizeof(struct control_state), &control) < 0)
		return 1;

	n_workers = rte_lcore_count() - 1;
	/* lcactor inside our loops: start, our loops poll, end. */
	lca_runtime_start(60 * 1000);
	/* The first tick before the workers start: while they flood the pool
	 * with counts, the main loop's later ticks may find no envelope. */
	send_from_loop(control, T_TICK, NULL, 0);
	rte_eal_mp_remote_launch(worker_loop, &total, SKIP_MAIN);
	main_loop();
	rte_eal_mp_wait_lcore();
	ret = lca_runtime_end();
	printf("forwarded %" PRIu64 " packets, dropped %" PRIu64 "; run: %s\n", total,
	       dropped[0] + dropped[1], ret == 0 ? "stopped by control" : strerror(-ret));

	lca_runtime_cleanup();
	for (uint16_t p = 0; p < N_PORTS; p++)
		rte_eth_dev_stop(p);
	lca_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
