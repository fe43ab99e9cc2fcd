/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime used out of order (issue 13, defect 5): an envelope asked
 * for before the runtime is up or after it is gone, and a cleanup while
 * the loops run, get an error, never a crash. With -Ddebug_envelopes=true
 * (the sanitizer build of `make test`), a double free, a send after free
 * and a write after free are caught, and the pool stays sound.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_test.h"

static void
test_alloc_without_runtime(void **state)
{
	struct lca_runtime_conf c = { .msgs_per_node = 1023 };
	struct lca_msg *m = NULL, *two[2];

	(void)state;
	assert_int_equal(lca_msg_alloc(&m), -EINVAL);
	assert_int_equal(lca_msg_alloc_bulk(two, 2), -EINVAL);
	assert_int_equal(lca_runtime_init(&c), 0);
	assert_int_equal(lca_msg_alloc(&m), 0);
	lca_msg_free(m);
	assert_int_equal(lca_runtime_cleanup(), 0);
	assert_int_equal(lca_msg_alloc(&m), -EINVAL);
	assert_int_equal(lca_runtime_cleanup(), 0); /* twice is harmless */
}

static int cleanup_while_running;

static void
cleaner_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	(void)self;
	(void)state;
	(void)m;
	cleanup_while_running = lca_runtime_cleanup();
	lca_runtime_stop();
}

static void
test_cleanup_while_running(void **state)
{
	struct lca_runtime_conf c = { .msgs_per_node = 1023 };
	lca_actor_id_t id;

	(void)state;
	assert_int_equal(lca_runtime_init(&c), 0);
	id = lca_test_spawn(cleaner_handler, 0, 1, 0, 1);
	cleanup_while_running = 0;
	assert_int_equal(lca_send(id, lca_test_msg()), 0);
	assert_true(lca_test_run(20));
	assert_int_equal(cleanup_while_running, -EBUSY);
	/* Nothing was freed: the actor is still there, and so are the pools. */
	assert_true(lca_actor_alive(id));
	assert_int_equal(lca_runtime_cleanup(), 0);
}

/*
 * Envelope misuse (double free, send or write after free) is caught only in a
 * -Ddebug_envelopes=true build: the check is compiled there (make test's ASan
 * build, make tsan's build) and not registered elsewhere, rather than skipped.
 */
#ifdef LCA_DEBUG_ENVELOPES
static void
nobody(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	(void)self;
	(void)state;
	(void)m;
}

static void
test_envelope_misuse_is_caught(void **state)
{
	struct lca_runtime_conf c = { .msgs_per_node = 1023, .pool_cache = 32 };
	struct lca_actor_spec spec = { .handler = nobody, .lcore = 0 };
	struct lca_send_errors e;
	struct lca_msg *m, *a, *b;
	lca_actor_id_t id;

	(void)state;
	assert_int_equal(lca_runtime_init(&c), 0);
	assert_int_equal(lca_actor_spawn(&spec, &id), 0);

	/* A double free: caught, and the envelope goes back only once, so
	 * the next two allocations are two envelopes. */
	assert_int_equal(lca_msg_alloc(&m), 0);
	lca_msg_free(m);
	lca_msg_free(m);
	lca_send_errors_get(&e);
	assert_int_equal(e.misuse, 1);
	assert_int_equal(lca_msg_alloc(&a), 0);
	assert_int_equal(lca_msg_alloc(&b), 0);
	assert_ptr_not_equal(a, b);
	lca_msg_free(b);

	/* A send of a freed envelope: refused, and it is still free. */
	lca_msg_free(a);
	assert_int_equal(lca_send(id, a), -EINVAL);
	lca_send_errors_get(&e);
	assert_int_equal(e.misuse, 2);

	/* A write after the free: caught when the envelope is next taken
	 * (the lcore's cache gives back the last one freed). */
	a->type = 7;
	assert_int_equal(lca_msg_alloc(&m), 0);
	assert_ptr_equal(m, a);
	lca_send_errors_get(&e);
	assert_int_equal(e.misuse, 3);
	lca_msg_free(m);

	/* A bulk free of one freed twice: the rest go back, that one not. */
	assert_int_equal(lca_msg_alloc(&a), 0);
	assert_int_equal(lca_msg_alloc(&b), 0);
	lca_msg_free(a);
	{
		struct lca_msg *both[2] = { a, b };

		lca_msg_free_bulk(both, 2);
	}
	lca_send_errors_get(&e);
	assert_int_equal(e.misuse, 4);
	assert_int_equal(lca_msg_alloc(&a), 0);
	assert_int_equal(lca_msg_alloc(&b), 0);
	assert_ptr_not_equal(a, b);
	lca_msg_free(a);
	lca_msg_free(b);
	assert_int_equal(lca_runtime_cleanup(), 0);
}
#endif

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_without_runtime),
		cmocka_unit_test(test_cleanup_while_running),
#ifdef LCA_DEBUG_ENVELOPES
		cmocka_unit_test(test_envelope_misuse_is_caught),
#endif
	};
	int failed;

	lca_test_eal_init("lca_test_misuse");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
