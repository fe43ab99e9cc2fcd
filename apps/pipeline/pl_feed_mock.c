/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mock source of Samza's TestSamzaContainerPerformance: each stream
 * partition (SSP) has a mock consumer that hands over its messages in
 * batches of --batch (a "poll"), and the container's chooser takes one
 * message at a time from the partition's streams in turn, as Samza's
 * RoundRobinChooser does. So message k of a partition is stream k % S at
 * offset k / S, and a poll of every stream happens each --batch rounds.
 * The messages are made when taken (peek), not kept in buffers.
 */
#include <errno.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_malloc.h>

#include "pipeline.h"

struct mock_part {
	uint64_t quota;    /* messages this partition produces in all */
	uint64_t produced; /* committed so far */
	uint32_t stream;   /* stream of the next message: produced % streams */
	uint32_t part;
	uint64_t offset;   /* its offset: produced / streams */
	uint32_t streams;
} __rte_cache_aligned;

static struct mock_part *parts[PL_MAX_PARTITIONS];
static uint32_t n_parts;
static uint32_t batch;

static void
mock_teardown(void)
{
	for (uint32_t p = 0; p < n_parts; p++) {
		rte_free(parts[p]);
		parts[p] = NULL;
	}
	n_parts = 0;
}

static void
mock_reset(void)
{
	for (uint32_t p = 0; p < n_parts; p++) {
		parts[p]->produced = 0;
		parts[p]->stream = 0;
		parts[p]->offset = 0;
	}
}

static int
mock_setup(const struct pl_conf *c, const unsigned int *src_lcore)
{
	for (uint32_t p = 0; p < c->partitions; p++) {
		int socket = (int)rte_lcore_to_socket_id(src_lcore[p]);

		parts[p] = rte_zmalloc_socket("pl_mock", sizeof(*parts[p]), RTE_CACHE_LINE_SIZE,
					      socket);
		if (parts[p] == NULL) {
			mock_teardown();
			return -ENOMEM;
		}
		n_parts = p + 1;
		parts[p]->quota = c->messages / c->partitions + (p < c->messages % c->partitions);
		parts[p]->part = p;
		parts[p]->streams = c->streams;
	}
	batch = c->batch;
	return 0;
}

static unsigned int
mock_peek(uint32_t part, struct pl_rec *out, unsigned int max)
{
	const struct mock_part *m = parts[part];
	uint64_t left = m->quota - m->produced, offset = m->offset;
	uint32_t stream = m->stream;
	unsigned int n = left < max ? (unsigned int)left : max;

	for (unsigned int i = 0; i < n; i++) {
		out[i] = (struct pl_rec){ .stream = stream, .part = part, .offset = offset };
		if (++stream == m->streams) {
			stream = 0;
			offset++;
		}
	}
	return n;
}

static void
mock_commit(uint32_t part, unsigned int n)
{
	struct mock_part *m = parts[part];

	m->produced += n;
	/* One division for a burst when it wraps; none otherwise. */
	if (m->stream + n < m->streams) {
		m->stream += n;
	} else {
		m->stream = (uint32_t)(m->produced % m->streams);
		m->offset = m->produced / m->streams;
	}
}

static uint64_t
mock_remaining(uint32_t part)
{
	return parts[part]->quota - parts[part]->produced;
}

static uint64_t
mock_quota(uint32_t part)
{
	return parts[part]->quota;
}

static uint64_t
mock_expected(uint32_t part, uint32_t stream)
{
	const struct mock_part *m = parts[part];

	return m->quota / m->streams + (stream < m->quota % m->streams);
}

/* A stream that gave n messages was polled ceil(n / batch) times. */
static uint64_t
mock_polls(void)
{
	uint64_t polls = 0;

	for (uint32_t p = 0; p < n_parts; p++) {
		const struct mock_part *m = parts[p];
		uint64_t q = m->produced / m->streams, r = m->produced % m->streams;

		polls += r * ((q + 1 + batch - 1) / batch) + (m->streams - r) * ((q + batch - 1) / batch);
	}
	return polls;
}

const struct pl_feed pl_feed_mock = {
	.name = "mock",
	.setup = mock_setup,
	.reset = mock_reset,
	.peek = mock_peek,
	.commit = mock_commit,
	.remaining = mock_remaining,
	.quota = mock_quota,
	.expected = mock_expected,
	.polls = mock_polls,
	.teardown = mock_teardown,
};
