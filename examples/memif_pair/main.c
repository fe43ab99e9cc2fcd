/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif_pair: actors in two processes, over a memif link.
 *
 * The same program runs twice, as node 1 and as node 2 (--node), each
 * process with its own EAL (--file-prefix) and its end of one net_memif
 * pair (node 1 the server, node 2 the client, one socket file). Both
 * give lcactor's remote part the same two-node table (lca_remote_start()):
 * node K on lcore K - 1, reached through ethdev port 0.
 *   - Node 2's first actor, "echo" (so its id is 0), takes each PING,
 *     checks that it is the next in order, and answers it with the same
 *     envelope (lca_reply(): back over the link).
 *   - Node 1's "pinger" sends --msgs PINGs to lca_remote_ref(2, 0), at
 *     most IN_FLIGHT unanswered, and checks the order of the PONGs. Once
 *     all are back it asks node 2 for its own count, prints both, and
 *     stops; node 2 stops once it has answered that.
 * A send to a remote reference is lca_send(), as to a local actor; a full
 * window is -ENOBUFS (nothing lost: send again later).
 *
 *   memif_pair -l 0 --no-huge --no-pci --in-memory --file-prefix n1 \
 *     --vdev net_memif0,role=server,socket=/tmp/memif_pair.sock,socket-abstract=no \
 *     -- --node 1 --msgs 10000
 *   memif_pair -l 1 --no-huge --no-pci --in-memory --file-prefix n2 \
 *     --vdev net_memif0,role=client,socket=/tmp/memif_pair.sock,socket-abstract=no \
 *     -- --node 2
 *
 * Start them in either order (each waits up to 20 s for the other). Node 1
 * ends with "node 1: sent 10000 PINGs, got 10000 PONGs, in order" and
 * "node 2 says: got 10000 PINGs, in order; answered 10000", node 2 with
 * "node 2: got 10000 PINGs from node 1, in order; answered 10000".
 */
#define ALLOW_EXPERIMENTAL_API 1 /* the remote part is EXPERIMENTAL */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>

#include <lca_actor.h>
#include <lca_eal.h>
#include <lca_remote.h>

#define T_GO 1     /* node 1, to itself: send what the window allows */
#define T_PING 2   /* data: a uint64_t sequence number, from 0 */
#define T_PONG 3   /* the same, back */
#define T_TOTALS 4 /* node 1 -> node 2: your counts? and back: struct totals */
#define IN_FLIGHT 64
#define WAIT_MS 20000 /* for the other process: its start, its answers */

struct totals { uint64_t got, answered; bool in_order; };

static unsigned int self_node;
static uint64_t msgs_wanted = 10000;
static struct {              /* node 1's pinger; node 2's echo */
	uint64_t sent, got;  /* PINGs sent (node 1); PINGs or PONGs got */
	uint64_t answered;   /* node 2: PONGs sent back */
	bool in_order, done; /* every one the next in order; the run is over */
	bool go_pending;     /* node 1: a GO on its way to the pinger */
	struct totals far;   /* node 1: what node 2 said */
} me = { .in_order = true };

/* Node 2: each PING back as a PONG; the totals when node 1 asks. */
static void
echo(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct totals t;
	uint64_t seq;

	(void)self;
	(void)state;
	if (m->type == T_PING) {
		memcpy(&seq, m->data, sizeof(seq));
		me.in_order &= seq == me.got++;
		m->type = T_PONG;
		me.answered += lca_reply(m) == 0; /* refused: the runtime frees it */
	} else if (m->type == T_TOTALS) {
		t = (struct totals){ me.got, me.answered, me.in_order };
		memcpy(m->data, &t, sizeof(t));
		m->len = sizeof(t);
		if (lca_reply(m) == 0)
			me.done = true;
		lca_runtime_stop();
	}
}

/* Node 1: PINGs while fewer than IN_FLIGHT are unanswered. A full
 * window (-ENOBUFS: nothing lost) or an empty pool: a GO to itself, to try
 * again at its next turn (one GO at a time). */
static void
send_pings(lca_actor_id_t self)
{
	lca_actor_id_t echo_ref = lca_remote_ref(2, 0); /* node 2's actor 0 */
	struct lca_msg *m;
	int ret = 0;

	while (me.sent < msgs_wanted && me.sent - me.got < IN_FLIGHT) {
		if ((ret = lca_msg_alloc(&m)) < 0)
			break;
		m->type = T_PING;
		m->len = sizeof(me.sent);
		memcpy(m->data, &me.sent, sizeof(me.sent));
		if ((ret = lca_send_from(self, echo_ref, m)) < 0) {
			lca_msg_free(m); /* a refused message stays ours */
			break;
		}
		me.sent++;
	}
	if ((ret == -ENOBUFS || ret == -ENOMEM) && !me.go_pending && lca_msg_alloc(&m) == 0) {
		m->type = T_GO;
		me.go_pending = lca_send(self, m) == 0;
		if (!me.go_pending)
			lca_msg_free(m);
	} else if (ret < 0 && ret != -ENOBUFS && ret != -ENOMEM) {
		fprintf(stderr, "node 1: send to node 2: %s\n", strerror(-ret));
		lca_runtime_stop();
	}
}

/* Node 2's counts, asked once every PONG is back. */
static void
ask_totals(lca_actor_id_t self)
{
	struct lca_msg *m;

	if (lca_msg_alloc(&m) < 0)
		return;
	m->type = T_TOTALS;
	if (lca_send_from(self, lca_remote_ref(2, 0), m) < 0)
		lca_msg_free(m);
}

static void
pinger(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	uint64_t seq;

	(void)state;
	if (m->type == T_GO) {
		me.go_pending = false;
		send_pings(self);
	} else if (m->type == T_PONG) {
		memcpy(&seq, m->data, sizeof(seq));
		me.in_order &= seq == me.got++;
		if (me.got == msgs_wanted)
			ask_totals(self);
		else
			send_pings(self);
	} else if (m->type == T_TOTALS) {
		memcpy(&me.far, m->data, sizeof(me.far));
		me.done = true;
		lca_runtime_stop();
	}
}

/* The table both processes share: node K on lcore K - 1, reached through
 * ethdev port 0 (the memif), at 10.0.0.K with MAC 02:00:00:00:00:0K. */
static void
node_table(struct lca_remote_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->self = (uint16_t)self_node;
	c->n_nodes = 2;
	c->connect_ms = WAIT_MS;
	for (unsigned int k = 1; k <= 2; k++) {
		struct lca_remote_node *n = &c->nodes[k - 1];

		n->id = (uint16_t)k;
		n->mac[0] = 0x02;
		n->mac[5] = (uint8_t)k;
		n->ipv4 = 0x0a000000u + k;
		n->udp_base = 7000;
		n->port_id = 0;
		n->n_lcores = 1;
		n->lcores[0] = (uint16_t)(k - 1);
	}
}

/* Node 1: the link up, the GO, the run until node 2's totals are back. */
static int
run_node1(lca_actor_id_t pinger_id)
{
	struct lca_remote_link_stats ls = { 0 };
	struct lca_msg *go;
	int ret;

	for (unsigned int ms = 0; ms < WAIT_MS && !ls.connected; ms += 10) {
		if ((ret = lca_runtime_run(10)) != -ETIMEDOUT)
			return ret == 0 ? -EINTR : ret;
		lca_remote_link_stats_get(2, &ls);
	}
	if (!ls.connected) {
		fprintf(stderr, "node 1: no link to node 2 within %u s\n", WAIT_MS / 1000);
		return -ENOTCONN;
	}
	if ((ret = lca_msg_alloc(&go)) < 0)
		return ret;
	go->type = T_GO;
	me.go_pending = true;
	if ((ret = lca_send(pinger_id, go)) < 0)
		return ret;
	ret = lca_runtime_run(3 * WAIT_MS);
	printf("node 1: sent %" PRIu64 " PINGs, got %" PRIu64 " PONGs, %s\n", me.sent, me.got,
	       me.in_order ? "in order" : "OUT OF ORDER");
	if (me.done)
		printf("node 2 says: got %" PRIu64 " PINGs, %s; answered %" PRIu64 "\n", me.far.got,
		       me.far.in_order ? "in order" : "OUT OF ORDER", me.far.answered);
	if (ret == 0 && (!me.in_order || me.got != msgs_wanted || me.far.got != msgs_wanted ||
			 me.far.answered != msgs_wanted || !me.far.in_order))
		ret = -EIO;
	return ret;
}

/* Node 2: answer until node 1 asked for the totals. */
static int
run_node2(void)
{
	int ret = lca_runtime_run(3 * WAIT_MS);

	printf("node 2: got %" PRIu64 " PINGs from node 1, %s; answered %" PRIu64 "\n", me.got,
	       me.in_order ? "in order" : "OUT OF ORDER", me.answered);
	return ret == 0 && me.done && me.in_order && me.answered == me.got ? 0 :
	       ret != 0 ? ret : -EIO;
}

/* --node 1|2 [--msgs N] or --help: @return 1, 0 for --help, -1 for a bad
 * argument (said on stderr). */
static int
parse_args(int argc, char **argv)
{
	char *end = NULL;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return 0;
	for (int i = 1; i < argc; i += 2) {
		if (strcmp(argv[i], "--node") != 0 && strcmp(argv[i], "--msgs") != 0) {
			fprintf(stderr, "memif_pair: unknown argument '%s'\n", argv[i]);
			return -1;
		} else if (i + 1 == argc) {
			fprintf(stderr, "memif_pair: %s needs a value\n", argv[i]);
			return -1;
		} else if (strcmp(argv[i], "--node") == 0) {
			self_node = (unsigned int)strtoul(argv[i + 1], &end, 10);
			self_node = *end == '\0' ? self_node : 0; /* refused below */
		} else {
			msgs_wanted = strtoull(argv[i + 1], &end, 10);
			if (*end != '\0' || argv[i + 1][0] == '-' || msgs_wanted == 0) {
				fprintf(stderr, "memif_pair: --msgs %s: give a positive number\n",
					argv[i + 1]);
				return -1;
			}
		}
	}
	if (self_node != 1 && self_node != 2) {
		fprintf(stderr, "memif_pair: --node 1 or --node 2, please\n");
		return -1;
	}
	return 1;
}

int
main(int argc, char **argv)
{
	struct lca_actor_spec spec = { .mailbox_size = 4096 };
	struct lca_remote_conf conf;
	int app_argc, ret;
	lca_actor_id_t id;
	char **app_argv;

	if (lca_eal_init(argc, argv, &app_argc, &app_argv) < 0)
		return 1;
	if ((ret = parse_args(app_argc, app_argv)) <= 0) {
		fprintf(ret == 0 ? stdout : stderr,
			"usage: %s [EAL args] -- --node 1|2 [--msgs N]\n", argv[0]);
		lca_eal_cleanup();
		return ret == 0 ? 0 : 2;
	}
	if (rte_lcore_count() != 1 || rte_get_main_lcore() != self_node - 1 ||
	    rte_eth_dev_count_avail() != 1) {
		fprintf(stderr, "memif_pair: node %u runs on lcore %u (-l %u) with one port, its "
			"end of the memif (--vdev net_memif0,role=%s,...)\n", self_node,
			self_node - 1, self_node - 1, self_node == 1 ? "server" : "client");
		lca_eal_cleanup();
		return 2;
	}
	spec.handler = self_node == 1 ? pinger : echo;
	spec.lcore = rte_get_main_lcore();
	node_table(&conf);
	ret = lca_runtime_init(NULL);
	if (ret == 0)
		ret = lca_actor_spawn(&spec, &id); /* the first actor: id 0 */
	if (ret == 0)
		ret = lca_remote_start(&conf);
	if (ret == 0)
		ret = self_node == 1 ? run_node1(id) : run_node2();
	else
		fprintf(stderr, "memif_pair: node %u could not start: %s\n", self_node,
			strerror(-ret));
	/* The last frames acknowledged before this node says it leaves. */
	for (unsigned int i = 0; i < 100 && !lca_remote_idle(); i++)
		lca_runtime_run(10);
	lca_remote_stop();
	lca_runtime_cleanup();
	lca_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
