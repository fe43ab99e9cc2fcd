/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The remote frame decoder under fuzzing: any bytes, any length, never a
 * read outside them (ASan), and a frame it accepts is one whose every
 * record lies inside it, with the whole of any request id it carries.
 *
 * Built two ways (tests/meson.build):
 * - with -Dfuzz=true and CC=clang: a libFuzzer target (LLVMFuzzerTestOneInput,
 *   -fsanitize=fuzzer,address), run by `meson test` for a fixed number of
 *   runs and by hand for as long as one likes;
 * - otherwise: the same function driven by a small seeded mutator of its
 *   own (main() below) for a fixed number of iterations, so every build's
 *   `make test` runs it (under ASan in the ASan build).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lca_remote.h"
#include "lca_remote_wire_priv.h"
#include "lca_xorshift.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_view v;
	unsigned int n = 0;
	/* A copy of exactly the input's length, so ASan sees any overread. */
	uint8_t *buf = malloc(size ? size : 1);

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	if (lca_remote_frame_check(buf, (uint32_t)size, &n) == 0) {
		if (wire_decode(buf, (uint32_t)size, &v) != WIRE_OK)
			abort();
		/* Walk the records as delivery does. */
		const uint8_t *r = v.msgs;
		uint32_t total = 0;

		for (unsigned int i = 0; i < n; i++) {
			uint32_t len = ((uint32_t)r[12] << 8) | r[13];
			uint32_t flags = ((uint32_t)r[14] << 8) | r[15];
			uint32_t rl = wire_rec_len(len);
			volatile uint8_t sink = 0;

			/* Delivery reads an id's 8 bytes and puts the inline
			 * rest before data[24..32). */
			if ((flags & WIRE_MSG_F_ID) &&
			    (len < WIRE_ID_LEN || (!(flags & WIRE_MSG_F_MBUF) &&
						   len - WIRE_ID_LEN > LCA_MSG_INLINE_ASK)))
				abort();

			for (uint32_t k = 0; k < len; k++)
				sink ^= r[WIRE_MSG_LEN + k];
			(void)sink;
			r += rl;
			total += rl;
		}
		if (total != v.msgs_len || r > buf + size)
			abort();
	}
	free(buf);
	return 0;
}

#ifndef LCA_LIBFUZZER
struct seed_rec {
	uint16_t len;
	uint16_t flags;
};

/* Plain records: inline, at the inline limit, from an mbuf. */
static const struct seed_rec plain_recs[] = {
	{ 16, 0 }, { 40, 0 }, { 200, WIRE_MSG_F_MBUF },
};

/* Records with a request id (8 bytes, counted in len) before the payload:
 * an inline ask at LCA_MSG_INLINE_ASK, a reply in an mbuf, an empty ask. */
static const struct seed_rec id_recs[] = {
	{ WIRE_ID_LEN + LCA_MSG_INLINE_ASK, WIRE_MSG_F_ASK },
	{ WIRE_ID_LEN + 100, WIRE_MSG_F_REPLY | WIRE_MSG_F_MBUF },
	{ WIRE_ID_LEN, WIRE_MSG_F_ASK },
};

/* A well-formed data frame of the @p n records @p recs (none: an ack). */
static size_t
seed_frame(uint8_t *b, const struct seed_rec *recs, unsigned int n)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
	struct wire_hdr *h = (struct wire_hdr *)(b + WIRE_OUTER_LEN);
	uint32_t off = WIRE_OUTER_LEN + WIRE_HDR_LEN;

	memset(b, 0, 2048);
	memset(h, 0, sizeof(*h));
	h->version = WIRE_VERSION;
	h->flags = n ? WIRE_F_DATA | WIRE_F_ACK : WIRE_F_ACK | WIRE_F_NAK;
	h->seq = n ? __builtin_bswap32(7) : 0;
	h->n_msgs = __builtin_bswap16((uint16_t)n);
	for (unsigned int i = 0; i < n; i++) {
		b[off + 12] = (uint8_t)(recs[i].len >> 8);
		b[off + 13] = (uint8_t)recs[i].len;
		b[off + 14] = (uint8_t)(recs[i].flags >> 8);
		b[off + 15] = (uint8_t)recs[i].flags;
		for (unsigned int k = 0; k < recs[i].len; k++)
			b[off + WIRE_MSG_LEN + k] = (uint8_t)(k * 13 + i);
		off += wire_rec_len(recs[i].len);
	}
	wire_outer_write(b, mac, mac, 0x0a000001, 0x0a000002, 7000, 7001,
			 off - WIRE_OUTER_LEN);
	return off;
}

/* The id seed's first record broken as the check must refuse: its id cut
 * short, its inline part past LCA_MSG_INLINE_ASK, an unknown flag.
 * @return how many were accepted (0 when the check holds). */
static unsigned int
id_breaks_accepted(void)
{
	static const struct seed_rec breaks[] = {
		{ WIRE_ID_LEN - 4, WIRE_MSG_F_ASK },
		{ 0, WIRE_MSG_F_REPLY },
		{ WIRE_ID_LEN + LCA_MSG_INLINE_ASK + 4, WIRE_MSG_F_ASK },
		{ WIRE_ID_LEN, 0x0010 },
	};
	unsigned int accepted = 0;
	uint8_t b[2048];

	for (unsigned int i = 0; i < RTE_DIM(breaks); i++) {
		size_t len = seed_frame(b, &breaks[i], 1);

		accepted += lca_remote_frame_check(b, (uint32_t)len, NULL) == 0;
	}
	return accepted;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t
next(void)
{
	return lca_xorshift64(&rng);
}

int
main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	uint8_t seed[3][2048], buf[2048];
	size_t seed_len[3], accepted = 0;

	seed_len[0] = seed_frame(seed[0], plain_recs, RTE_DIM(plain_recs));
	seed_len[1] = seed_frame(seed[1], NULL, 0);
	seed_len[2] = seed_frame(seed[2], id_recs, RTE_DIM(id_recs));
	for (int s = 0; s < 3; s++)
		if (lca_remote_frame_check(seed[s], (uint32_t)seed_len[s], NULL) != 0) {
			fprintf(stderr, "fuzz_frame: seed %d is not well-formed\n", s);
			return 1;
		}
	if (id_breaks_accepted() != 0) {
		fprintf(stderr, "fuzz_frame: a malformed request id was accepted\n");
		return 1;
	}
	for (unsigned long i = 0; i < iters; i++) {
		int s = (int)(next() % 3);
		size_t len = seed_len[s];
		unsigned int muts = 1 + (unsigned int)(next() % 4);

		memcpy(buf, seed[s], sizeof(buf));
		for (unsigned int m = 0; m < muts && len > 0; m++) {
			switch (next() % 5) {
			case 0: /* flip a bit */
				buf[next() % len] ^= (uint8_t)(1u << (next() % 8));
				break;
			case 1: /* any byte */
				buf[next() % len] = (uint8_t)next();
				break;
			case 2: /* cut short */
				len = next() % (len + 1);
				break;
			case 3: /* longer, with garbage */
				len = RTE_MIN(sizeof(buf), len + next() % 64);
				break;
			default: /* a length field to an extreme */
				buf[WIRE_ETH_LEN + 2 + (next() % 2)] = (uint8_t)next();
				break;
			}
		}
		LLVMFuzzerTestOneInput(buf, len);
		accepted += lca_remote_frame_check(buf, (uint32_t)len, NULL) == 0;
	}
	printf("fuzz_frame: %lu mutated frames decoded, %zu accepted, no fault\n", iters,
	       accepted);
	return 0;
}
#endif
