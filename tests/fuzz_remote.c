/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The remote receive path with its state, under fuzzing (issue 21 item 10):
 * sequences of frames into a live loopback link (the node its own peer, one
 * lcore, over net_ring), whose own frames keep flowing. As each input says,
 * a frame carries the live session and the session heard, a number near
 * the window, a known kind and records to a real actor; the rest is the
 * input's bytes. fuzz_frame fuzzes the decoder alone; this one fuzzes what
 * a frame that passed it does to the channels, the epochs and delivery.
 *
 * Checked: no crash, no read outside a frame, no leak (ASan); the actor
 * gets each message delivered to it once (its count never passes the
 * link's delivered count); and, in the seeded mode, the link heals once
 * the frames stop: up again, a message over it delivered.
 *
 * Built as fuzz_frame is (tests/meson.build): a libFuzzer target with
 * -Dfuzz=true (CC=clang), else a seeded generator of its own (main()).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_remote.h"
#include "lca_remote_priv.h"
#include "lca_remote_wire_priv.h"
#include "lca_xorshift.h"

#define SELF 3
#define UDP_PORT 7000 /* udp_base + lcore 0 */
#define FRAME_MAX 1514

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct {
	struct rte_mempool *mp; /* the frames put on the wire */
	struct rte_ring *ring;  /* net_ring's: our TX and our RX */
	lca_actor_id_t sink;
	uint64_t got;           /* the sink's count */
} fz;

static void
sink_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	(void)msg;
	fz.got++;
}

static __rte_noreturn void
die(const char *what)
{
	fprintf(stderr, "fuzz_remote: %s\n", what);
	abort();
}

/* EAL on one lcore, the runtime, the sink, and a loopback link over a new
 * net_ring port. */
static void
setup(void)
{
	static char *eal[] = { "fuzz_remote", "-l", "0", "--no-huge", "--no-pci", "--in-memory",
			       "--file-prefix", "fuzz_remote", "--log-level", "*:crit" };
	struct lca_runtime_conf rc = { .msgs_per_node = 8191, .pool_cache = 64 };
	struct lca_actor_spec spec = { .handler = sink_handler, .mailbox_size = 4096,
				       .throughput = 64 };
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, SELF };
	struct lca_remote_conf c;
	char rname[RTE_RING_NAMESIZE];
	int app_argc;
	char **app_argv;
	uint16_t pid;

	if (lca_eal_init((int)RTE_DIM(eal), eal, &app_argc, &app_argv) < 0)
		die("EAL did not start");
	if (lca_runtime_init(&rc) != 0 || lca_actor_spawn(&spec, &fz.sink) != 0)
		die("no runtime");
	if (rte_dev_probe("net_ring_fz") != 0 ||
	    rte_eth_dev_get_port_by_name("net_ring_fz", &pid) != 0)
		die("no net_ring port");
	memset(&c, 0, sizeof(c));
	c.self = SELF;
	c.loopback = true;
	c.n_nodes = 1;
	c.nodes[0].id = SELF;
	memcpy(c.nodes[0].mac, mac, 6);
	c.nodes[0].ipv4 = 0x0a000000 | SELF;
	c.nodes[0].udp_base = UDP_PORT;
	c.nodes[0].port_id = pid;
	c.nodes[0].n_lcores = 1;
	c.nodes[0].lcores[0] = 0;
	c.window = 64;
	if (lca_remote_start(&c) != 0)
		die("the loopback link did not start");
	fz.mp = rte_pktmbuf_pool_create("fuzz_frames", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					SOCKET_ID_ANY);
	snprintf(rname, sizeof(rname), "ETH_RXTX0_%s", "net_ring_fz");
	fz.ring = rte_ring_lookup(rname);
	if (fz.mp == NULL || fz.ring == NULL)
		die("no pool or ring for the frames");
}

/* What each chunk's first byte asks of its frame. */
#define C_VERSION 0x01 /* the version this node speaks */
#define C_SESSION 0x02 /* the live session of the peer (this node) */
#define C_HEARD 0x04   /* heard: our live session */
#define C_NEAR 0x08    /* seq, ack and credit near the window */
#define C_TO_SINK 0x10 /* every record to the sink */
#define C_NODES 0x20   /* from and to this node */
#define C_KIND 0x40    /* known flags only, no tag */

/* The records after the header in @p f up to @p end, each sent to the sink
 * where the chunk says so; @return how many whole ones there are. */
static uint16_t
records_fix(uint8_t *f, uint32_t off, uint32_t end, bool to_sink)
{
	uint16_t n = 0;

	while (off + WIRE_MSG_LEN <= end) {
		uint32_t len = ((uint32_t)f[off + 12] << 8) | f[off + 13];

		if (to_sink) {
			struct wire_msg *r = (struct wire_msg *)(f + off);

			r->to = rte_cpu_to_be_32(fz.sink);
			r->from = rte_cpu_to_be_32(LCA_ACTOR_NONE);
			f[off + 14] = f[off + 15] = 0; /* plain, inline */
			len %= LCA_MSG_INLINE + 1;
			f[off + 12] = (uint8_t)(len >> 8), f[off + 13] = (uint8_t)len;
		}
		if (off + wire_rec_len(len) > end)
			break;
		off += wire_rec_len(len);
		n++;
	}
	return n;
}

/* One chunk (@p ctrl, then @p n bytes at @p b) as a frame on the wire. */
static void
frame_put(uint8_t ctrl, const uint8_t *b, size_t n)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, SELF };
	const struct rm_peer *pe = &rm.peers[0];
	uint32_t hdr_off = WIRE_OUTER_LEN, end = WIRE_OUTER_LEN + WIRE_HDR_LEN + (uint32_t)n;
	struct rte_mbuf *m;
	struct wire_hdr *h;
	uint8_t *f;

	if (end > FRAME_MAX)
		end = FRAME_MAX;
	m = rte_pktmbuf_alloc(fz.mp);
	if (m == NULL)
		return; /* the wire is full: the next input finds room */
	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)end);
	memset(f, 0, end);
	memcpy(f + hdr_off, b, RTE_MIN(n, (size_t)(end - hdr_off)));
	wire_outer_write(f, mac, mac, 0x0a000000 | SELF, 0x0a000000 | SELF, UDP_PORT, UDP_PORT,
			 end - WIRE_OUTER_LEN - WIRE_UDP_LEN);
	h = (struct wire_hdr *)(f + hdr_off);
	if (ctrl & C_VERSION)
		h->version = WIRE_VERSION;
	if (ctrl & C_SESSION)
		h->session = rte_cpu_to_be_32(__atomic_load_n(&pe->heard_session, __ATOMIC_RELAXED));
	if (ctrl & C_HEARD)
		h->peer_session = rte_cpu_to_be_32(__atomic_load_n(&pe->tx_session, __ATOMIC_RELAXED));
	if (ctrl & C_NEAR) {
		uint32_t seq = rte_be_to_cpu_32(h->seq), ack = rte_be_to_cpu_32(h->ack);

		/* The first numbers of a channel, now and then one further
		 * on; acks of nothing new, now and then of a few frames. */
		h->seq = rte_cpu_to_be_32(seq & 0x100 ? 1 + seq % 96 : 1 + seq % 4);
		h->ack = rte_cpu_to_be_32(ack & 0x100 ? ack % 8 : 0);
		h->credit = rte_cpu_to_be_32(rte_be_to_cpu_32(h->ack) +
					     rte_be_to_cpu_32(h->credit) % 64);
	}
	if (ctrl & C_NODES) {
		h->src_node = rte_cpu_to_be_16(SELF);
		h->dst_node = rte_cpu_to_be_16(SELF);
	}
	if (ctrl & C_KIND)
		h->flags &= (uint8_t)(WIRE_F_KNOWN & ~WIRE_F_TAG);
	h->n_msgs = rte_cpu_to_be_16(
		records_fix(f, hdr_off + WIRE_HDR_LEN, end, (ctrl & C_TO_SINK) != 0));
	if (!(h->flags & WIRE_F_DATA) && (ctrl & C_KIND))
		h->n_msgs = 0;
	if (rte_ring_enqueue(fz.ring, m) != 0)
		rte_pktmbuf_free(m);
}

/* The loops, until the wire is empty (or a bound: our own frames refill it). */
static void
drain(void)
{
	for (unsigned int i = 0; i < 50 && rte_ring_count(fz.ring) > 0; i++)
		lca_runtime_run(1);
	lca_runtime_run(1);
}

static void
counts_check(void)
{
	struct lca_remote_link_stats ls;

	if (lca_remote_link_stats_get(SELF, &ls) != 0)
		die("no link stats");
	if (fz.got > ls.msgs_delivered)
		die("the sink counted more than the link delivered");
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setup();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	/* Chunks: a control byte, a length byte (in 8-byte units), bytes. */
	while (off + 2 <= size) {
		uint8_t ctrl = data[off];
		size_t n = RTE_MIN((size_t)data[off + 1] * 8, size - off - 2);

		frame_put(ctrl, data + off + 2, n);
		off += 2 + n;
	}
	drain();
	counts_check();
	return 0;
}

#ifndef LCA_LIBFUZZER
static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t
next(void)
{
	return lca_xorshift64(&rng);
}

/* An input of 1 to 8 chunks, mostly asking for what a live peer would
 * say, now and then for anything. */
static size_t
input_make(uint8_t *b, size_t cap)
{
	size_t len = 0;

	for (unsigned int c = 0, n = 1 + next() % 8; c < n; c++) {
		uint64_t r = next();
		size_t chunk = (size_t)(r >> 8) % 12 * 8;

		if (len + 2 + chunk > cap)
			break;
		b[len] = (uint8_t)(r % 8 == 0   ? next()
				   : r % 8 < 3 ? next() | C_VERSION | C_NODES | C_KIND
					       : next() | C_VERSION | C_NODES | C_KIND | C_SESSION |
							 C_HEARD | C_NEAR | C_TO_SINK);
		b[len + 1] = (uint8_t)(chunk / 8);
		for (size_t i = 0; i < chunk; i++)
			b[len + 2 + i] = (uint8_t)next();
		len += 2 + chunk;
	}
	return len;
}

/* After the inputs: the link up again, and a message over it delivered. */
static bool
healed(void)
{
	uint64_t before = fz.got;

	for (unsigned int i = 0; i < 600; i++) {
		if (fz.got > before)
			return true;
		if (lca_remote_node_up(SELF)) {
			struct lca_msg *m;

			if (lca_msg_alloc(&m) == 0 && lca_send(lca_remote_ref(SELF, fz.sink), m) != 0)
				lca_msg_free(m);
		}
		lca_runtime_run(100);
	}
	return false;
}

int
main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
	struct lca_remote_link_stats ls;
	uint8_t in[2048];

	setup();
	for (unsigned long i = 0; i < iters; i++) {
		size_t len = input_make(in, sizeof(in));

		LLVMFuzzerTestOneInput(in, len);
	}
	if (!healed())
		die("the link did not heal within 60 s of the last input");
	if (lca_remote_link_stats_get(SELF, &ls) != 0)
		die("no link stats");
	printf("fuzz_remote: %lu inputs; %" PRIu64 " messages delivered, %" PRIu64
	       " stale, %" PRIu64 " duplicates, %" PRIu64 " out of window, %" PRIu64
	       " acks past sent, %" PRIu64 " lost at a down; the link healed\n",
	       iters, ls.msgs_delivered, ls.stale_session, ls.duplicates, ls.out_of_window,
	       ls.ack_beyond_sent, ls.lost_on_dead);
	lca_remote_stop();
	lca_runtime_cleanup();
	return 0;
}
#endif
