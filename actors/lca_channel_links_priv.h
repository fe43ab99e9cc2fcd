/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_CHANNEL_LINKS_PRIV_H
#define LCA_CHANNEL_LINKS_PRIV_H

/* The channels' own structures: each lcore's links, its channels, its
 * bell (lca_channel.c has the design). Shared by the channel's two files,
 * lca_channel.c (the message path) and lca_channel_setup.c (set-up,
 * teardown, counts); no other file includes it. */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ring.h>

#include "lca_actor_priv.h"

/* The channel's globals, shared by its two files only: hidden, so that the
 * message path reaches them PC-relative, as it did when they were static,
 * not through the GOT. */
#define CHAN_HIDDEN __attribute__((visibility("hidden")))

/* Slots a channel: room to stream without the sender waiting, within
 * CHANNEL_BYTES_IN of channels into each lcore (4096 slots, 256 KiB, a
 * channel up to 16 lcores; 1024 with 64). */
#define CHANNEL_SLOTS_MAX 4096
#define CHANNEL_SLOTS_MIN 256
#define CHANNEL_BYTES_IN (4u << 20)
#define INBOX_SIZE 16384
#define DRAIN_BURST 64
#define PUT_AHEAD 8
/* A channel is parked (see struct bell) once its tail stood still, with
 * nothing held, for PARK_CHECKS checks in a row, one each IDLE_CHECK_EVERY
 * polls: after 192 to 256 polls without a message. */
#define IDLE_CHECK_EVERY 64
#define PARK_CHECKS 3
/* A bell's bits: one a source lcore's index, then the inbox's and the
 * control ring's (bell_inbox(), bell_ctl()); one word up to 62 lcores. */
#define BELL_WORDS ((RTE_MAX_LCORE + 2 + 63) / 64)
#define PARK_MAX 8 /* channels parked at most a poll (the rest the next) */

/*
 * The tag a slot's `pool` byte holds once it is written for position @p pos:
 * its lap, with the top bit set. A pool index never has it (there are far
 * fewer than 128 nodes), so neither a zeroed slot nor the envelope bytes
 * copied before the tag look full; a slot from the lap before has another
 * tag, and the producer is never more than a lap ahead.
 */
/* Set once by channels_init(): every channel has ch_mask + 1 slots. */
extern CHAN_HIDDEN uint32_t ch_mask;
extern CHAN_HIDDEN unsigned int ch_shift;

static inline uint8_t
lap_tag(uint32_t pos)
{
	return (uint8_t)(0x80u | ((pos >> ch_shift) & 0x7fu));
}

_Static_assert(sizeof(struct lca_msg) == RTE_CACHE_LINE_SIZE,
	       "an envelope crosses as one cache line");
_Static_assert(RTE_MAX_NUMA_NODES < 0x80, "a pool index never looks like a lap tag");

/*
 * An lcore's doorbell: what an idle poll reads instead of every channel.
 *
 * With many lcores most channels into one are empty most of the time, and
 * polling each costs a line or two a channel a poll. So the consumer polls
 * only the sources in `polled`; a channel found idle about 256 polls in
 * a row is *parked*: its producer, which reads the channel's `parked` flag
 * after each slot it writes (a line of its own, written only when the
 * flag changes, so a hit), then rings: sets the channel's bit in `rung`.
 * The inbox and the control ring, whose producers are many and rare, ring
 * on every push. The consumer takes the bits that rang (exchange, acquire:
 * the pushes before each ring are then visible) into `polled`, and an idle
 * poll reads two lines, its lcore_links and `rung`, whatever the lcores.
 *
 * No message is stranded: parking is Dekker's protocol. The consumer
 * stores `parked`, then a full barrier for every thread of the process
 * (membarrier(2), or a fence in each producer where the kernel has none),
 * then reads the slot at its tail again; the producer stores the slot's
 * tag, then reads `parked`. Either the producer's read sees `parked`, and
 * it rings, or the consumer's read sees the slot full, and it keeps
 * polling the channel: both reads missing both stores would need the two
 * orders reversed, which the barrier forbids. A ring is cleared only by the
 * consumer's exchange, which takes it; a bit that rang after that stays
 * for the next poll. A source leaves `polled` only when it was found empty
 * with nothing held after the exchange that took its last ring, so a push
 * that rang before it is seen, and one that rings after it rings again.
 */
struct bell {
	uint64_t rung[BELL_WORDS];                       /* producers set, consumer takes */
	uint64_t polled[BELL_WORDS] __rte_cache_aligned; /* the consumer's alone */
	uint32_t polls; /* the consumer's: polls of sources, for idle_check() */
};

struct channel {
	struct {
		uint32_t head;    /* next position to fill */
		uint32_t free_to; /* positions before it are known free */
	} prod __rte_cache_aligned;
	struct {
		uint32_t tail;    /* next position to take; read by the producer */
	} cons __rte_cache_aligned;
	struct {
		uint32_t parked;  /* atomic: the consumer waits for a ring */
		unsigned int bit; /* this channel's bit in the destination's bell */
		struct bell *bell;
	} watch __rte_cache_aligned;
	struct lca_msg slots[];
};

/* What a destination lcore took in but could not put in a mailbox yet. */
struct held {
	unsigned int head;
	unsigned int n;
	uint32_t seen_tail;       /* the channel's tail at the last idle check */
	unsigned int idle_checks; /* in a row that found it still, nothing held */
	struct lca_msg *msgs[DRAIN_BURST];
};

/* One lcore's ends of its links; only that lcore touches it once set up
 * (but for `lanes`, set once by a spawn). An idle poll reads this line and
 * the bell's `rung` line. */
struct lcore_links {
	uint16_t index;           /* dense index among enabled lcores */
	uint16_t n_polled;        /* bits in bell->polled */
	uint8_t lanes;            /* atomic: a packet actor exists */
	uint8_t bell_words;       /* words of the bell in use */
	uint8_t bells;            /* a copy of `chan_bells`, on this line */
	struct channel **out;     /* [dst index]: this lcore -> dst */
	struct channel **in;      /* [src index]: src -> this lcore */
	struct held **held;       /* [src index], and [n_links] for the inbox */
	struct rte_ring *inbox;   /* from any other thread, by pointer */
	struct rte_ring *ctl;     /* enum ctl_kind work about one actor */
	struct bell *bell;
} __rte_cache_aligned;

_Static_assert(sizeof(struct lcore_links) == RTE_CACHE_LINE_SIZE, "an idle poll reads one line");

/* Whether membarrier(2) gives the consumer's barrier for every producer;
 * if not, each producer fences between its slot and `parked`. */
extern CHAN_HIDDEN bool chan_asym;
/*
 * Whether the lcores use their bells: with one channel into each (two
 * lcores) an idle poll reads that channel, no more lines than a bell, and
 * polling it directly kept circular's hop at its cost (about 180 ns a hop
 * on dev against 200-260 ns through the bell's bookkeeping, ABAB runs in
 * the same minutes): there the poll is the one it was.
 */
extern CHAN_HIDDEN bool chan_bells;
#define BELLS_FROM_LCORES 3

extern CHAN_HIDDEN struct lcore_links chan_links[RTE_MAX_LCORE];
extern CHAN_HIDDEN unsigned int chan_lcore_of[RTE_MAX_LCORE];
extern CHAN_HIDDEN unsigned int chan_n_links;

static inline unsigned int
bell_inbox(void)
{
	return chan_n_links;
}

static inline unsigned int
bell_ctl(void)
{
	return chan_n_links + 1;
}

static inline bool
slot_full(const struct channel *c, uint32_t pos)
{
	return __atomic_load_n(&c->slots[pos & ch_mask].pool, __ATOMIC_ACQUIRE) ==
	       lap_tag(pos);
}

static inline void
polled_set(struct lcore_links *l, unsigned int bit, bool on)
{
	uint64_t m = UINT64_C(1) << (bit % 64), *w = &l->bell->polled[bit / 64];

	if (((*w & m) != 0) == on)
		return;
	*w ^= m;
	l->n_polled = (uint16_t)(l->n_polled + (on ? 1 : -1));
}

static inline void
bell_ring(struct bell *b, unsigned int bit)
{
	/* Release: the consumer's exchange that takes it sees the push. */
	__atomic_fetch_or(&b->rung[bit / 64], UINT64_C(1) << (bit % 64), __ATOMIC_RELEASE);
}

/* A message that reached an actor that had stopped: it was accepted, so it
 * is counted where a stopped actor's pending messages are; freed. */
void drop_for_stopped(struct lca_actor *a, struct lca_msg *m);

#endif /* LCA_CHANNEL_LINKS_PRIV_H */
