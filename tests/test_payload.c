/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Payloads larger than a slot, by value: lca_msg_from_bytes() copies any
 * size (inline up to LCA_MSG_INLINE, an mbuf chain past it), the copy
 * crosses to another lcore's actor, which reads every byte back with
 * lca_msg_payload_read() whatever the layout; the sender's buffer is its
 * own again at once; an empty pool keeps nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_mempool.h"
#include "lca_test.h"

#define BIG (70 * 1000) /* 35 segments of 2 KiB */

static const uint32_t sizes[] = { 0, 1, LCA_MSG_INLINE, LCA_MSG_INLINE + 1, 2048, 5000, BIG };

static struct rte_mempool *mbufs;

/* What the reader found. */
struct reader {
	uint32_t got;
	uint32_t bad;      /* messages with a byte or a length wrong */
	uint32_t lens[RTE_DIM(sizes)];
};

static uint8_t
pattern(uint32_t len, uint32_t i)
{
	return (uint8_t)(i * 7 + len);
}

static void
reader_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct reader *r = state;
	uint32_t len = lca_msg_payload_len(msg);
	uint8_t chunk[97];

	(void)self;
	/* Odd-sized reads, so some span two segments. */
	for (uint32_t off = 0; off < len; off += sizeof(chunk)) {
		uint32_t n = RTE_MIN((uint32_t)sizeof(chunk), len - off);
		const uint8_t *b = lca_msg_payload_read(msg, off, n, chunk);

		for (uint32_t i = 0; b != NULL && i < n; i++)
			if (b[i] != pattern(len, off + i))
				b = NULL;
		if (b == NULL) {
			r->bad++;
			break;
		}
	}
	if (lca_msg_payload_read(msg, len, 1, chunk) != NULL)
		r->bad++;
	if (r->got < RTE_DIM(sizes))
		r->lens[r->got] = len;
	if (++r->got == RTE_DIM(sizes))
		lca_runtime_stop();
}

static int
setup(void **state)
{
	mbufs = rte_pktmbuf_pool_create("payload_h-ask", 127, 0, 0, 2048 + RTE_PKTMBUF_HEADROOM,
					SOCKET_ID_ANY);
	if (mbufs == NULL)
		return -1;
	return lca_test_setup(state);
}

static int
teardown(void **state)
{
	int ret = lca_test_teardown(state);

	rte_mempool_free(mbufs);
	mbufs = NULL;
	return ret;
}

static void
test_any_size_crosses_lcores(void **state)
{
	static uint8_t bytes[BIG];
	lca_actor_id_t reader = lca_test_spawn(reader_handler, sizeof(struct reader), 1, 0, 0);
	const struct reader *r;

	(void)state;
	for (unsigned int s = 0; s < RTE_DIM(sizes); s++) {
		struct lca_msg *m;

		for (uint32_t i = 0; i < sizes[s]; i++)
			bytes[i] = pattern(sizes[s], i);
		assert_int_equal(lca_msg_from_bytes(mbufs, bytes, sizes[s], &m), 0);
		/* By value: the buffer is the sender's again. */
		memset(bytes, 0, sizes[s]);
		assert_int_equal(lca_msg_payload_len(m), sizes[s]);
		assert_int_equal((m->flags & LCA_MSG_F_MBUF) != 0, sizes[s] > LCA_MSG_INLINE);
		if (sizes[s] == BIG)
			assert_int_equal(((struct rte_mbuf *)m->ptr)->nb_segs, (BIG + 2047) / 2048);
		assert_int_equal(lca_send(reader, m), 0);
	}
	assert_true(lca_test_run(30));
	r = lca_actor_state(reader);
	assert_int_equal(r->got, RTE_DIM(sizes));
	assert_int_equal(r->bad, 0);
	for (unsigned int s = 0; s < RTE_DIM(sizes); s++)
		assert_int_equal(r->lens[s], sizes[s]);
	assert_int_equal(rte_mempool_avail_count(mbufs), 127);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

static void
test_errors_keep_nothing(void **state)
{
	static uint8_t bytes[200 * 2048]; /* more than the pool's 127 mbufs */
	struct lca_msg *m = NULL;
	uint8_t one = 1;

	(void)state;
	assert_int_equal(lca_msg_from_bytes(mbufs, bytes, sizeof(bytes), &m), -ENOMEM);
	assert_null(m);
	assert_int_equal(rte_mempool_avail_count(mbufs), 127);
	assert_int_equal(lca_msg_from_bytes(NULL, bytes, LCA_MSG_INLINE + 1, &m), -EINVAL);
	assert_int_equal(lca_msg_from_bytes(mbufs, NULL, 1, &m), -EINVAL);
	assert_int_equal(lca_msg_from_bytes(mbufs, bytes, 1, NULL), -EINVAL);
	/* Inline bytes need no pool. */
	assert_int_equal(lca_msg_from_bytes(NULL, &one, 1, &m), 0);
	assert_int_equal(*(const uint8_t *)lca_msg_payload_read(m, 0, 1, NULL), 1);
	assert_null(lca_msg_payload_read(m, 0, 2, NULL));
	assert_null(lca_msg_payload_read(NULL, 0, 1, NULL));
	assert_int_equal(lca_msg_payload_len(NULL), 0);
	lca_msg_free(m);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_any_size_crosses_lcores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_keep_nothing, setup, teardown),
	};
	int failed;

	lca_test_eal_init("lca_test_payload_h-ask");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
