/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_TEST_H
#define LCA_TEST_H

/* What the unit tests share: EAL bring-up as CI runs it, and a run of the
 * lcore loops that cannot hang a test. */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lca_actor.h"

/*
 * Start EAL on lcores 0-1 with --no-huge --no-pci --in-memory and a file
 * prefix of its own, so that tests may run side by side. Exits the process
 * when EAL cannot start: no test could run. LCA_TEST_LCORES, when set,
 * replaces -l 0-1 with --lcores and its value, e.g. "(0-2)@(0-1)": three
 * lcores over two CPUs.
 */
void lca_test_eal_init(const char *prefix);

/*
 * As lca_test_eal_init(), with @p n_extra more EAL arguments after those
 * (e.g. "--vdev", "net_ring0").
 */
void lca_test_eal_init_args(const char *prefix, const char *const *extra, unsigned int n_extra);

/*
 * One run of the runtime, as LCA_TEST_DRIVER says: lcactor's own loops
 * (lca_runtime_run(), "own", the default) or the application's ("guest":
 * lca_runtime_start(), a loop on every lcore that calls lca_runtime_poll(),
 * lca_runtime_end()), so that one test checks a guarantee both ways.
 * @return lca_runtime_run()'s, or lca_runtime_end()'s.
 */
int lca_test_runtime_run(unsigned int timeout_ms);

/* A thread that sends this process SIGINT in @p ms milliseconds: the
 * signal tests' stop. Join it with pthread_join(). @return pthread_create()'s. */
int lca_test_interrupt_in(pthread_t *th, unsigned int ms);

/* The driver of lca_test_runtime_run(): "own" or "guest". */
const char *lca_test_driver(void);

/*
 * Run the loops until a handler stops them, or until @p max_seconds pass.
 * @return true when a handler stopped them, false on the watchdog.
 */
bool lca_test_run(unsigned int max_seconds);

/*
 * Run the loops in 10 ms slices until @p done(@p arg) holds, or until
 * @p max_seconds pass: what is still on its way gets there however loaded
 * the machine is, and a test never waits longer than it must. When the
 * deadline passes on a machine that starved this process
 * (lca_test_cpu_starved()), the running test is skipped, saying so: a
 * deadline missed for want of a CPU says nothing of the code.
 * @return whether @p done held.
 */
bool lca_test_run_until(bool (*done)(void *arg), void *arg, unsigned int max_seconds);

/*
 * The time a test had: wall time, and what this process lost of it to
 * other work (its threads' run-queue wait, from /proc/self/task/N/schedstat,
 * and the machine's steal time), from lca_test_cpu_start() on.
 */
struct lca_test_cpu {
	uint64_t wall_ns;
	uint64_t lost_ns;
};

void lca_test_cpu_start(struct lca_test_cpu *c);

/* The share of wall time lost past which a run is starved: a timed check
 * that fails then is skipped, not failed. */
#define LCA_TEST_STARVED_PCT 10

/*
 * Whether this process lost more than LCA_TEST_STARVED_PCT % of the wall
 * time since lca_test_cpu_start(@p c) to other work; the figures said in
 * @p why (@p len bytes) either way.
 */
bool lca_test_cpu_starved(const struct lca_test_cpu *c, char *why, size_t len);

/*
 * A check that holds only when the test got its CPU (a rate, a deadline, a
 * count of samples in a time): when @p cond fails and the process was
 * starved since lca_test_cpu_start(@p cpu), the test is skipped (exit 77,
 * counted by scripts/ci-no-skips), else it fails as assert_true() does.
 * Timing itself is never asserted: only what a run that had its CPU does.
 */
#define lca_test_check_timed(cpu, cond)                                              \
	do {                                                                         \
		if (!(cond)) {                                                       \
			char why_[192];                                              \
			if (lca_test_cpu_starved((cpu), why_, sizeof(why_)))         \
				lca_test_skip(why_);                                 \
			assert_true(cond);                                           \
		}                                                                    \
	} while (0)

/*
 * Start the runtime with @p conf (the tests' small pools) and say how many
 * envelopes its pools hold when none is out, which every test ends with.
 * @return lca_runtime_init()'s.
 */
int lca_test_runtime_up(const struct lca_runtime_conf *conf, unsigned int *pool_full);

/* Envelopes in the pools when none is out, as lca_test_setup() found it. */
extern unsigned int lca_test_pool_full;

/* cmocka setup and teardown of the usual test: the runtime with small
 * pools (4095 envelopes, caches of 64), its pool_full in
 * lca_test_pool_full; then lca_runtime_cleanup(). */
int lca_test_setup(void **state);
int lca_test_teardown(void **state);

/* An affinity actor of @p handler with zeroed state of @p size on
 * @p lcore (or LCA_LCORE_ANY), a mailbox of @p mailbox (0: default) and
 * @p throughput; fails the test when it cannot be spawned. */
lca_actor_id_t lca_test_spawn(lca_handler_fn handler, size_t size, unsigned int lcore,
			      unsigned int mailbox, unsigned int throughput);

/* An envelope from the local pool; fails the test when there is none. */
struct lca_msg *lca_test_msg(void);

/* A numbered message of one of up to LCA_TEST_SENDERS senders. */
#define LCA_TEST_SENDERS 16
struct lca_test_seq {
	uint32_t sender;
	uint32_t seq;
};

/* An envelope carrying @p seq of @p sender; fails the test when none. */
struct lca_msg *lca_test_seq_msg(uint32_t sender, uint32_t seq);

/* A recorder actor's state: what it got, and each sender's next number. */
struct lca_test_recorder {
	uint64_t got;
	uint64_t expect;       /* it stops the loops when it has got this many */
	uint32_t next[LCA_TEST_SENDERS];
	uint64_t out_of_order; /* a number not the next, or a sender unknown */
};

/* The recorder's handler: counts, checks each sender's order. */
void lca_test_recorder_handler(lca_actor_id_t self, void *state, struct lca_msg *msg);

/*
 * A fake root for the readers that read proc/ and sys/ under one: a new
 * folder /tmp/lca_test_NAME.XXXXXX, its path in @p root (@p len bytes).
 * @return 0; -1 when it cannot be made.
 */
int lca_test_root_make(char *root, size_t len, const char *name);

/* Make the folder root/rel and those above it. */
void lca_test_root_mkdirs(const char *root, const char *rel);

/* Write root/rel (a printf format), creating its folders; the file is
 * rewritten in place, so that a descriptor kept open sees the new content.
 * Fails the test when it cannot. */
void lca_test_root_write(const char *root, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Remove the fake root and everything under it. @return 0; -1 on failure. */
int lca_test_root_remove(const char *root);

/*
 * Skip the running test, saying why. cmocka's own skip() counts as a pass in
 * the program's exit status; this one is remembered, so that main's
 * lca_test_status() exits 77 and meson counts the program as SKIP.
 */
#define lca_test_skip(why)                          \
	do {                                        \
		lca_test_skipped(__func__, (why)); \
		skip();                             \
	} while (0)

/* Note a skip of @p test for lca_test_status(), and print it with @p why. */
void lca_test_skipped(const char *test, const char *why);

/*
 * The program's exit status from cmocka's count of failed tests: 1 when any
 * failed, else 77 (meson's SKIP) when any test was skipped, else 0.
 */
int lca_test_status(int failed);

/*
 * Ask this process's telemetry socket @p cmd, as dpdk-telemetry.py does;
 * the JSON reply into @p reply (@p len bytes, NUL-ended).
 * @return 0; -EIO (no socket, or no reply); a negative errno of socket().
 */
int lca_test_telemetry_query(const char *cmd, char *reply, size_t len);

#endif /* LCA_TEST_H */
