/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Envelope checks of a -Ddebug_envelopes=true build: each envelope gets a
 * second cache line after it holding a cookie and its owner state, so a
 * double free, a send of a freed envelope and a write to one after its free
 * are caught with a message naming the envelope, and the envelope is not
 * put back twice (the pool stays sound). Without the option every check
 * is a constant and the envelope is its one line.
 */
#ifndef LCA_ENVELOPE_PRIV_H
#define LCA_ENVELOPE_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lca_actor.h"

#ifdef LCA_DEBUG_ENVELOPES

#define ENVELOPE_COOKIE 0x6c63616d73672121ull /* "lcamsg!!" */
#define ENVELOPE_POISON 0x6b

enum envelope_state {
	ENVELOPE_FREE = 0x46524545,  /* in its pool */
	ENVELOPE_OWNED = 0x4f574e44, /* out of it: an app's or the runtime's */
};

struct envelope_debug {
	uint64_t cookie;
	uint32_t state;
} __rte_cache_aligned;

/* The pools' element: the envelope, then its debug line. */
#define ENVELOPE_ELT_SIZE (2 * sizeof(struct lca_msg))

static inline struct envelope_debug *
envelope_debug(const struct lca_msg *m)
{
	return (struct envelope_debug *)(uintptr_t)(m + 1);
}

/* Report and count a misuse of @p m (lca_send.c). */
void envelope_misuse(const struct lca_msg *m, const char *what);
/* Count a packet handler's misuse of an mbuf (lca_pktguard.c logs it). */
void packet_misuse_count(void);

/* A fresh element of a pool: free, poisoned. */
static inline void
envelope_debug_init(struct lca_msg *m)
{
	memset(m, ENVELOPE_POISON, sizeof(*m));
	envelope_debug(m)->cookie = ENVELOPE_COOKIE;
	envelope_debug(m)->state = ENVELOPE_FREE;
}

/* Out of its pool: it must be free, and untouched since its free. */
static inline void
envelope_taken(struct lca_msg *m)
{
	const uint8_t *b = (const uint8_t *)m;

	if (envelope_debug(m)->cookie != ENVELOPE_COOKIE)
		envelope_misuse(m, "taken from a pool but it is not an envelope");
	else if (envelope_debug(m)->state != ENVELOPE_FREE)
		envelope_misuse(m, "taken from a pool but it is not free (freed twice before?)");
	for (unsigned int i = 0; i < sizeof(*m); i++)
		if (b[i] != ENVELOPE_POISON) {
			envelope_misuse(m, "written after it was freed (use after free)");
			break;
		}
	envelope_debug(m)->state = ENVELOPE_OWNED;
}

/* Back to its pool: @return false when it must not go (freed already, or
 * not an envelope), after a message. */
static inline bool
envelope_giving_back(struct lca_msg *m)
{
	if (envelope_debug(m)->cookie != ENVELOPE_COOKIE) {
		envelope_misuse(m, "freed but it is not an envelope");
		return false;
	}
	if (envelope_debug(m)->state != ENVELOPE_OWNED) {
		envelope_misuse(m, "freed twice (double free)");
		return false;
	}
	envelope_debug(m)->state = ENVELOPE_FREE;
	return true;
}

/* Poison it once nothing of it is needed any more. */
static inline void
envelope_poison(struct lca_msg *m)
{
	memset(m, ENVELOPE_POISON, sizeof(*m));
}

/* Sent: @return false when it is not an envelope the sender owns. */
static inline bool
envelope_sendable(const struct lca_msg *m)
{
	if (envelope_debug(m)->cookie == ENVELOPE_COOKIE &&
	    envelope_debug(m)->state == ENVELOPE_OWNED)
		return true;
	envelope_misuse(m, "sent but it was freed (or is not an envelope)");
	return false;
}

#else /* !LCA_DEBUG_ENVELOPES */

#define ENVELOPE_ELT_SIZE sizeof(struct lca_msg)

static inline void envelope_debug_init(struct lca_msg *m) { (void)m; }
static inline void envelope_taken(struct lca_msg *m) { (void)m; }
static inline bool envelope_giving_back(struct lca_msg *m) { (void)m; return true; }
static inline void envelope_poison(struct lca_msg *m) { (void)m; }
static inline bool envelope_sendable(const struct lca_msg *m) { (void)m; return true; }

#endif /* LCA_DEBUG_ENVELOPES */

#endif /* LCA_ENVELOPE_PRIV_H */
